"""The request inspector: every recorded request exactly as it was sent, and how two differ.

Pick a request in the list to see its figures (estimate, limits, sizes), its context blocks in
order and its messages with their hashes. Mark one with ``m`` and pick another: the detail turns
into a compare view that aligns both requests' message hashes and points at the first message
where the prefix broke, with its source.

The screen renders the snapshots it is given; it never re-estimates or re-assembles a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header

from steiner_tui.app.widgets.inspector_compare import RequestCompare
from steiner_tui.app.widgets.inspector_detail import RequestDetail
from steiner_tui.app.widgets.inspector_format import HEADER_ICON
from steiner_tui.app.widgets.inspector_requests import RequestTable
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.resources import styles_dir

__all__ = ["InspectorScreen"]


class InspectorScreen(Screen[None]):
    """Inspect recorded requests one at a time, or two side by side."""

    CSS_PATH = styles_dir() / "inspector.tcss"
    TITLE = "Request inspector"
    AUTO_FOCUS = "#requests"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "close",
            "Back",
            id="inspector.close",
            tooltip="Return to the conversation",
        ),
        Binding(
            "m",
            "mark",
            "Mark / compare",
            id="inspector.mark",
            tooltip="Mark this request (again: unmark); then pick another to compare the two",
        ),
    ]
    """Escape closes; m marks the highlighted request for comparison."""

    selected: reactive[int | None] = reactive(None, init=False)
    """Position (in ``snapshots``) of the highlighted request."""
    marked: reactive[int | None] = reactive(None, init=False)
    """Position of the request marked for comparison, if any."""
    comparing: reactive[bool] = reactive(False, toggle_class="-comparing")
    """Whether the compare view replaces the detail (a mark and another request selected)."""

    def __init__(self, snapshots: Sequence[RequestSnapshot], selected: int | None = None) -> None:
        """Inspect ``snapshots`` (oldest first), starting at request index ``selected``.

        Args:
            snapshots: the recorded requests.
            selected: the ``RequestSnapshot.index`` to show first (default: the latest).
        """
        super().__init__()
        self.snapshots = tuple(snapshots)
        positions = [i for i, s in enumerate(self.snapshots) if s.index == selected]
        self._initial = positions[-1] if positions else len(self.snapshots) - 1
        count = len(self.snapshots)
        self.sub_title = f"{count} request{'s' if count != 1 else ''}"

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield RequestTable(id="requests")
        with Vertical(id="request-pane"):
            yield RequestDetail(id="request-detail")
            yield RequestCompare(id="request-compare")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(RequestTable)
        table.load(self.snapshots)
        if self._initial >= 0:
            table.move_cursor(row=self._initial)
            self.selected = self._initial

    @on(DataTable.RowHighlighted, "#requests")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.selected = event.cursor_row

    def watch_selected(self) -> None:
        self._show()

    def watch_marked(self, previous: int | None, marked: int | None) -> None:
        self.query_one(RequestTable).set_marked(previous, marked)
        self._show()

    def _show(self) -> None:
        selected, marked = self.selected, self.marked
        if selected is None or not 0 <= selected < len(self.snapshots):
            return
        self.comparing = marked is not None and marked != selected
        if marked is not None and marked != selected:
            first, second = sorted((marked, selected))
            self.query_one(RequestCompare).pair = (self.snapshots[first], self.snapshots[second])
        else:
            self.query_one(RequestDetail).snapshot = self.snapshots[selected]

    def action_mark(self) -> None:
        """Mark the highlighted request, or clear the mark when it is already marked."""
        if self.selected is None:
            return
        self.marked = None if self.marked == self.selected else self.selected

    def action_close(self) -> None:
        """Return to the previous screen."""
        self.dismiss(None)
