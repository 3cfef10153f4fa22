"""After a resume, the inspector, the chart and the lineage browser show the whole session.

The requests made before the resume come from the session log: listed with the figures it
keeps and marked ``log``, their detail saying what the log does not keep, and any of them
compared with a request made since.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Static

from steiner_tui.app.app import make_app
from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.widgets.inspector_compare import RequestCompare
from steiner_tui.app.widgets.inspector_detail import NOT_IN_LOG
from steiner_tui.app.widgets.inspector_requests import RequestTable, cost_cell
from tests.app.conftest import SIZE, request_for
from tests.app.helpers import finish, send, static_text

TURNS = ("what is in this project?", "show me README.md", "and AGENTS.md?")


async def _saved_session(project: Path, config_dir: Path) -> tuple[list[int], list[int]]:
    """A recorded session of three turns and a ``/compact``: its request numbers, and the
    estimated tokens of each."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in TURNS:
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact keep the file names")
        await finish(pilot)
        rows = app.session.snapshots.summaries()
    return [r.index for r in rows], [r.estimated_prompt_tokens for r in rows]


def _cells(table: DataTable[object], row: int) -> list[str]:
    return [str(value) for value in table.get_row_at(row)]


async def test_the_inspector_lists_the_requests_made_before_the_resume(
    project: Path, config_dir: Path
) -> None:
    indexes, tokens = await _saved_session(project, config_dir)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await finish(pilot)
        await pilot.press("f2")
        screen = resumed.screen
        assert isinstance(screen, InspectorScreen)
        # Before anything is sent, the saved requests are listed (not the dry run).
        assert f"{len(indexes)} requests" in screen.sub_title
        assert f"{len(indexes)} from the session log · log: no blocks" in screen.sub_title
        table = screen.query_one(RequestTable)
        assert table.row_count == len(indexes)
        listed = [_cells(table, row) for row in range(table.row_count)]
        assert [int(row[1]) for row in listed] == indexes
        assert [int(row[5].replace(",", "")) for row in listed] == tokens
        assert all(row[4].endswith("· log") for row in listed)
        summary = static_text(screen.query_one("#request-summary", Static))
        assert summary.startswith(f"Request #{indexes[-1]} · ")
        assert "from the session log" in summary and "not recorded: context blocks" in summary
        messages = screen.query_one("#messages", DataTable)
        shown = [_cells(messages, row)[5] for row in range(messages.row_count)]
        assert NOT_IN_LOG in shown  # the block messages
        assert any(line not in (NOT_IN_LOG, "") for line in shown)  # the conversation's
        blocks = screen.query_one("#blocks", DataTable)
        assert str(blocks.border_subtitle).startswith("not recorded")
        await pilot.press("escape")

        # The context panel's chart has the saved requests too.
        history = resumed.workbench.hold.controller.budget_view().history
        assert [r.index for r in history] == indexes

        await send(pilot, "one more question")
        await finish(pilot)
        # The panel measures the new request's cache prefix against the log's last main one.
        view = resumed.workbench.hold.controller.budget_view()
        logged = [r for r in resumed.session.requests.summaries() if r.logged]
        last_main = next(r for r in reversed(logged) if not r.compaction)
        assert view.heading == f"request #{indexes[-1] + 1}"
        assert view.prefix is not None and view.prefix_total == last_main.message_count
        await pilot.press("f2")
        screen = resumed.screen
        assert isinstance(screen, InspectorScreen)
        table = screen.query_one(RequestTable)
        assert table.row_count == len(indexes) + 1
        newest = _cells(table, table.row_count - 1)
        assert not newest[4].endswith("log") and int(newest[1]) > indexes[-1]
        # Compare the first saved request with the new one.
        table.move_cursor(row=0, animate=False)
        await pilot.pause()
        await pilot.press("m")
        table.move_cursor(row=table.row_count - 1, animate=False)
        await pilot.pause()
        assert screen.comparing
        heading = static_text(screen.query_one("#compare-heading", Static))
        assert heading.startswith(f"Request #{indexes[0]} → #")
        compare = screen.query_one(RequestCompare).query_one("#compare-table", DataTable)
        assert compare.row_count > 0


async def test_the_lineage_browser_after_a_resume_has_every_generation(
    project: Path, config_dir: Path
) -> None:
    await _saved_session(project, config_dir)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await finish(pilot)
        await pilot.press("ctrl+l")
        assert isinstance(resumed.screen, LineageScreen)
        assert len(resumed.screen.lineage.generations) == 2


async def test_a_resumed_request_with_usage_keeps_its_cost(project: Path, config_dir: Path) -> None:
    """The log keeps each request's usage, but a resumed row had no cost: a blank Cost cell
    (what a request still waiting for its usage shows) beside 'unknown' for a cancelled one."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in TURNS:
            await send(pilot, text)
            await finish(pilot)
        live = [cost_cell(row) for row in app.session.snapshots.summaries()]
    assert all(live)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await pilot.press("f2")
        table = resumed.screen.query_one(RequestTable)
        [cost] = [key for key, column in table.columns.items() if str(column.label) == "Cost"]
        assert [
            str(table.get_cell_at(table.get_cell_coordinate(r.key, cost)))
            for r in table.ordered_rows
        ] == live


async def test_the_first_request_after_a_resume_does_not_claim_to_have_no_earlier_one(
    project: Path, config_dir: Path
) -> None:
    """The requests before the resume are listed right above it: its cache cause says the
    log cannot be compared with, not that there was no earlier request."""
    await _saved_session(project, config_dir)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "and NOTES.md?")
        await finish(pilot)
        await pilot.press("f2", "up")  # the reply's request, then the one the message made
        await finish(pilot)
        detail = static_text(resumed.screen.query_one("#request-summary", Static))
    assert "Request #9 " in detail and "no earlier one" not in detail
    assert "cache: first request since the resume: the log keeps no blocks or tools" in detail
