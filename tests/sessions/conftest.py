"""Interactive sessions over scripted providers, logged into a temporary sessions folder."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import ListSink
from steiner_tui.engine.provider import ChatRequest, ModelInfo
from steiner_tui.sessions.loader import LoadedSession, LogProblem
from steiner_tui.sessions.resume import find_session
from steiner_tui.sessions.writer import SessionLog
from steiner_tui.tools.base import PermissionCallback, reject_all
from tests.agent.fakes import Reply, ScriptedProvider

SUMMARY = "\n\n".join(f"## {i}. Section {i}\n- item {i}" for i in range(1, 9))


def answer(request: ChatRequest) -> Reply:
    """Summaries for compaction requests, a short answer otherwise."""
    if request.compaction:
        return Reply([SUMMARY])
    return Reply([f"answer {len(request.messages)}"])


@dataclass
class Harness:
    """One session built by the session factory, and the fakes behind it."""

    session: Session
    provider: ScriptedProvider
    sink: ListSink
    loaded: LoadedSession | None = None
    """The saved session it resumed (None: a new one)."""

    @property
    def driver(self) -> Any:
        return self.session.driver

    @property
    def runner(self) -> Any:
        return self.session.runner

    @property
    def log(self) -> SessionLog:
        assert self.session.log is not None
        return self.session.log

    @property
    def session_id(self) -> str:
        return self.session.session_id

    @property
    def session_dir(self) -> Path:
        return self.log.session_dir

    @property
    def problems(self) -> tuple[LogProblem, ...]:
        """The problems the resumed log had (none for a new session)."""
        return self.loaded.problems if self.loaded is not None else ()


OpenSession = Callable[..., Harness]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project.\n", encoding="utf-8")
    return root


@pytest.fixture
def sessions_base(tmp_path: Path) -> Path:
    return tmp_path / "config" / "sessions"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 9, 13, 9, 0, tzinfo=UTC))


def open_test_session(
    project: Path,
    sessions_base: Path,
    clock: ManualClock,
    replies: list[Reply] | None = None,
    *,
    resume: str | None = None,
    model: str = "fake-model",
    window: int = 32768,
    stateful: bool = False,
    on_request: Callable[[ChatRequest], Reply | None] | None = answer,
    tools: bool = True,
    permission: PermissionCallback = reject_all,
    **log_options: Any,
) -> Harness:
    """Open a new session (``resume=None``) or resume one, over a scripted provider.

    ``replies`` are replayed in order; without them ``on_request`` answers every request.
    ``log_options`` set the log's ``partial_bytes``, ``partial_interval`` and ``monotonic``
    (its ``PartialReply``'s schedule) or another of its attributes (``write``).
    """
    provider = ScriptedProvider(
        list(replies or []),
        stateful=stateful,
        info=ModelInfo(window, 400),
        on_request=None if replies else on_request,
    )
    main = MainModel("fake", model, provider, provider.info)
    sink = ListSink()
    loaded = find_session(project, resume, sessions_base) if resume is not None else None
    request = SessionRequest(
        project,
        config_dir=sessions_base.parent,
        model=main,
        resume=loaded,
        delegation=None,
        tools=None if tools else (),
        sink=sink,
        clock=clock,
        permission=permission,
    )
    session = build_session(request)
    assert session.log is not None
    for name, value in log_options.items():
        if name in _PARTIAL_OPTIONS:  # the streamed reply's schedule
            setattr(session.log.partial, _PARTIAL_OPTIONS[name], value)
        else:
            setattr(session.log, name, value)
    return Harness(session, provider, sink, loaded)


_PARTIAL_OPTIONS = {
    "partial_bytes": "every_bytes",
    "partial_interval": "every_seconds",
    "monotonic": "clock",
}
"""The log's constructor options for its streamed reply, as ``PartialReply`` names them."""


@pytest.fixture
def open_session(project: Path, sessions_base: Path, clock: ManualClock) -> OpenSession:
    """``open_test_session`` bound to the test's project, sessions folder and clock."""
    return functools.partial(open_test_session, project, sessions_base, clock)
