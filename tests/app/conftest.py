"""App test fixtures: a copy of the sample project, a temporary CONFIG, a fixed session.

Tests are deterministic by configuration (``[ui]``: no cursor blink, no file watcher) and by
the request (a fixed clock, id and date, no session log unless asked for).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session_factory import SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.config import Config, parse_config

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


QUIET = {"ui": {"cursor_blink": False, "watch_files": False}}
"""The test configuration's ``[ui]``: no cursor blink, no file watcher."""


def quiet_config(tables: dict[str, Any] | None = None) -> Config:
    """``QUIET`` with ``tables`` over it (``keymap``, ``models``, ``skills``...)."""
    merged = {**QUIET, **(tables or {})}
    merged["ui"] = {**QUIET["ui"], **(tables or {}).get("ui", {})}
    return parse_config([("test config", merged)])


def request_for(
    project: Path,
    config_dir: Path,
    main: MainModel | None = None,
    *,
    config: dict[str, Any] | None = None,
    **options: Any,
) -> SessionRequest:
    """The deterministic test session: fixed clock, id and date; no watcher, no blink, no log."""
    settings: dict[str, Any] = {"record": False, "session_id": SESSION_ID, **options}
    return SessionRequest(
        project,
        quiet_config(config),
        config_dir=config_dir,
        model=main,
        clock=ManualClock(SESSION_DATE),
        session_date=SESSION_DATE,
        **settings,
    )


@pytest.fixture
def app_for(project: Path, config_dir: Path) -> AppFactory:
    """Build an app over the project copy (optionally with a fake model, config or options)."""

    def build(main: MainModel | None = None, **options: Any) -> SteinerApp:
        return make_app(request_for(project, config_dir, main, **options))

    return build
