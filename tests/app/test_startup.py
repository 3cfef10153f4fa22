"""Start-up: the garbage-collector settings arrive after the first frame, only when asked for."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from steiner_tui.app.app import make_app
from steiner_tui.app.gc_tuning import UI_GC_THRESHOLDS
from tests.app.conftest import SIZE, session_for


@pytest.fixture
def gc_defaults() -> Iterator[tuple[int, ...]]:
    """CPython's collector state before the test, restored after it."""
    before = gc.get_threshold()
    yield before
    gc.unfreeze()
    gc.set_threshold(*before)
    gc.enable()


async def test_cli_app_tunes_gc_after_its_first_frame(
    project: Path, config_dir: Path, gc_defaults: tuple[int, ...]
) -> None:
    gc.disable()  # as the app command does for its start-up
    app = make_app(session_for(project, config_dir), tune_gc=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == UI_GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        assert gc.isenabled()


async def test_test_apps_keep_cpython_defaults(
    project: Path, config_dir: Path, gc_defaults: tuple[int, ...]
) -> None:
    app = make_app(session_for(project, config_dir))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == gc_defaults
