"""Interactive sessions over a real SDK provider, logged into a temporary sessions folder.

Built by the one session factory, as the app's are (a session log in the sink fan-out, the real
runner, the real tools), with the provider pointed at a loopback server. ``resume`` opens a
logged session again, the way ``--resume`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import EngineEvent, ErrorEvent, ListSink
from steiner_tui.engine.messages import Message
from steiner_tui.providers.sdk_base import SdkProvider

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

    session: Session
    sink: ListSink
    provider: SdkProvider[Any, Any]

    @property
    def driver(self) -> Any:
        return self.session.driver

    @property
    def runner(self) -> Any:
        return self.session.runner

    @property
    def session_id(self) -> str:
        return self.session.session_id

    def close_log(self) -> None:
        """Close the session log (as quitting the app does)."""
        self.session.close()

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
        main = MainModel(provider.alias, model, provider, provider.model_info(model))
        sink = ListSink()
        request = SessionRequest(
            self.project,
            config_dir=self.base.parent,
            model=main,
            resume=resume,
            delegation=None,
            sink=sink,
            clock=self.clock,
        )
        session = LoggedSession(build_session(request), sink, provider)
        self.opened.append(session)
        return session

    async def close(self) -> None:
        for session in self.opened:
            session.close_log()
            await session.provider.aclose()
        self.opened.clear()
