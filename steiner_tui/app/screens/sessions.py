"""The sessions browser: every saved session, resume one with Enter, delete one with ``d``.

``/`` filters the list: only sessions whose id, project, model and title hold every word typed
(in any case) stay; Enter there resumes the highlighted one, Esc clears the filter (a second
Esc goes back).

The table shows id, project, last activity, model, generations, messages, size and title
(``SessionInfo.cells``, as ``sessions list`` prints them), most recently active first; on a
narrow screen size, generations, messages, model and then project give way so the title (how a
session is recognised) shows. Enter dismisses the screen with the chosen id (the app
resumes it: replacing the conversation is the app's job and goes through the driver's
replacement guard). ``d`` asks for confirmation, then deletes the session's whole folder; the
open session cannot be deleted.
``c`` lists the read-only sessions: captures and imported transcripts.
Listing and deleting run off the UI thread.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Header, Input, Static

from steiner_tui.app.screens.captures import CapturesScreen
from steiner_tui.app.widgets.inspector_format import HEADER_ICON, fit_columns
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.resources import styles_dir
from steiner_tui.sessions.store import (
    LIST_COLUMNS,
    LIST_GIVE_WAY,
    LIST_RIGHT,
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
)
from steiner_tui.units import counted

__all__ = ["ConfirmDeleteScreen", "SessionsScreen"]

EMPTY_NOTICE = "No saved sessions yet: every conversation is saved as you work."
FILTER_HINT = "Filter: words of the title, id, project or model (Enter resumes, Esc clears)"
MAX_WIDTHS = {"project": 40, "title": 60}
"""Columns wider than this are cut (with …); every other column is as wide as its widest cell."""
TITLE_ROOM = 30
"""The title's cells (at most) that the other columns make room for."""
_FRAME = 4
"""Cells of the screen's width the table's border and scroll bar take."""


def matches(row: SessionInfo, words: list[str]) -> bool:
    """Whether every one of ``words`` (casefolded) is in the row's id, project, model or
    title."""
    meta = row.meta
    text = " ".join((row.session_id, meta.project_root, meta.alias, meta.model, row.label))
    folded = text.casefold()
    return all(word in folded for word in words)


def _fitting(widths: dict[str, int], room: int) -> tuple[list[str], int]:
    """The columns to show in ``room`` cells, and the title's width."""
    return fit_columns(widths, room, LIST_GIVE_WAY, "title", TITLE_ROOM)


class ConfirmDeleteScreen(ModalScreen[bool]):
    """Asks before a session is deleted; dismisses with True to delete."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Delete", id="sessions.confirm", tooltip="Delete it"),
        Binding("n,escape", "answer(False)", "Keep", id="sessions.keep", tooltip="Keep it"),
    ]
    """y deletes; n or Escape keeps the session."""

    def __init__(self, session_id: str, title: str) -> None:
        super().__init__()
        self.session_id = session_id
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "Delete session"
            about = f" ({self.title_text})" if self.title_text else ""
            yield Static(
                f"Delete session {self.session_id}{about}? Its log and history archive are "
                "removed for good.",
                markup=False,
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Keep", id="keep")
                yield Button("Delete", id="delete", variant="error")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "delete")

    def action_answer(self, delete: bool) -> None:
        self.dismiss(delete)


class SessionsScreen(Screen[str | None]):
    """Browse saved sessions; dismisses with the id to resume, or None."""

    CSS_PATH = styles_dir() / "sessions.tcss"
    TITLE = "Sessions"
    AUTO_FOCUS = "#sessions"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="sessions.close", tooltip="Back to the session"),
        Binding("enter", "resume", "Resume", id="sessions.resume", tooltip="Resume this session"),
        Binding("d", "delete", "Delete", id="sessions.delete", tooltip="Delete this session"),
        Binding(
            "slash",
            "filter",
            "Filter",
            id="sessions.filter",
            tooltip="Filter the list by words of a session's title, id, project or model",
            # Run as Textual reads the key, so the focus is in the filter before the next one
            # (``typing_route``): "/auth" typed in one go is a filter, not text for the prompt.
            priority=True,
        ),
        Binding(
            "c",
            "captures",
            "Captures",
            id="sessions.captures",
            tooltip="Captures and imported transcripts, read-only",
        ),
    ]
    """Escape closes (first clearing a filter); Enter resumes; d deletes after confirmation;
    / filters; c lists captures and imports."""

    empty: reactive[bool] = reactive(False, toggle_class="-empty")
    """True when there is no session to list."""

    def __init__(
        self,
        store: SessionStore,
        current: str | None = None,
        prices: PriceOverrides = NO_OVERRIDES,
    ) -> None:
        super().__init__()
        self.store = store
        self.current = current
        self.prices = prices
        """The config's prices by model id, for the captures and imports opened from here."""
        self.listed: list[SessionInfo] = []
        """Every session the store listed."""
        self.rows: list[SessionInfo] = []
        """The sessions shown: those the filter keeps."""
        self.widths: dict[str, int] = dict.fromkeys(LIST_COLUMNS, 0)
        """Each column's width for the rows listed (before narrow screens drop some)."""
        self.fitted: tuple[list[str], int] = ([], 0)
        """The columns shown and the title's width."""

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield Input(placeholder=FILTER_HINT, id="sessions-filter")
        yield RowTable(id="sessions")
        yield Static(EMPTY_NOTICE, id="sessions-empty")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    @work(exclusive=True, group="sessions-list")
    async def reload(self) -> None:
        """List the sessions again (off the UI thread)."""
        self.show_rows(await asyncio.to_thread(self.store.list))

    @property
    def _filter(self) -> Input:
        return self.query_one("#sessions-filter", Input)

    def _filtered(self) -> list[SessionInfo]:
        words = self._filter.value.casefold().split()
        return [row for row in self.listed if matches(row, words)] if words else self.listed

    def show_rows(self, rows: list[SessionInfo]) -> None:
        """List ``rows`` (those the filter keeps)."""
        self.listed = rows
        self._show(self._filtered())

    def _show(self, rows: list[SessionInfo]) -> None:
        """Show ``rows``: cells are text (never markup), columns as wide as their content."""
        self.rows = rows
        table = self.query_one("#sessions", DataTable)
        labels = []
        for row in rows:
            label = row.cells()
            if row.session_id == self.current:
                label = (f"{label[0]} (open)", *label[1:])
            labels.append(label)
        self.widths = widths = {}
        for index, column in enumerate(LIST_COLUMNS):
            widest = max((cell_len(label[index]) for label in labels), default=0)
            widths[column] = min(
                max(widest, len(column)), MAX_WIDTHS.get(column, widest + len(column))
            )
        shown, title = self.fitted = _fitting(widths, self.size.width - _FRAME)
        cursor = table.cursor_row
        table.clear(columns=True)
        for column in shown:
            table.add_column(
                column, key=column, width=title if column == "title" else widths[column]
            )
        for row, label in zip(rows, labels, strict=True):
            cells = [
                Text(value, no_wrap=True, overflow="ellipsis", end="",
                     justify="right" if column in LIST_RIGHT else "left")
                for column, value in zip(LIST_COLUMNS, label, strict=True)
                if column in shown
            ]  # fmt: skip
            table.add_row(*cells, key=row.session_id)
        table.move_cursor(row=cursor)
        self.empty = not rows
        listed = counted(len(self.listed), "session")
        self.sub_title = listed if len(rows) == len(self.listed) else f"{len(rows)} of {listed}"
        query = self._filter.value.strip()
        notice = f"No session matches {query!r}." if self.listed and query else EMPTY_NOTICE
        self.query_one("#sessions-empty", Static).update(Text(notice))  # typed: never markup

    def on_resize(self) -> None:
        if self.rows and _fitting(self.widths, self.size.width - _FRAME) != self.fitted:
            self._show(self.rows)

    def _highlighted(self) -> SessionInfo | None:
        table = self.query_one("#sessions", DataTable)
        index = table.cursor_row
        return self.rows[index] if 0 <= index < len(self.rows) else None

    @on(DataTable.RowSelected, "#sessions")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_resume()

    def action_resume(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        if row.problem:
            self.notify(f"Cannot resume {row.session_id}: {row.problem}", severity="error")
            return
        self.dismiss(row.session_id)

    def action_delete(self) -> None:
        row = self._highlighted()
        if row is None:
            return
        if row.session_id == self.current:
            self.notify("The open session cannot be deleted.", severity="warning")
            return

        def answered(delete: bool | None) -> None:
            if delete:
                self._delete(row.session_id)

        self.app.push_screen(ConfirmDeleteScreen(row.session_id, row.meta.title), answered)

    @work(exclusive=True, group="sessions-delete")
    async def _delete(self, session_id: str) -> None:
        try:
            await asyncio.to_thread(self.store.delete, session_id)
        except (OSError, SessionNotFoundError, ValueError) as error:
            self.notify(f"Cannot delete {session_id}: {error}", severity="error")
        else:
            self.notify(f"Deleted session {session_id}.")
        self.reload()

    def action_captures(self) -> None:
        """Open the list of captures and imports (read-only sessions)."""
        self.app.push_screen(CapturesScreen(self.store.base, self.prices))

    def action_filter(self) -> None:
        """Show the filter and type into it; in the filter, ``/`` is text (skipped here, the
        binding's priority hands it on to the field)."""
        field = self._filter
        # ``focused``, not the field's ``has_focus``: that one is set once the field has had
        # its Focus event, and a burst ("/what/is") brings the second "/" before it.
        if self.focused is field:
            raise SkipAction
        self.add_class("-filtering")
        self.set_focus(field)

    @on(Input.Changed, "#sessions-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._show(self._filtered())
        self.query_one("#sessions", DataTable).move_cursor(row=0)

    @on(Input.Submitted, "#sessions-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_resume()

    def action_close(self) -> None:
        if self.has_class("-filtering"):  # the filter goes first, then the screen
            self.remove_class("-filtering")
            self._filter.clear()
            self.query_one("#sessions", DataTable).focus()
            return
        self.dismiss(None)
