"""The request inspector's list: a page of recorded requests, oldest first.

The rows are ``RequestSummary`` figures read from the store without rebuilding any request, and
only a page of them (``PAGE``) is in the table at a time: opening the inspector costs the same
after 100 requests as after 10,000. A first row says how many requests are earlier; Enter on it
(or a click) brings in the page before. Each row shows, once its usage came, the share of its
prompt the provider read from its cache, the cause the runner named for what the cache reused
of it (with the dollars a rewrite cost) and what it cost (where the prefix of messages
diverges from another request's, the compare view, ``m``, shows). A
resumed session's earlier requests, read from its log, are marked ``log`` in the kind column:
the log keeps every figure of the row, not the request's blocks, tools or per-source counts
(the detail says which). On a narrow screen the columns the detail repeats give way
(``GIVE_WAY``) and the model is cut with "…", so the list never scrolls sideways at 80 columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual import events

from steiner_tui.app.widgets.inspector_format import cell, clock, count, first_line, fit_columns
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.units import dollars

__all__ = [
    "EARLIER_KEY",
    "FAILED",
    "GIVE_WAY",
    "LOGGED_KIND",
    "LOGGED_LEGEND",
    "MARK",
    "PAGE",
    "RequestTable",
    "costliest_miss",
]

MARK = "●"
"""Shown in the first column of the marked request."""
PAGE = 200
"""Requests in the table at a time (more are brought in a page at a time)."""
EARLIER_KEY = "earlier"
"""The row key of the "earlier requests" row."""
LOGGED_KIND = "log"
"""Added to the kind of a request read from the session log (a resumed session's earlier)."""
LOGGED_LEGEND = "no blocks, tools or tokens per source"
"""What the ``log`` mark means (the screen's subtitle says it)."""
CANCELLED = "cancelled"
"""The cache cell of a request cancelled (Esc) before its usage came."""
STOPPED = "stopped"
"""The cache cell of a request whose reply the app's stop (a quit, a kill) cut off."""
FAILED = "failed"
"""The cache cell of a request that ended in a provider error before its usage came."""

_COLUMNS = (
    ("", "mark"),
    ("#", "index"),
    ("Time", "time"),
    ("Model", "model"),
    ("Kind", "kind"),
    ("Est tokens", "tokens"),
    ("Msgs", "messages"),
    ("Cache reuse", "reuse"),
    ("Cache", "cause"),
    ("Cost", "cost"),
    ("Prompt B", "bytes"),
)
_RIGHT_ALIGNED = frozenset({"index", "tokens", "messages", "bytes", "cost"})
_MODEL_WIDTH = 28
GIVE_WAY = ("bytes", "time", "messages", "reuse")
"""Columns dropped, in this order, while the model would get fewer than ``_MODEL_ROOM`` cells
(the detail says each of them, its cache line what the cache reused): a capture's causes
carry the dollars of each rewrite, and its list kept the Cost column off screen at 80."""
_MODEL_ROOM = 12
_FRAME = 4
"""Cells of the table's width its border and scroll bar take."""
_REUSE_CELLS = 5
_EIGHTHS = " ▏▎▍▌▋▊▉"
_CHUNK = 25
"""Rows added between two frames."""


def reuse_cell(row: RequestSummary) -> str:
    """``▉▉▉▉▌ 92%`` (the share of the prompt the provider read from its cache); ``—`` where
    the usage does not say it (the cache cell says why)."""
    reuse = row.reuse
    if reuse is None:
        return "—"
    eighths = round(reuse * _REUSE_CELLS * 8)
    full, part = divmod(eighths, 8)
    bar = ("█" * full + (_EIGHTHS[part] if part else "")).ljust(_REUSE_CELLS, "·")
    return f"{bar} {reuse * 100:>3.0f}%"


def cause_cell(row: RequestSummary) -> str:
    """The cache cause of a reported request (``≠`` when the provider names another), with
    the dollars its rewrite cost; ``cancelled`` (Esc), ``stopped`` (the app's stop) or
    ``failed`` (a provider error): no usage will come; "" before its usage came."""
    cache = row.cache
    if cache is None:
        if row.error == APP_STOPPED:
            return STOPPED
        return CANCELLED if row.cancelled else FAILED if row.error else ""
    text = cache.cause + (" ≠" if cache.disagrees else "")
    if cache.rewritten_tokens:
        text += f" {dollars(cache.cost_usd) if cache.cost_usd is not None else '?'}"
    return text


def costliest_miss(rows: Iterable[RequestSummary]) -> RequestSummary | None:
    """The request whose cache miss cost the most: the dollars of its rewrite, then its tokens
    rewritten (a model with no price, or a free one); None when the cache rewrote nothing."""
    misses = [row for row in rows if row.cache is not None and row.cache.rewritten_tokens]
    return max(
        misses,
        key=lambda r: (r.cache.cost_usd or 0, r.cache.rewritten_tokens) if r.cache else (0, 0),
        default=None,
    )


def cost_cell(row: RequestSummary) -> str:
    """The request's cost; ``?`` for a model with no price; ``unknown`` for a cancelled or
    failed request (``$0`` on a free model); "" before its usage came."""
    if not row.reported:
        if row.cost_usd is not None:
            return dollars(row.cost_usd)
        return "unknown" if row.cancelled or row.error else ""
    return dollars(row.cost_usd) if row.cost_usd is not None else "?"


def request_row(row: RequestSummary, *, dry_run: bool = False) -> tuple[str, ...]:
    """The row of one request (without the mark): index, time, model, kind, tokens, counts,
    cache reuse, cache cause, cost, prompt bytes; ``dry_run``: the row is of the dry run, not a
    request sent."""
    model = row.model
    if len(model) > _MODEL_WIDTH:
        model = model[: _MODEL_WIDTH - 1] + "…"
    kind = "dry run" if dry_run else "compaction" if row.compaction else "turn"
    if row.logged:
        kind += f" · {LOGGED_KIND}"
    if not row.fits:
        kind += " · over"
    return (
        str(row.index),
        clock(row.time),
        model,
        kind,
        count(row.estimated_prompt_tokens),
        str(row.message_count),
        reuse_cell(row),
        cause_cell(row),
        cost_cell(row),
        count(row.prompt_bytes),
    )


class RequestTable(RowTable[Text]):
    """A page of recorded requests; the highlighted row is the one inspected.

    Row keys are store positions (``str``), and ``EARLIER_KEY`` for the first row while
    requests before the page are left out.
    """

    def __init__(self, *, id: str | None = None, dry_run: bool = False) -> None:
        super().__init__(id=id)
        self.dry_run = dry_run
        """The rows are the dry run of the next request (nothing sent yet)."""
        self.start = 0
        """The store position of the first request in the table."""
        self.marked: int | None = None
        """The marked request's position (None: none)."""
        self.stop = 0
        """The store position after the last request in the table."""
        self.pending: Sequence[RequestSummary] | None = None
        """The rows being added (None: all are in)."""
        self.loaded: tuple[Sequence[RequestSummary], int] = ((), 0)
        """The rows last loaded and the position highlighted then (loaded again on a resize
        that shows other columns)."""
        self.widths: dict[str, int] = {}
        """Each column's width for the rows loaded (before a narrow table drops some)."""
        self.fitted: tuple[list[str], int] = ([], 0)
        """The columns shown and the model's width (``fit_columns``)."""

    @property
    def lead_rows(self) -> int:
        """Rows before the first request (1 while the "earlier" row shows)."""
        return 1 if self.start else 0

    def load(self, rows: Sequence[RequestSummary], position: int) -> None:
        """Replace the rows with ``rows`` (consecutive positions, oldest first) and highlight
        store position ``position`` once they are all in. The columns are as wide as their
        cells, in the table's width (``GIVE_WAY``)."""
        self.loaded = (rows, position)
        self.clear(columns=True)
        self.start = rows[0].position if rows else 0
        self.stop = self.start + len(rows)
        note = f"▲ {self.start:,} earlier requests · Enter shows them" if self.start else ""
        texts = [request_row(row, dry_run=self.dry_run) for row in rows]
        self.widths = {"mark": 1} | {
            key: max([cell_len(label), *(cell_len(text[n]) for text in texts)])
            for n, (label, key) in enumerate(_COLUMNS[1:])
        }
        self.widths["model"] = max(self.widths["model"], cell_len(note))
        shown, model = self.fitted = fit_columns(
            self.widths, self._room(), GIVE_WAY, "model", _MODEL_ROOM
        )
        for label, key in _COLUMNS:
            if key in shown:
                self.add_column(label, key=key, width=model if key == "model" else self.widths[key])
        if note:
            # In the model column, the widest: the Time column it sat in was made 45 wide by it.
            cells = [cell(note, "italic") if k == "model" else cell("") for k in shown]
            cells[shown.index("model")].overflow = "ellipsis"
            self.add_row(*cells, key=EARLIER_KEY)
        self.pending = rows
        self._add_rows(rows, 0, position)

    def _room(self) -> int:
        # Before its first layout the table has no width: it spans the screen's.
        return (self.outer_size.width or self.screen.size.width) - _FRAME

    def on_resize(self, event: events.Resize) -> None:
        if (
            self.widths
            and fit_columns(self.widths, self._room(), GIVE_WAY, "model", _MODEL_ROOM)
            != self.fitted
        ):
            self.load(*self.loaded)

    def _add_rows(self, rows: Sequence[RequestSummary], first: int, position: int) -> None:
        # A chunk at a time, a frame between chunks, as the lineage table: the table measures
        # new rows when idle, and a page of 200 at once held the loop beside the detail's.
        if rows is not self.pending:
            return  # replaced by a later load
        shown, model = self.fitted
        for row in rows[first : first + _CHUNK]:
            mark = MARK if row.position == self.marked else ""
            cells = [cell(mark, "bold")]
            for (_, key), value in zip(
                _COLUMNS[1:], request_row(row, dry_run=self.dry_run), strict=True
            ):
                if key not in shown:
                    continue
                value = first_line(value, model) if key == "model" else value
                style = "bold" if key == "kind" and not row.fits else ""
                text = cell(value, "italic" if key == "kind" and row.logged else style)
                if key in _RIGHT_ALIGNED:
                    text.justify = "right"
                cells.append(text)
            self.add_row(*cells, key=str(row.position))
        if first + _CHUNK < len(rows):
            self.call_after_refresh(self._add_rows, rows, first + _CHUNK, position)
        else:
            self.pending = None
            self.move_cursor(row=self.row_of(position), animate=False)

    def position_at(self, row: int) -> int | None:
        """The store position shown on table row ``row`` (None: the "earlier" row)."""
        if row < self.lead_rows:
            return None
        return self.start + row - self.lead_rows

    def row_of(self, position: int) -> int:
        """The table row showing store position ``position``."""
        return position - self.start + self.lead_rows

    def set_marked(self, previous: int | None, marked: int | None) -> None:
        """Move the mark from position ``previous`` to position ``marked`` (None: no row)."""
        self.marked = marked
        for position, mark in ((previous, ""), (marked, MARK)):
            if position is not None and str(position) in self.rows:
                self.update_cell(str(position), "mark", cell(mark, "bold"))
