"""Two requests side by side: their message hashes aligned, the first divergence marked.

A provider's prompt cache reuses the longest prefix of messages it saw before, so the first
message whose hash differs is where the cache stops helping. ``prefix_stability`` finds it and
names its source (a context block, or the conversation). Each row says what happened to the
message: ``=`` kept (same hash), ``≠`` changed, ``+`` appended (only in the later request),
``−`` removed (only in the earlier one). A stable prefix followed by appended messages is
the usual, cache-friendly case, and reads as such. Either request may be one read from a
resumed session's log (``request_stability``): its hashes are all there, and a message the log
does not hold reads "not recorded in the session log".
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import DataTable, Static

from steiner_tui.app.budget_view import sources_label
from steiner_tui.app.widgets.inspector_detail import NOT_IN_LOG, message_sources
from steiner_tui.app.widgets.inspector_format import cell, first_line, message_line
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.snapshots import PrefixStability
from steiner_tui.sessions.earlier_requests import InspectedRequest, request_stability

__all__ = [
    "APPENDED",
    "DIVERGENCE",
    "KEPT",
    "REMOVED",
    "RequestCompare",
    "compare_rows",
]

CONVERSATION = str(ContextSource.CONVERSATION)
_FIXED_COLUMNS = 60
"""Columns the compare table gives to everything but the source and the first line (mark,
number, roles, hashes, change, cell padding, border and scrollbar)."""
DIVERGENCE = "▶"
"""Marks the first divergent message in the compare table."""
KEPT, CHANGED, APPENDED, REMOVED = "=", "≠", "+", "−"
"""What happened to a message between the two requests."""


def compare_heading(a: InspectedRequest, b: InspectedRequest, stability: PrefixStability) -> str:
    """One line: which requests, how many leading messages match, where they diverge."""
    pair = f"Request #{a.index} → #{b.index}: "
    if stability.first_broken is None:
        added = len(b.message_hashes) - len(a.message_hashes)
        appended = f" and appends {added}" if added > 0 else ""
        return pair + (
            f"prefix stable, #{b.index} repeats all {len(a.message_hashes)} messages of "
            f"#{a.index}{appended}"
        )
    return pair + (
        f"{stability.matching} leading message(s) match · first divergence at message "
        f"{stability.first_broken} ({sources_label(stability.broken_source)})"
    )


def _role(message: Message | None) -> str:
    return message.role if message is not None else "—"


def compare_rows(a: InspectedRequest, b: InspectedRequest) -> list[tuple[str, ...]]:
    """Aligned rows: mark, index, A role, A hash, change (= ≠ + −), B hash, B role, source,
    first line.

    The first line is B's where B has the message (and, read from the log, the log holds
    it), else A's; the source (its label) is a block source
    when either side's message came from blocks, else ``conversation``.
    """
    stability = request_stability(a, b)
    sources_a, sources_b = message_sources(a), message_sources(b)
    rows: list[tuple[str, ...]] = []
    for i in range(max(len(a.messages), len(b.messages))):
        left = (a.messages[i], a.message_hashes[i], sources_a[i]) if i < len(a.messages) else None
        right = (b.messages[i], b.message_hashes[i], sources_b[i]) if i < len(b.messages) else None
        shown = next((side[0] for side in (right, left) if side and side[0] is not None), None)
        source = next(
            (side[2] for side in (right, left) if side is not None and side[2] != CONVERSATION),
            CONVERSATION,
        )
        if left is None:
            change = APPENDED
        elif right is None:
            change = REMOVED
        else:
            change = KEPT if left[1] == right[1] else CHANGED
        rows.append(
            (
                DIVERGENCE if i == stability.first_broken else "",
                str(i),
                _role(left[0]) if left else "",
                left[1] if left else "—",
                change,
                right[1] if right else "—",
                _role(right[0]) if right else "",
                sources_label(source),
                message_line(shown, 60) if shown is not None else NOT_IN_LOG,
            )
        )
    return rows


class RequestCompare(Vertical):
    """The compare view of two requests (earlier first)."""

    pair: reactive[tuple[InspectedRequest, InspectedRequest] | None] = reactive(None)
    """The requests compared, earlier first (None: no comparison)."""

    def compose(self) -> ComposeResult:
        yield Static(id="compare-heading", markup=False)
        yield RowTable(id="compare-table", zebra_stripes=False)

    def on_mount(self) -> None:
        table = self.query_one("#compare-table", DataTable)
        table.add_columns("", "#", "A role", "A hash", "", "B hash", "B role", "Source", "Message")

    def watch_pair(self, pair: tuple[InspectedRequest, InspectedRequest] | None) -> None:
        table = self.query_one("#compare-table", DataTable)
        table.clear()
        if pair is None:
            return
        a, b = pair
        stability = request_stability(a, b)
        self.query_one("#compare-heading", Static).update(compare_heading(a, b, stability))
        rows = compare_rows(a, b)
        # The first lines take the width the sources leave (no sideways scrolling).
        sources = max((len(row[7]) for row in rows), default=0)
        width = max(30, self.size.width - _FIXED_COLUMNS - sources)
        for *values, line in rows:
            style = "bold" if values[0] else ("italic" if values[4] == CHANGED else "")
            table.add_row(*(cell(value, style) for value in (*values, first_line(line, width))))
        table.border_title = f"A #{a.index} · B #{b.index}"
        if stability.first_broken is not None:
            table.move_cursor(row=stability.first_broken, animate=False)
