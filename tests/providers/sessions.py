"""Interactive sessions over a real SDK provider, logged into a temporary sessions folder.

The same wiring the app uses (``sessions.resume``: a session log in the sink fan-out, the real
runner, the real tools), with the provider pointed at a loopback server. ``resume`` opens a
logged session again, the way ``--resume`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import SessionSpec
from steiner_tui.engine.events import EngineEvent, ErrorEvent, ListSink
from steiner_tui.engine.messages import Message
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.sessions.resume import (
    OpenedSession,
    open_interactive_session,
    open_session_for_app,
)
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools

__all__ = ["LoggedSession", "Sessions", "shape"]


def shape(messages: tuple[Message, ...]) -> list[tuple[Any, ...]]:
    """What a resumed conversation must keep of each message."""
    return [
        (
            m.role,
            m.content,
            m.incomplete,
            tuple((c.id, c.name, c.raw_arguments) for c in m.tool_calls),
            m.tool_call_id,
            len(m.images),
        )
        for m in messages
    ]


@dataclass
class LoggedSession:
    """One opened session, its events and its provider."""

    opened: OpenedSession
    sink: ListSink
    provider: SdkProvider[Any, Any]

    @property
    def driver(self) -> Any:
        return self.opened.driver

    @property
    def runner(self) -> Any:
        return self.opened.driver.runner

    @property
    def session_id(self) -> str:
        return self.opened.opening.session_id

    def events(self, kind: type[EngineEvent]) -> list[Any]:
        return [e for e in self.sink.events if isinstance(e, kind)]

    @property
    def errors(self) -> list[ErrorEvent]:
        return self.events(ErrorEvent)


@dataclass
class Sessions:
    """Opens sessions in one project and sessions folder; closes their logs and clients."""

    project: Path
    base: Path
    clock: ManualClock = field(
        default_factory=lambda: ManualClock(datetime(2026, 9, 13, 9, 0, tzinfo=UTC))
    )
    opened: list[LoggedSession] = field(default_factory=list)

    def open(
        self, provider: SdkProvider[Any, Any], model: str, resume: str | None = None
    ) -> LoggedSession:
        main = MainModel(
            provider.alias, model, provider, provider.model_info(model), prompt_cache_key="k"
        )
        spec = SessionSpec(self.project, main, compaction=CompactionSettings())
        sink = ListSink()
        opened = open_interactive_session(
            spec,
            open_session_for_app(self.project, resume, self.base),
            estimator=RequestEstimator(default_encoding_loader(None)),
            tools=ToolExecutor(default_tools()),
            sink=sink,
            clock=self.clock,
        )
        session = LoggedSession(opened, sink, provider)
        self.opened.append(session)
        return session

    async def close(self) -> None:
        for session in self.opened:
            session.opened.log.close()
            await session.provider.aclose()
        self.opened.clear()
