"""The sessions browser: list, resume with Enter, delete with d after confirmation."""

from __future__ import annotations

import argparse
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.actions import SkipAction
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from steiner_tui.agent.clock import ManualClock
from steiner_tui.app.screens.sessions import ConfirmDeleteScreen, SessionsScreen
from steiner_tui.commands.sessions import execute
from steiner_tui.sessions.meta import read_meta, write_meta
from steiner_tui.sessions.store import SessionStore
from steiner_tui.sessions.titles import TITLE_LENGTH, paste_line
from tests.sessions.conftest import OpenSession


class _Host(App[None]):
    def __init__(self, store: SessionStore, current: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.current = current
        self.results: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(self.store, self.current), self.results.append)


async def _sessions(open_session: OpenSession, clock: ManualClock) -> list[str]:
    ids = []
    for text in ("alpha question", "beta question"):
        harness = open_session()
        await harness.driver.submit(text)
        harness.log.close()
        ids.append(harness.session_id)
        clock.advance(timedelta(minutes=3))
    return ids


@asynccontextmanager
async def _browsing(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> AsyncIterator[tuple[list[str], _Host, Pilot[None], SessionsScreen, DataTable[Any]]]:
    """Two sessions saved, then listed on the sessions screen: their ids (oldest first), the
    app, its pilot, the screen and its table."""
    ids = await _sessions(open_session, clock)
    app = _Host(SessionStore(sessions_base))
    async with app.run_test() as pilot:
        screen, table = await _listed(app, pilot)
        yield ids, app, pilot, screen, table


async def _listed(app: _Host, pilot: Pilot[None]) -> tuple[SessionsScreen, DataTable[Any]]:
    """The sessions screen once it has listed the sessions, and its table."""
    await app.workers.wait_for_complete()
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionsScreen)
    return screen, screen.query_one("#sessions", DataTable)


async def test_enter_resumes_the_highlighted_session(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    async with _browsing(open_session, clock, sessions_base) as (ids, app, pilot, _, table):
        assert table.row_count == 2
        assert str(table.get_row_at(0)[0]) == ids[1]
        assert str(table.get_row_at(0)[-1]) == "beta question"
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.results == [ids[0]]


async def test_slash_filters_by_the_words_typed_and_enter_resumes_the_match(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    async with _browsing(open_session, clock, sessions_base) as (ids, app, pilot, screen, table):
        await pilot.press("slash", *"QUESTION alp")  # every word, in any case
        await pilot.pause()
        assert table.row_count == 1 and str(table.get_row_at(0)[0]) == ids[0]
        assert screen.sub_title == "1 of 2 sessions"
        await pilot.press("x")  # "alpx" matches none: said so, with what was typed as text
        await pilot.pause()
        assert screen.empty and table.row_count == 0
        notice = screen.query_one("#sessions-empty", Static)
        assert str(notice.render()) == "No session matches 'QUESTION alpx'."
        await pilot.press("backspace", "enter")
        await pilot.pause()
    assert app.results == [ids[0]]


async def test_a_slash_right_behind_the_one_that_opened_the_filter_is_typed_there(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    """Typed in one burst in a terminal ("/what/is"), the second "/" came before the filter
    had its Focus event: the action took it for a second opening and it was lost."""
    async with _browsing(open_session, clock, sessions_base) as (_, _, _, screen, _):
        screen.action_filter()  # the first "/": the focus moves, its Focus event not yet run
        with pytest.raises(SkipAction):  # the second: handed on, to be typed in the filter
            screen.action_filter()


async def test_esc_clears_the_filter_before_it_goes_back(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    async with _browsing(open_session, clock, sessions_base) as (ids, app, pilot, screen, table):
        await pilot.press("slash", *"[bold]beta")  # markup typed is text
        await pilot.pause()
        assert table.row_count == 0
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and table.has_focus
        assert [str(table.get_row_at(i)[0]) for i in range(2)] == ids[::-1]
        assert screen.sub_title == "2 sessions"
        await pilot.press("d")  # the table's keys act again, not the filter's typing
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDeleteScreen)
        await pilot.press("n", "escape")
        await pilot.pause()
    assert app.results == [None]


async def test_d_deletes_after_confirmation(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _sessions(open_session, clock)
    store = SessionStore(sessions_base)
    app = _Host(store, current=ids[1])
    async with app.run_test() as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("d")  # the open session (first row) is refused
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmDeleteScreen)
        await pilot.press("down", "d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDeleteScreen)
        await pilot.press("n")
        await pilot.pause()
        assert store.exists(ids[0])
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not store.exists(ids[0])
        table = app.screen.query_one("#sessions", DataTable)
        assert table.row_count == 1
        assert str(table.get_row_at(0)[0]) == f"{ids[1]} (open)"


async def test_empty_store_says_so(sessions_base: Path) -> None:
    app = _Host(SessionStore(sessions_base))
    async with app.run_test() as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert screen.empty and screen.has_class("-empty")
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


async def test_columns_are_as_wide_as_their_content_and_cells_are_text(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    title = "[/] [bold]not markup[link=x] " + "long " * 6
    harness = open_session()
    await harness.driver.submit(title)
    harness.log.close()
    (sessions_base / "broken").mkdir()  # no log: listed with a [problem] marker
    app = _Host(SessionStore(sessions_base))
    async with app.run_test(size=(200, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#sessions", DataTable)
        assert table.row_count == 2
        cells = {str(table.get_row_at(i)[0]): table.get_row_at(i) for i in range(2)}
        assert str(cells[harness.session_id][-1]).startswith("[/] [bold]not markup")
        assert str(cells["broken"][-1]).startswith("[")  # the marker, not eaten as markup
        widths = {str(c.key.value): c.width for c in table.columns.values()}
        assert widths["id"] == max(len(k) for k in cells)
        assert widths["title"] == min(60, len(title.strip()))
        assert widths["last activity"] == len("2026-01-01 12:00")


async def test_a_big_paste_is_titled_by_the_users_words_or_as_pasted_text(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    """The list and the picker title a session from what the user typed, not from the line
    naming a paste's files; a message that is only a paste reads ``pasted text, <size>``, and so
    does a title stored (cut) from that line before."""
    line = paste_line("31,457,237 B", "2 parts, .steiner/pastes/paste-1.txt, …-2.txt", True)
    ids = []
    for text in (line, f"{line}\nsummarize this log, please", f"see: {line}"):
        harness = open_session()
        await harness.driver.submit(text)
        harness.log.close()
        ids.append(harness.session_id)
        clock.advance(timedelta(minutes=3))
    store = SessionStore(sessions_base)
    old = store.session_dir(ids[0])
    meta = read_meta(old)
    assert meta is not None
    write_meta(old, msgspec.structs.replace(meta, title=line[:TITLE_LENGTH]))
    titles = ["see:", "summarize this log, please", "pasted text, 31,457,237 B"]
    app = _Host(store)
    async with app.run_test(size=(160, 20)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#sessions", DataTable)
        assert [str(table.get_row_at(n)[-1]) for n in range(3)] == titles
    out = io.StringIO()
    assert execute(argparse.Namespace(sessions_command="list"), sessions_base, out, out) == 0
    shown = out.getvalue()
    assert all(title in shown for title in titles) and "(pasted" not in shown, shown


async def test_at_80_columns_the_title_shows_and_minor_columns_give_way(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    """The title is how a session is recognised: at 80 columns size, generations and model
    make room for it, at 200 every column is back."""
    ids = await _sessions(open_session, clock)
    app = _Host(SessionStore(sessions_base), current=ids[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#sessions", DataTable)
        columns = list(table.columns.values())
        assert str(columns[-1].key.value) == "title"
        before = sum(c.get_render_width(table) for c in columns[:-1])
        assert before + len("beta question") + 2 <= table.scrollable_content_region.width
        assert str(table.get_row_at(0)[-1]) == "beta question"
        await pilot.resize_terminal(200, 30)
        await pilot.pause()
        assert [str(c.key.value) for c in table.columns.values()] == [
            "id", "project", "last activity", "model", "gen", "msgs", "size", "title"
        ]  # fmt: skip
        assert str(table.get_row_at(0)[5]) == "2"  # the question and its reply


async def test_a_long_title_is_cut_with_an_ellipsis_inside_the_screen(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    """At 120 columns a 60-cell title ran past the table's edge, cut without a mark."""
    harness = open_session()
    await harness.driver.submit("what files are in this project? " * 3)
    harness.log.close()
    app = _Host(SessionStore(sessions_base))
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one("#sessions", DataTable)
        for size in ((120, 24), (100, 24), (160, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            columns = list(table.columns.values())
            assert str(columns[-1].key.value) == "title"
            total = sum(c.get_render_width(table) for c in columns)
            assert total <= table.scrollable_content_region.width, size
            assert table.render_line(1).text.rstrip(" │").endswith("…"), size
