"""The request inspector: every recorded request exactly as it was sent, and how two differ.

Pick a request in the list to see its figures (estimate, limits, sizes), its context blocks in
order and its messages with their hashes; Enter on a message opens it whole. Mark one with
``m`` and pick another: the detail turns into a compare view that aligns both requests' message
hashes, marks each message kept, changed, appended or removed, and points at the first message
where the prefix broke, with its source. ``c`` highlights the request whose cache miss cost
the most, on whatever page it is.

The screen reads the session's requests (``sessions.earlier_requests.SessionRequests``: a
resumed session's earlier requests read from its log, then the ``SnapshotStore``'s): the list is
a page of ``RequestSummary`` rows (no request is rebuilt to list it), and only the request on
show (and the one marked) is rebuilt, so opening the inspector takes as long after 10,000
requests as after 100. A request read from the log shows what the log keeps; the rest (its
blocks, tools, per-source counts, estimate confidence, block messages) is marked not recorded.

The screen renders the snapshots it is given; it never re-estimates or re-assembles a request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header

from steiner_tui.app.screens.message_view import MessageScreen
from steiner_tui.app.widgets.inspector_compare import RequestCompare
from steiner_tui.app.widgets.inspector_detail import RequestDetail
from steiner_tui.app.widgets.inspector_format import HEADER_ICON
from steiner_tui.app.widgets.inspector_requests import (
    EARLIER_KEY,
    LOGGED_KIND,
    LOGGED_LEGEND,
    PAGE,
    RequestTable,
    costliest_miss,
)
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.snapshots import RequestSummary, SnapshotStore
from steiner_tui.resources import styles_dir
from steiner_tui.sessions.earlier_requests import InspectedRequest, SessionRequests
from steiner_tui.units import counted

__all__ = ["InspectorScreen"]


class RequestList(Protocol):
    """What the inspector lists: a ``SnapshotStore`` or a session's ``SessionRequests``."""

    def __len__(self) -> int: ...

    def summaries(self, start: int = 0, stop: int | None = None) -> tuple[RequestSummary, ...]: ...

    def at(self, position: int) -> InspectedRequest: ...

    def position_of(self, index: int) -> int | None: ...


def _subtitle(requests: RequestList) -> str:
    count = len(requests)
    text = counted(count, "request")
    logged = requests.logged if isinstance(requests, SessionRequests) else 0
    if logged:
        text += f" · {logged:,} from the session log · {LOGGED_KIND}: {LOGGED_LEGEND}"
    return text


def _store_of(snapshots: Sequence[RequestSnapshot]) -> SnapshotStore:
    store = SnapshotStore()
    for snapshot in snapshots:
        store.store(snapshot)
    return store


class InspectorScreen(Screen[None]):
    """Inspect recorded requests one at a time, or two side by side."""

    CSS_PATH = styles_dir() / "inspector.tcss"
    TITLE = "Request inspector"
    AUTO_FOCUS = "#requests"
    VERTICAL_BREAKPOINTS = [(0, "-tiny"), (22, "-small"), (25, "-short"), (34, "-tall")]  # noqa: RUF012
    """Below 34 rows the request list and the blocks share the height with the messages;
    below 25 (80x24) the blocks are left out, the messages' sources name them: with them the
    messages had two rows there; from 22 to 24 the list takes a larger share, five requests
    at 80x24 (styles/inspector.tcss)."""

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
        Binding(
            "c",
            "costliest",
            "Costliest miss",
            id="inspector.costliest",
            tooltip="Go to the request whose cache miss cost the most",
        ),
    ]
    """Escape closes; m marks the highlighted request for comparison; c goes to the costliest
    cache miss (as on an imported session's screen)."""

    selected: reactive[int | None] = reactive(None, init=False)
    """Store position of the highlighted request."""
    marked: reactive[int | None] = reactive(None, init=False)
    """Store position of the request marked for comparison, if any."""
    comparing: reactive[bool] = reactive(False, toggle_class="-comparing")
    """Whether the compare view replaces the detail (a mark and another request selected)."""

    def __init__(
        self,
        requests: RequestList | Sequence[RequestSnapshot],
        selected: int | None = None,
        *,
        dry_run: bool = False,
    ) -> None:
        """Inspect ``requests`` (oldest first), starting at request index ``selected``.

        Args:
            requests: the session's requests (or a snapshot store), or a few snapshots (the
                dry run).
            selected: the ``RequestSnapshot.index`` to show first (default: the latest).
            dry_run: ``requests`` is the dry run of the next request: nothing was sent yet.
        """
        super().__init__()
        self.store: RequestList = (
            _store_of(requests) if isinstance(requests, Sequence) else requests
        )
        count = len(self.store)
        position = self.store.position_of(selected) if selected is not None else None
        self._initial = position if position is not None else count - 1
        self._rebuilt: dict[int, InspectedRequest] = {}
        self.dry_run = dry_run
        """Whether the screen shows the dry run (the workbench before any request was sent)."""
        self.sub_title = (
            "dry run · nothing sent since opening"
            if self.dry_run and count
            else _subtitle(self.store)
        )

    def compose(self) -> ComposeResult:
        yield Header(icon=HEADER_ICON)
        yield RequestTable(id="requests", dry_run=self.dry_run)
        with Vertical(id="request-pane"):
            yield RequestDetail(id="request-detail", dry_run=self.dry_run)
            yield RequestCompare(id="request-compare")
        yield Footer()

    def on_mount(self) -> None:
        if self._initial >= 0:
            self._show_page_with(self._initial)

    def _show_page_with(self, position: int) -> None:
        """List the first page of requests, or the page ending at ``position`` when it is
        further on, highlighting ``position``."""
        stop = max(position + 1, min(len(self.store), PAGE))
        self._show_rows(max(0, stop - PAGE), stop, position)

    def _show_rows(self, start: int, stop: int, position: int) -> None:
        """List the requests at positions ``start`` to ``stop``, highlighting ``position``."""
        self.query_one(RequestTable).load(self.store.summaries(start, stop), position)
        self.selected = position

    def show_requests(self, requests: RequestList | Sequence[RequestSnapshot]) -> None:
        """List ``requests`` instead (a capture that grew), keeping the highlighted position."""
        selected = self.selected
        self.store = _store_of(requests) if isinstance(requests, Sequence) else requests
        self._rebuilt.clear()
        count = len(self.store)
        self.sub_title = _subtitle(self.store)
        if not count:
            return
        self._show_page_with(selected if selected is not None and selected < count else count - 1)

    def snapshot_at(self, position: int) -> InspectedRequest:
        """The request at ``position``, rebuilt (or read from the log) once while the screen is
        open."""
        snapshot = self._rebuilt.get(position)
        if snapshot is None:
            snapshot = self._rebuilt[position] = self.store.at(position)
        return snapshot

    @on(DataTable.RowHighlighted, "#requests")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        table = self.query_one(RequestTable)
        position = table.position_at(event.cursor_row)
        if position is not None and table.pending is None:  # not the first rows coming in
            self.selected = position

    @on(DataTable.RowSelected, "#requests")
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value == EARLIER_KEY:
            # The page before joins the list (the rows after it stay).
            table = self.query_one(RequestTable)
            self._show_rows(max(0, table.start - PAGE), table.stop, table.start - 1)

    @on(RequestDetail.MessageOpened)
    def _message_opened(self, event: RequestDetail.MessageOpened) -> None:
        title = (
            f"Request #{event.snapshot.index} · message {event.number} · {event.message.role} · "
            f"{event.source} · {event.digest}"
        )
        self.app.push_screen(MessageScreen(title, event.message))

    def watch_selected(self) -> None:
        self._show()

    def watch_marked(self, previous: int | None, marked: int | None) -> None:
        self.query_one(RequestTable).set_marked(previous, marked)
        self._show()

    def _show(self) -> None:
        selected, marked = self.selected, self.marked
        if selected is None or not 0 <= selected < len(self.store):
            return
        self.comparing = marked is not None and marked != selected
        if marked is not None and marked != selected:
            first, second = sorted((marked, selected))
            pair = (self.snapshot_at(first), self.snapshot_at(second))
            self.query_one(RequestCompare).pair = pair
        else:
            detail = self.query_one(RequestDetail)
            detail.figures = next(iter(self.store.summaries(selected, selected + 1)), None)
            detail.snapshot = self.snapshot_at(selected)

    def action_mark(self) -> None:
        """Mark the highlighted request, or clear the mark when it is already marked."""
        if self.selected is None:
            return
        self.marked = None if self.marked == self.selected else self.selected

    def action_costliest(self) -> None:
        """Highlight the request whose cache miss cost the most (its detail says why and what
        the rewrite cost), bringing in its page when it is not listed."""
        costliest = costliest_miss(self.store.summaries())
        if costliest is None:
            self.notify("no cache miss in this session")
            return
        table = self.query_one(RequestTable)
        position = costliest.position
        if table.pending is None and table.start <= position < table.stop:
            table.move_cursor(row=table.row_of(position), animate=False)
        else:
            self._show_page_with(position)
        table.focus()

    def action_close(self) -> None:
        """Return to the previous screen."""
        self.dismiss(None)
