"""Captures and imported sessions, opened read-only from the sessions screen.

Lists every capture (``steiner-tui capture``) and every imported transcript (``steiner-tui
import``) in the sessions folder, newest first; Enter opens a capture in the workbench (its
conversation and context panel, F2 to the request inspector, following it while it grows) or an
import as its tokens-per-request chart. Nothing here can be resumed or changed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from steiner_tui.app.screens.capture_workbench import CaptureWorkbench
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.widgets.inspector_format import HEADER_ICON, clock
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.capture.store import list_captures
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.importers.store import list_imports, load_import
from steiner_tui.units import counted, local_minute

__all__ = ["CapturesScreen", "list_readonly"]

EMPTY = "No captures or imports yet: run `steiner-tui capture` or `steiner-tui import`."

_HEADS = ("kind", "id", "when", "what")
_FRAME = 2 + 2 * len(_HEADS)
"""The table's scrollbar and its columns' padding."""
WHAT_ROOM = 20
"""The cells of "what" that a long id (an import's 36) gives way for, down to ``ID_ROOM``."""
ID_ROOM = 12
"""The id's cells at the least: the whole of the app's own ids."""

Row = tuple[str, str, str, str]
"""Kind (``capture`` or ``import``), id, when, what."""


def list_readonly(base: Path) -> list[Row]:
    """Every capture, then every import, newest first within each."""
    rows: list[Row] = [
        (
            "capture",
            c.capture_id,
            local_minute(c.created),
            f"{counted(c.requests, 'request')} · {c.upstream or 'the real APIs'}"
            + (f" · {len(c.problems)} unreadable" if c.problems else ""),
        )
        for c in list_captures(base)
    ]
    for session_id in list_imports(base):
        try:
            data = load_import(base, session_id)
        except (OSError, ValueError):
            continue
        requests = data.get("requests") or []
        when = clock(str(requests[0]["time"]), date=True)[:16] if requests else "-"
        rows.append(
            (
                "import",
                session_id,
                when,
                f"{data.get('source', '')} · {counted(len(requests), 'request')} · "
                f"{counted(len(data.get('generations') or []), 'compaction')}",
            )
        )
    return rows


def column_widths(rows: list[Row], room: int) -> list[int]:
    """Each column's width in ``room`` cells: kind and when as wide as their cells, "what"
    what the others leave; the id as wide as its cells while "what" keeps ``WHAT_ROOM``, else
    cut (with "…"), ``ID_ROOM`` at the least."""
    kind, name, when = (
        max([len(head), *(len(row[n]) for row in rows)]) for n, head in enumerate(_HEADS[:3])
    )
    name = max(min(ID_ROOM, name), min(name, room - kind - when - WHAT_ROOM))
    return [kind, name, when, max(len(_HEADS[-1]), room - kind - name - when)]


class CapturesScreen(Screen[None]):
    """Pick a capture or an import to open read-only."""

    TITLE = "Captures and imports"
    AUTO_FOCUS = "#readonly-items"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="captures.close", tooltip="Back to the sessions"),
        Binding("enter", "open", "Open", id="captures.open", tooltip="Open it read-only"),
    ]
    """Escape closes; Enter opens the highlighted capture or import."""

    def __init__(self, base: Path, prices: PriceOverrides = NO_OVERRIDES) -> None:
        super().__init__()
        self.base = base
        self.prices = prices
        """The config's prices by model id (before the table)."""
        self.rows: list[Row] = []
        self.widths: list[int] = []
        """The columns' widths for the rows listed and the screen's width."""

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield RowTable(id="readonly-items")
        yield Static(EMPTY, id="readonly-empty", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    @work(exclusive=True, group="captures-list")
    async def reload(self) -> None:
        """List captures and imports again (off the UI thread)."""
        self.show_rows(await asyncio.to_thread(list_readonly, self.base))

    def show_rows(self, rows: list[Row]) -> None:
        """List ``rows`` in the screen's width (``column_widths``), cells cut with "…"."""
        self.rows = rows
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        self.widths = column_widths(rows, self.size.width - _FRAME)
        table.clear(columns=True)
        for name, width in zip(_HEADS, self.widths, strict=True):
            table.add_column(name, width=width)
        for row in rows:
            table.add_row(*(Text(cell, no_wrap=True, overflow="ellipsis") for cell in row))
        table.move_cursor(row=cursor)
        self.query_one("#readonly-empty", Static).display = not rows
        self.sub_title = f"{len(rows)} read-only"

    def on_resize(self) -> None:
        if self.rows and column_widths(self.rows, self.size.width - _FRAME) != self.widths:
            self.show_rows(self.rows)

    @on(DataTable.RowSelected, "#readonly-items")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        """Open the highlighted capture or import."""
        index = self.query_one(DataTable).cursor_row
        if not 0 <= index < len(self.rows):
            return
        kind, item_id, _, _ = self.rows[index]
        try:
            if kind == "capture":
                self.app.push_screen(CaptureWorkbench(self.base, item_id, prices=self.prices))
            else:
                data: dict[str, Any] = load_import(self.base, item_id)
                self.app.push_screen(ImportedScreen(data, prices=self.prices))
        except (OSError, ValueError, LookupError) as error:
            self.notify(f"Cannot open {item_id}: {error}", severity="error")

    def action_close(self) -> None:
        self.dismiss(None)
