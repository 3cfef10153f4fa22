"""SVG snapshots of the main screen: the dry-run preview, one offline exchange at four terminal
sizes, a long conversation read back, and the help.

The project is the fixed fixture folder (read only: the offline model's tools only read), the
session id, date and clock are fixed, watchers and cursor blink are off. Update with
``uv run pytest tests/app/test_snapshots.py --snapshot-update`` after a deliberate UI change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.transcript import NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from tests.app.conftest import FIXTURE_PROJECT, SIZE, request_for
from tests.app.helpers import finish, send

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (100, 30), (160, 48), (220, 60)]


def _app(config_dir: Path) -> Any:
    return make_app(request_for(FIXTURE_PROJECT, config_dir))


async def _settled(pilot: Pilot[None]) -> None:
    await pilot.pause()  # run_before starts before the first screen is mounted
    await finish(pilot)  # the context panel's dry run is assembled in a worker


def test_initial_preview(snap_compare: SnapCompare, config_dir: Path) -> None:
    assert snap_compare(_app(config_dir), terminal_size=SIZE, run_before=_settled)


@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def test_after_one_offline_exchange(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    async def exchange(pilot: Pilot[None]) -> None:
        await pilot.pause()  # run_before starts before the first screen is mounted
        await send(pilot, "what is in this project?")
        await finish(pilot)

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=exchange)


def test_a_long_conversation_read_back(snap_compare: SnapCompare, config_dir: Path) -> None:
    """Reading back: the earlier and later rows, a failed tool open, an interrupted reply."""

    async def read_back(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app = pilot.app
        assert isinstance(app, SteinerApp)
        pane = app.workbench.conversation
        entries = []
        for turn in range(300):
            failed = turn % 3 == 2
            entries += [
                UserEntry(f"Question {turn}: what does `module_{turn}.py` do?", ("+code-review",)),
                ToolEntry(f"c{turn}", "read", f"read path=src/module_{turn}.py",
                          "failed" if failed else "done", "Error: no such file" if failed else ""),
                ReplyEntry(f"## Module {turn}\n\n- defines `f{turn}`\n- returns **{turn}**",
                           interrupted=turn % 3 == 0),
            ]  # fmt: skip
        entries.append(
            NoticeEntry("compacted into generation 1: 52,000 → 9,000 tokens", "compaction")
        )
        await pane.load(entries)
        pane.focus()
        await pilot.pause()
        await pane.show_earlier()
        await pane.show_earlier()
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=(100, 30), run_before=read_back)


def test_help_screen(snap_compare: SnapCompare, config_dir: Path) -> None:
    async def help_screen(pilot: Pilot[None]) -> None:
        await _settled(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=SIZE, run_before=help_screen)


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_context_panel_on_demand(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    """Below 110 columns F10 shows the context panel over the conversation."""

    async def exchange_then_f10(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press("f10")
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=exchange_then_f10)


def test_new_messages_below_marker(snap_compare: SnapCompare, config_dir: Path) -> None:
    """Scrolled up, new output shows the marker at the bottom of the conversation."""

    async def scroll_up_then_output(pilot: Pilot[None]) -> None:
        await pilot.pause()
        app = pilot.app
        assert isinstance(app, SteinerApp)
        pane = app.workbench.conversation
        await pane.load([UserEntry(f"question {i}\nsecond line") for i in range(30)])
        pane.focus()
        await pilot.pause()
        await pilot.press("pageup")
        await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pane.add(ReplyEntry("an answer arrives below"))
        await pane.add(NoticeEntry("compacted into generation 1", "compaction"))
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=(100, 30), run_before=scroll_up_then_output)


async def _both_panels(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await send(pilot, "what is in this project?")
    await finish(pilot)
    app = pilot.app
    assert isinstance(app, SteinerApp)
    screen = app.workbench
    for panel in ("skills", "context"):
        if not screen.panels.shown(panel):
            screen.action_toggle_panel(panel)
    await finish(pilot)
    screen.prompt.focus()
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_workbench_with_both_panels(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    """The workbench after one exchange with both side panels shown: at 80x24 they float over
    the conversation and stop above the prompt; at 200 columns the context panel is wider."""
    assert snap_compare(_app(config_dir), terminal_size=size, run_before=_both_panels)
