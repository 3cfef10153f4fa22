"""App test fixtures: a copy of the sample project, a temporary CONFIG, a fixed session."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.session import AppSession, build_app_session

FIXTURE_PROJECT = Path(__file__).parent / "fixtures" / "sample_project"
SESSION_DATE = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SESSION_ID = "test-session"
SIZE = (120, 36)

AppFactory = Callable[..., SteinerApp]


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary CONFIG with a global AGENTS.md (and XDG_CONFIG_HOME pointing at it)."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    folder = home / "steiner"
    folder.mkdir(parents=True)
    (folder / "AGENTS.md").write_text("Global: prefer small diffs.\n", encoding="utf-8")
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A writable copy of the sample project."""
    root = tmp_path / "sample_project"
    shutil.copytree(FIXTURE_PROJECT, root)
    return root


def session_for(
    project: Path, config_dir: Path, main: MainModel | None = None, **options: Any
) -> AppSession:
    """The deterministic test session: fixed clock, id and date; no watcher, no blink, no log."""
    settings: dict[str, Any] = {
        "watch": False,
        "cursor_blink": False,
        "record": False,
        "session_id": SESSION_ID,
        **options,
    }
    return build_app_session(
        project,
        config_dir=config_dir,
        main=main,
        clock=ManualClock(SESSION_DATE),
        session_date=SESSION_DATE,
        **settings,
    )


@pytest.fixture
def app_for(project: Path, config_dir: Path) -> AppFactory:
    """Build an app over the project copy (optionally with a fake model or options)."""

    def build(main: MainModel | None = None, **options: Any) -> SteinerApp:
        return make_app(session_for(project, config_dir, main, **options))

    return build
