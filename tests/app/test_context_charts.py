"""The context panel's pictures: the request by source, tokens per request with the window's
lines and compactions, cache reuse; "over the window" in the error colour; a cut tool result."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from textual.app import App, ComposeResult
from textual.color import Color
from textual.content import Content
from textual.theme import BUILTIN_THEMES
from textual.widgets import Static

from steiner_tui.app.budget_view import BudgetView, SourceRow, WindowFigures
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.context_charts import (
    AXIS,
    CHART_ROWS,
    MIN_COLOUR_DISTANCE,
    TRIAL_COLOUR,
    RequestChart,
    SourceBar,
    chart_columns,
    colour_distance,
    source_colours,
    source_segments,
)
from steiner_tui.app.widgets.tool_block import ToolBlock, cut_summary
from steiner_tui.engine.events import OutputCut, ToolCallFinished
from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.engine.whatif import WhatIf, WhatIfResult
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, send, static_text

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
WINDOW = WindowFigures(32_768, 3_000, 4_096, 22_938, 32_441)
ROWS = (
    SourceRow("preamble", "preamble", 4_960, 1_250, 0.4),
    SourceRow("conversation", "conversation", 600, 250, 0.1),
    SourceRow("tool definitions", "tools", 5_955, 1_500, 0.5),
)


def _summary(position: int, tokens: int, **changes: object) -> RequestSummary:
    row = RequestSummary(position, position + 1, T0, "m", False, "0", tokens, 4096, 1, 10)
    return msgspec.structs.replace(row, **changes)


def _read(share: int) -> dict[str, object]:
    """The usage of a request whose provider read ``share`` tenths of its prompt from cache."""
    return {"reported": True, "prompt_tokens": 10, "cache_read_tokens": share}


def _view(**changes: object) -> BudgetView:
    view = BudgetView("request #3", False, ROWS, WINDOW, 3_000, "tiktoken", "high")
    return msgspec.structs.replace(view, **changes)  # type: ignore[arg-type]


def test_segments_are_proportional_and_fill_the_bar() -> None:
    segments = source_segments(ROWS, 30)
    assert sum(segments) == 30
    assert segments == [13, 2, 15]  # 12.5 / 2.5 / 15 cells: a tie goes to the first
    tiny = (*ROWS, SourceRow("session date", "session_date", 78, 1, 0.0))
    assert source_segments(tiny, 30)[-1] == 1  # a source that costs anything shows


def test_columns_leave_compaction_requests_out_and_mark_where_they_were() -> None:
    history = [
        _summary(0, 1_000),
        _summary(1, 5_000),
        _summary(2, 900, compaction=True),
        _summary(3, 2_000, **_read(2)),
    ]
    columns = chart_columns(history, 40)
    assert [c.tokens for c in columns] == [1_000, 5_000, 2_000]
    assert [c.compaction for c in columns] == [False, False, True]
    assert columns[0].reuse == -1 and columns[2].reuse == 0.2
    # More requests than columns: several per column, the largest drawn.
    many = [_summary(i, 100 * i) for i in range(100)]
    squeezed = chart_columns(many, 10)
    assert len(squeezed) == 10 and squeezed[-1].tokens == 9_900
    assert (squeezed[0].first, squeezed[0].last) == (1, 10)


class PanelHost(App[None]):
    CSS = "BudgetPanel { width: 46; height: 40; }"

    def compose(self) -> ComposeResult:
        yield BudgetPanel(id="budget")


def _lines(widget: RequestChart | SourceBar) -> list[str]:
    rendered = widget.render()
    assert isinstance(rendered, Content)
    return rendered.plain.splitlines()


async def test_the_chart_draws_requests_lines_compactions_and_reuse() -> None:
    history = (
        _summary(0, 4_000),
        _summary(1, 16_000, **_read(10)),
        _summary(2, 2_000, compaction=True),
        _summary(3, 30_000, **_read(5), fits=False, overflow_tokens=500),
    )
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view(history=history))
        await pilot.pause()
        lines = _lines(panel.query_one(RequestChart))
        assert lines[0] == "tokens per request · #1–#4"
        # The scale's labels take the first five columns.
        plot = [line[AXIS:] for line in lines[1 : CHART_ROWS + 1]]
        strip = lines[CHART_ROWS + 1][AXIS:]
        assert plot[0].startswith("█") or "━" in plot[0]  # the hard limit (under the window)
        assert any("┄" in line for line in plot)  # the soft threshold
        assert any("╎" in line for line in plot)  # the compaction before request #4
        assert plot[-1].startswith("███")  # every request has a column, three cells wide
        assert strip.startswith("···███╎▒▒▒")  # first: no usage; 100%; compaction; 50%
        assert "soft 22,938" in lines[-2] and "hard 32,441" in lines[-2]
        assert "compaction" in lines[-1] and "cache reuse" in lines[-1]


async def test_a_what_if_trial_draws_its_threshold_and_where_it_would_compact() -> None:
    history = tuple(_summary(i, 3_000 * (i + 1)) for i in range(4))
    trial = WhatIfResult(WhatIf(8_000), (3_000, 6_000, 9_000, 3_000), (3,), None, 21_000, 0)
    async with PanelHost().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view(history=history))
        chart = panel.query_one(RequestChart)
        chart.whatif = trial
        await pilot.pause()
        lines = _lines(chart)
        plot = lines[1 : CHART_ROWS + 1]
        assert any("┈" in line for line in plot)  # the tried threshold, its own line
        marks = lines[CHART_ROWS + 2]
        assert marks.index("▲") == AXIS + 9  # under the fourth column (three cells each)
        assert "what-if 8,000 (auto): 1 compaction" in lines[-1]
        assert chart.region.height == CHART_ROWS + 6  # room for the marks and their legend


async def test_a_trial_on_the_soft_lines_row_shares_it_and_both_show() -> None:
    """A row is an eighth of the window: 24,000 tried falls on the soft 22,938's row. Both
    lines share it cell by cell (neither hides the other) and the legend says so."""
    history = tuple(_summary(i, 3_000) for i in range(3))
    trial = WhatIfResult(WhatIf(24_000), (3_000, 3_000, 3_000), (), None, 9_000, 0)
    async with PanelHost().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view(history=history))
        chart = panel.query_one(RequestChart)
        await pilot.pause()
        alone = _lines(chart)[1 : CHART_ROWS + 1]
        soft_row = next(i for i, line in enumerate(alone) if "┄" in line)
        chart.whatif = trial
        await pilot.pause()
        lines = _lines(chart)
        shared = lines[1 + soft_row].rstrip()
        assert "┄┈┄┈" in shared and "┈┈" not in shared and "┄┄" not in shared
        assert sum("┈" in line for line in lines[1 : CHART_ROWS + 1]) == 1  # no other row
        assert lines[-1] == "┄┈ what-if on the soft line's row"
        assert chart.region.height == CHART_ROWS + 7  # the note has a line of its own
        rendered = chart.render()
        assert isinstance(rendered, Content)
        styles = {str(span.style) for span in rendered.spans}
        assert {"$warning", TRIAL_COLOUR} <= styles  # each in its own colour
        # a row of its own: no note
        chart.whatif = msgspec.structs.replace(trial, setting=WhatIf(8_000))
        await pilot.pause()
        assert "row" not in _lines(chart)[-1]
        assert chart.region.height == CHART_ROWS + 6


async def test_over_the_window_is_said_in_the_error_colour() -> None:
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view(fits=False, overflow_tokens=31_400))
        await pilot.pause()
        assert panel.has_class("-over")
        assert "over the window" in str(panel.border_title)
        over = panel.query_one("#budget-over", Static)
        assert over.display and "over the window by 31,400 tok" in static_text(over)
        panel.show(_view())
        await pilot.pause()
        assert not panel.has_class("-over") and not over.display


async def test_a_view_shown_before_the_panel_is_mounted_is_kept() -> None:
    panel = BudgetPanel(id="budget")
    panel.show(_view())  # as a worker finishing during start-up does

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield panel

    async with Host().run_test(size=(60, 44)) as pilot:
        await pilot.pause()
        assert "preamble" in static_text(panel.query_one("#budget-rows", Static))
        assert panel.query_one(SourceBar).rows == ROWS


async def test_the_panel_is_its_title_until_an_error_or_a_view_arrives() -> None:
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        await pilot.pause()
        assert not panel.children and str(panel.border_title) == "Context"
        panel.show_error("preamble.j2: no such template")
        await pilot.pause()
        assert str(panel.border_title) == "Context · error"
        rows = static_text(panel.query_one("#budget-rows", Static))
        assert rows == "preamble.j2: no such template"
        assert not panel.query_one("#budget-over").display
        assert not panel.query_one("#budget-cut").display
        panel.show(_view())
        await pilot.pause()
        assert str(panel.border_title) == "Context · request #3"
        assert "preamble" in static_text(panel.query_one("#budget-rows", Static))
        assert len(panel.query(RequestChart)) == 1  # mounted once


async def test_a_cut_tool_result_is_named_in_the_panel() -> None:
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view())
        cut = OutputCut(244_000, 12_000, 2_000, 120, "/tmp/results/c1.txt", 3_000)
        panel.show_cut("read", cut)
        await pilot.pause()
        note = static_text(panel.query_one("#budget-cut", Static))
        assert note.startswith("last cut: read kept 12,000 B of 244,000 B")
        assert "120 of 2,000 lines" in note and "whole output: /tmp/results/c1.txt" in note


async def test_after_an_exchange_the_panel_charts_the_requests(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        chart = app.workbench.budget.query_one(RequestChart)
        assert chart.view is not None and len(chart.view.history) >= 2
        assert _lines(chart)[0].startswith("tokens per request · #1–#")
        bar = app.workbench.budget.query_one(SourceBar)
        assert sum(source_segments(bar.rows, bar.size.width)) == bar.size.width


async def test_before_any_request_the_chart_says_so(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _lines(app.workbench.budget.query_one(RequestChart))[1] == "none sent yet"


def test_a_cut_of_one_line_says_line() -> None:
    # A minified file's one long line, cut at its 2,000 characters, said "(1 of 1 lines)".
    cut = OutputCut(3_388_898, 2_039, 1, 1, "min.js")
    assert cut_summary(cut) == "cut: kept 2,039 B of 3,388,898 B (1 of 1 line)"


async def test_a_cut_result_shows_in_its_tool_block_and_the_panel(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.workbench
        await screen.conversation.tool_started("c1", "read", "read path=docs_big.md")
        cut = OutputCut(244_000, 12_000, 2_000, 120, "/tmp/results/c1.txt", 3_000)
        call = ToolCall("c1", "read", {"path": "docs_big.md"})
        finished = ToolCallFinished(call, "done", "line 1\nline 2", cut=cut)
        screen.post_message(EngineUpdate(finished))
        await pilot.pause()
        block = screen.conversation.query_one(ToolBlock)
        title = static_text(block).splitlines()[0]
        assert title.endswith("· cut: kept 12,000 B of 244,000 B (120 of 2,000 lines)")
        block.action_toggle_output()
        await pilot.pause()
        assert "(the whole output: /tmp/results/c1.txt)" in static_text(block)
        note = static_text(screen.budget.query_one("#budget-cut", Static))
        assert note.startswith("last cut: read kept 12,000 B")


@pytest.mark.parametrize("theme", sorted(BUILTIN_THEMES))
async def test_each_source_has_a_colour_of_its_own_in_every_theme(theme: str) -> None:
    """Two of the stacked bar's eight segments shared a colour: the theme's accent is its
    warning colour in textual-dark, monokai's secondary is its error colour."""
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        pilot.app.theme = theme
        await pilot.pause()
        variables = pilot.app.get_css_variables()
        colours = [Color.parse(variables[c.removeprefix("$")]) for c in source_colours(pilot.app)]
    # The ANSI themes have sixteen colours, lightened and darkened alike: fewer distinct ones.
    assert len(colours) == 8 or (theme.startswith("ansi") and len(colours) >= 6)
    for i, one in enumerate(colours):
        for other in colours[i + 1 :]:
            assert colour_distance(one, other) >= MIN_COLOUR_DISTANCE, (one, other)


async def test_the_chart_labels_its_scale() -> None:
    async with PanelHost().run_test(size=(60, 44)) as pilot:
        panel = pilot.app.query_one(BudgetPanel)
        panel.show(_view(history=(_summary(0, 4_000),)))
        await pilot.pause()
        plot = _lines(panel.query_one(RequestChart))[1 : CHART_ROWS + 1]
    assert plot[0].startswith(" 33k ")  # the window
    assert plot[CHART_ROWS // 2 - 1].startswith(" 16k ")
    assert plot[-1].startswith("   0 ")
