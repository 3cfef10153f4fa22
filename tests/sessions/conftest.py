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
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import SessionSpec
from steiner_tui.engine.events import ListSink
from steiner_tui.engine.provider import ChatRequest, ModelInfo
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.sessions.resume import (
    OpenedSession,
    SessionOpening,
    open_interactive_session,
    open_session_for_app,
)
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools
from tests.agent.fakes import Reply, ScriptedProvider

SUMMARY = "\n\n".join(f"## {i}. Section {i}\n- item {i}" for i in range(1, 9))


def answer(request: ChatRequest) -> Reply:
    """Summaries for compaction requests, a short answer otherwise."""
    if request.compaction:
        return Reply([SUMMARY])
    return Reply([f"answer {len(request.messages)}"])


@dataclass
class Harness:
    """One opened session and the fakes behind it."""

    opened: OpenedSession
    provider: ScriptedProvider
    sink: ListSink

    @property
    def driver(self) -> Any:
        return self.opened.driver

    @property
    def runner(self) -> Any:
        return self.opened.driver.runner


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
    **log_options: Any,
) -> Harness:
    """Open a new session (``resume=None``) or resume one, over a scripted provider.

    ``replies`` are replayed in order; without them ``on_request`` answers every request.
    """
    provider = ScriptedProvider(
        list(replies or []),
        stateful=stateful,
        info=ModelInfo(window, 400),
        on_request=None if replies else on_request,
    )
    main = MainModel("fake", model, provider, provider.info, prompt_cache_key="ignored")
    base = SessionSpec(project, main, compaction=CompactionSettings())
    opening: SessionOpening = open_session_for_app(project, resume, sessions_base)
    sink = ListSink()
    opened = open_interactive_session(
        base,
        opening,
        estimator=RequestEstimator(default_encoding_loader(None)),
        tools=ToolExecutor(default_tools()) if tools else None,
        sink=sink,
        clock=clock,
        log_options=log_options or None,
    )
    return Harness(opened, provider, sink)


@pytest.fixture
def open_session(project: Path, sessions_base: Path, clock: ManualClock) -> OpenSession:
    """``open_test_session`` bound to the test's project, sessions folder and clock."""
    return functools.partial(open_test_session, project, sessions_base, clock)
