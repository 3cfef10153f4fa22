"""The workbench's hold on its session: built, attached to the screen, warmed, followed, closed.

The session is built from a ``SessionRequest`` through the one session factory, with the
workbench's event adapter (``UiEventSink``) and its inline questions (``PermissionBroker``,
``CompactionBroker``) as the request's sink, permission callback and compaction policy: at once
(tests, benchmarks), or after the first frame (a launch). Until it is open there is no
controller, and reading one raises (the screen disables the keys that need one). This is a
plain object the screen holds, not a screen class to inherit from.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

import msgspec
from textual.message_pump import MessagePump

from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.app.adapter import UiEventSink
from steiner_tui.app.compaction_broker import CompactionBroker
from steiner_tui.app.completion import CompletionSources
from steiner_tui.app.controller import SessionController
from steiner_tui.app.live_files import WatchPlan
from steiner_tui.app.permission import PermissionBroker
from steiner_tui.app.steering import SteeringController
from steiner_tui.engine.events import FanoutSink

__all__ = ["SessionOpenFailed", "Warmable", "WorkbenchSession", "follow_files"]


class SessionOpenFailed(msgspec.Struct, frozen=True):
    """The app's exit value when its session could not be opened (the CLI prints ``error``)."""

    error: str


@runtime_checkable
class Warmable(Protocol):
    """A provider that can import its SDK ahead of the first call (the SDK providers)."""

    async def warm(self) -> None:
        """Import the SDK and build the client, off the UI loop."""


class WorkbenchSession:
    """One session, its controllers, and the adapters that bring its events to a screen."""

    def __init__(self, request: SessionRequest) -> None:
        self.request = request
        """What the session is built from (the sink and questions are added here)."""
        self.events = UiEventSink()
        """Posts the session's engine events to the screen."""
        self.permissions = PermissionBroker()
        """Answers the session's permission requests with inline prompts."""
        self.compaction = CompactionBroker()
        """Answers ``ask`` mode's questions and which pins to drop, inline."""
        self._session: Session | None = None
        self._controller: SessionController | None = None
        self._steering: SteeringController | None = None

    def open(self) -> Session:
        """Build the session (the one factory).

        Raises:
            What ``build_session`` raises.
        """
        request = self.request
        sink = self.events if request.sink is None else FanoutSink((request.sink, self.events))
        session = build_session(
            msgspec.structs.replace(
                request, sink=sink, permission=self.permissions, compaction_policy=self.compaction
            )
        )
        self._session = session
        self._controller = SessionController(session)
        self._steering = SteeringController(session)
        return session

    def try_open(self) -> SessionOpenFailed | None:
        """Build the session, or say why it cannot be opened (a launch exits with it)."""
        from steiner_tui.sessions.errors import SessionLoadError, SessionNotFoundError

        try:
            self.open()
        except (ValueError, SessionNotFoundError, SessionLoadError, OSError) as error:
            return SessionOpenFailed(str(error))
        return None

    @property
    def attached(self) -> bool:
        """Whether the session is open."""
        return self._session is not None

    @property
    def session(self) -> Session:
        """The session (``RuntimeError`` while it is still opening)."""
        if self._session is None:
            raise RuntimeError("the session is still opening")
        return self._session

    @property
    def controller(self) -> SessionController:
        """Engine-side operations."""
        if self._controller is None:
            raise RuntimeError("the session is still opening")
        return self._controller

    @property
    def steering(self) -> SteeringController:
        """The compaction mode, pins, cost ranking and what-if."""
        if self._steering is None:
            raise RuntimeError("the session is still opening")
        return self._steering

    @property
    def driver(self) -> InteractiveDriver:
        """The session's driver."""
        return self.session.driver

    def attach(self, target: MessagePump) -> None:
        """Post engine events and questions to ``target`` from now on."""
        self.events.attach(target)
        self.permissions.attach(target)
        self.compaction.attach(target)

    def completion_sources(self) -> CompletionSources:
        """What ``/model``, ``/skills`` and ``/sessions`` arguments can name."""
        if not self.attached:
            return CompletionSources()
        current = self.driver.runner.model.ref
        refs = dict.fromkeys([current, *self.session.model_refs])
        models = [(ref, "current" if ref == current else "") for ref in refs]
        skills = [(row.name, row.state.replace("_", " ")) for row in self.controller.skill_rows()]
        return CompletionSources(models, skills)

    async def close(self) -> None:
        """Stop posting; cancel sub-agents still running and wait for them; close the
        providers' connections."""
        if not self.attached:
            return
        self.events.detach()
        self.permissions.detach()
        self.compaction.detach()
        await self.session.stop()

    async def warm(self) -> None:
        """Import the provider's SDK (in a thread) before the first request needs it; then ask
        the local servers which models they serve, for ``/model`` (``Session.served``)."""
        provider = self.driver.runner.model.provider
        if isinstance(provider, Warmable):
            # What is wrong the first request reports, in the conversation.
            with contextlib.suppress(Exception):
                await provider.warm()
        await asyncio.to_thread(self.session.learn_served_models)


async def follow_files(
    plan: WatchPlan, apply: Callable[[Iterable[tuple[object, str]]], object]
) -> None:
    """Hand every batch of changes under ``plan`` to ``apply`` until cancelled."""
    # Speed: watchfiles (with anyio and multiprocessing, 4 ms of CPU) loads when the watcher
    # starts, after the first frame; kept for issue 16's 1.5x (see ``tool_view._language``).
    from watchfiles import awatch

    async def follow(paths: tuple[Path, ...], recursive: bool) -> None:
        if paths:
            async for changes in awatch(*paths, recursive=recursive):
                apply(changes)

    await asyncio.gather(follow(plan.file_dirs(), False), follow(plan.root_dirs(), True))
