"""Build runners over scripted providers with a fixed clock and an isolated project."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import ListSink
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.tokens import RequestEstimator
from tests.agent.fakes import Reply, ScriptedProvider

RunnerFactory = Callable[..., tuple[Runner, ScriptedProvider, ListSink]]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project.\n", encoding="utf-8")
    (root / "app.py").write_text("print('hi')\n", encoding="utf-8")
    return root


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 9, 13, 9, 0, tzinfo=UTC))


@pytest.fixture
def make_runner(project: Path, clock: ManualClock) -> RunnerFactory:
    def factory(
        replies: list[Reply],
        *,
        info: ModelInfo | None = None,
        tools: bool = True,
        stateful: bool = False,
        threshold: int | None = None,
        estimator: RequestEstimator | None = None,
        model: str = "fake-model",
    ) -> tuple[Runner, ScriptedProvider, ListSink]:
        provider = ScriptedProvider(list(replies), stateful=stateful)
        if info is not None:
            provider.info = info
        main = MainModel(
            "fake",
            model,
            provider,
            provider.info,
            threshold_tokens=threshold,
            prompt_cache_key="key-1",
        )
        sink = ListSink()
        request = SessionRequest(
            project,
            model=main,
            session_id="s1",
            record=False,
            delegation=None,
            tools=None if tools else (),
            sink=sink,
            clock=clock,
            estimator=estimator,
        )
        return build_session(request).runner, provider, sink

    return factory
