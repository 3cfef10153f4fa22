"""App test fixtures: a copy of the sample project, a temporary CONFIG, a fixed session.

Tests are deterministic by configuration (``[ui]``: no cursor blink, no file watcher) and by
the request (a fixed clock, id and date, no session log unless asked for).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.config import Config, parse_config

FIXTURE_PROJECT = Path(__file__).parent / "fixtures" / "sample_project"
SESSION_DATE = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SESSION_ID = "test-session"
SIZE = (120, 36)

AppFactory = Callable[..., SteinerApp]


STABLE_BASE_PREFIX = "/tmp/steiner-snapshot-"
"""Where ``stable_tmp`` makes its folder: with ``mkdtemp``'s eight letters, 30 characters."""


@pytest.fixture
def stable_tmp(tmp_path: Path) -> Iterator[Path]:
    """A temporary folder whose path has the same length in every run and for every user.

    The project's and the configuration's paths are in the prompt, and the offline model counts
    tokens from characters, so the figures a snapshot shows depend on the paths' length. Under
    ``tmp_path`` that length changes with pytest's run counter and the user's name
    (``/tmp/pytest-of-root/pytest-7`` against ``/tmp/pytest-of-ci/pytest-1234``); here it is a
    30-character folder (the length of the base the snapshots were recorded under), then the
    test's own folder name.
    """
    base = Path(tempfile.mkdtemp(prefix=Path(STABLE_BASE_PREFIX).name, dir="/tmp"))
    folder = base / tmp_path.name
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def config_dir(stable_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary CONFIG with a global AGENTS.md (and XDG_CONFIG_HOME pointing at it)."""
    home = stable_tmp / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    folder = home / "steiner"
    folder.mkdir(parents=True)
    (folder / "AGENTS.md").write_text("Global: prefer small diffs.\n", encoding="utf-8")
    return folder


@pytest.fixture
def project(stable_tmp: Path) -> Path:
    """A writable copy of the sample project (its path of one length in every run)."""
    root = stable_tmp / "sample_project"
    shutil.copytree(FIXTURE_PROJECT, root)
    return root


QUIET = {"ui": {"cursor_blink": False, "watch_files": False, "typing_burst_ms": 0}}
"""The test configuration's ``[ui]``: no cursor blink, no file watcher, and a bound key acts
when pressed (the typing router's burst window is tested on its own, with a window)."""


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
