"""SVG snapshots of the steering views at 80x24 and 160x48: ``ask`` mode's question in the
conversation, the context panel's ranking (what costs the most) and what-if view, the what-if
line sharing the soft line's row, and the pin marks in the conversation; and at 80x24 and
120x36 the confirmation before the project config is written.

The session is ``test_steering``'s: the offline model on a copy of the sample project with a
``big.md`` to read and the soft trigger at 4,000 tokens. Update with
``uv run pytest tests/app/test_steer_snapshots.py --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from steiner_tui.app.app import SteinerApp
from steiner_tui.app.transcript import ReplyEntry
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.app.widgets.whatif_view import WhatIfView
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, send
from tests.app.test_config_save import COMMENTED
from tests.app.test_steering import BEFORE, _app, _question, _turns

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_ask_question_in_the_conversation(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    async def ask(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        await _question(pilot)
        await pilot.pause()

    app = _app(app_for, project, "ask")
    assert snap_compare(app, terminal_size=size, run_before=ask)


@pytest.mark.parametrize("size", SIZES)
def test_ranking_and_what_if_in_the_context_panel(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    async def panel(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, ("read big.md", *BEFORE))
        app = pilot.app
        assert isinstance(app, SteinerApp)
        if not app.screen.query_one("#budget").region.width:  # a narrow layout: on /context
            await send(pilot, "/context")
            await finish(pilot)
        view = app.screen.query_one(WhatIfView)
        view.focus()
        await pilot.press("minus", "minus")
        await finish(pilot)
        view.scroll_visible(animate=False)
        await pilot.pause()

    app = _app(app_for, project, "auto")
    assert snap_compare(app, terminal_size=size, run_before=panel)


@pytest.mark.parametrize("size", SIZES)
def test_what_if_line_sharing_the_soft_lines_row(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    """1,600 tried and the soft 4,000 fall on one row of a 32,768 window's chart: both lines
    show on it in turn, and the legend says so (the chart scrolled into view on /context)."""

    async def chart(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, ("read big.md", *BEFORE))
        app = pilot.app
        assert isinstance(app, SteinerApp)
        if not app.screen.query_one("#budget").region.width:
            await send(pilot, "/context")
            await finish(pilot)
        app.screen.query_one(WhatIfView).focus()
        await pilot.press("minus", "minus")
        await finish(pilot)
        drawn = app.screen.query_one(RequestChart)
        assert drawn.has_class("-shared")
        drawn.scroll_visible(animate=False, top=True)
        await pilot.pause()

    app = _app(app_for, project, "auto")
    assert snap_compare(app, terminal_size=size, run_before=chart)


@pytest.mark.parametrize("size", SIZES)
def test_pin_marks_in_the_conversation(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    """A pinned message, tool result and reply each show the pin mark; the pinned user
    message has the focus (the view brought to it)."""

    async def pinned(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, ("read big.md", "hello"))
        app = pilot.app
        assert isinstance(app, SteinerApp)
        pane = app.workbench.conversation
        block = pane.query(ToolBlock).last()
        reply = next(w for w in pane.children if isinstance(pane.entry_of(w), ReplyEntry))
        for widget in (block, reply):
            widget.focus()
            await pilot.press("p")
        await send(pilot, "/pin 1")
        await finish(pilot)
        pane.query(UserMessage).first().focus()
        await pilot.pause()

    # compaction off: these turns end near the soft line, and a compaction would summarize
    # the message /pin 1 names
    app = _app(app_for, project, "off")
    assert snap_compare(app, terminal_size=size, run_before=pinned)


CONFIRM_SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 36), id="120x36")]


@pytest.mark.parametrize("size", CONFIRM_SIZES)
def test_writing_the_project_config_asks_first(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    """``/whatif 12000 save`` over the workbench: the file and the change as a diff (the sample
    project's config, commented, with the model's threshold added) before anything is written;
    the comments' markup-looking text shows as written."""

    async def confirm(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await send(pilot, "/whatif 12000 save")
        await finish(pilot)  # the footer behind settles on the what-if view's keys

    (project / ".steiner" / "config.toml").write_text(COMMENTED, encoding="utf-8")
    app = _app(app_for, project, "auto")
    assert snap_compare(app, terminal_size=size, run_before=confirm)
