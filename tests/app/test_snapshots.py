"""SVG snapshots of the main screen at 120x36: dry-run preview, one offline exchange, help.

The project is the fixed fixture folder (read only: the offline model's tools only read), the
session id, date and clock are fixed, watchers and cursor blink are off. Update with
``uv run pytest tests/app/test_snapshots.py --snapshot-update`` after a deliberate UI change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from steiner_tui.app.app import make_app
from tests.app.conftest import FIXTURE_PROJECT, SIZE, request_for
from tests.app.helpers import finish, send

SnapCompare = Callable[..., bool]


def _app(config_dir: Path) -> Any:
    return make_app(request_for(FIXTURE_PROJECT, config_dir))


async def _settled(pilot: Pilot[None]) -> None:
    await pilot.pause()  # run_before starts before the first screen is mounted
    await finish(pilot)  # the context panel's dry run is assembled in a worker


def test_initial_preview(snap_compare: SnapCompare, config_dir: Path) -> None:
    assert snap_compare(_app(config_dir), terminal_size=SIZE, run_before=_settled)


def test_after_one_offline_exchange(snap_compare: SnapCompare, config_dir: Path) -> None:
    async def exchange(pilot: Pilot[None]) -> None:
        await pilot.pause()  # run_before starts before the first screen is mounted
        await send(pilot, "what is in this project?")
        await finish(pilot)

    assert snap_compare(_app(config_dir), terminal_size=SIZE, run_before=exchange)


def test_help_screen(snap_compare: SnapCompare, config_dir: Path) -> None:
    async def help_screen(pilot: Pilot[None]) -> None:
        await _settled(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=SIZE, run_before=help_screen)
