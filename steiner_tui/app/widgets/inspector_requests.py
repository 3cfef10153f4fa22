"""The request inspector's list: one row per recorded request, oldest first."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import DataTable

from steiner_tui.app.widgets.inspector_format import cell, clock, count
from steiner_tui.engine.events import RequestSnapshot

__all__ = ["MARK", "RequestTable", "request_row"]

MARK = "●"
"""Shown in the first column of the marked request."""

_COLUMNS = (
    ("", "mark"),
    ("#", "index"),
    ("Time", "time"),
    ("Model", "model"),
    ("Kind", "kind"),
    ("Est tokens", "tokens"),
    ("Msgs", "messages"),
    ("Prompt B", "bytes"),
)
_RIGHT_ALIGNED = frozenset({"index", "tokens", "messages", "bytes"})
_MODEL_WIDTH = 28


def request_row(snapshot: RequestSnapshot) -> tuple[str, ...]:
    """The row of one request (without the mark): index, time, model, kind, tokens, counts."""
    model = snapshot.model
    if len(model) > _MODEL_WIDTH:
        model = model[: _MODEL_WIDTH - 1] + "…"
    return (
        str(snapshot.index),
        clock(snapshot.time),
        model,
        "compaction" if snapshot.compaction else "turn",
        count(snapshot.estimated_prompt_tokens),
        str(len(snapshot.messages)),
        count(snapshot.prompt_bytes),
    )


class RequestTable(DataTable[Text]):
    """Every recorded request; the highlighted row is the one inspected."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def load(self, snapshots: Sequence[RequestSnapshot]) -> None:
        """Replace the rows with ``snapshots`` (row keys are their positions)."""
        self.clear(columns=True)
        for label, key in _COLUMNS:
            self.add_column(label, key=key, width=1 if key == "mark" else None)
        for position, snapshot in enumerate(snapshots):
            cells = [cell("")]
            for (_, key), value in zip(_COLUMNS[1:], request_row(snapshot), strict=True):
                text = cell(value)
                if key in _RIGHT_ALIGNED:
                    text.justify = "right"
                cells.append(text)
            self.add_row(*cells, key=str(position))

    def set_marked(self, previous: int | None, marked: int | None) -> None:
        """Move the mark from row ``previous`` to row ``marked`` (positions; None: no row)."""
        if previous is not None and previous < self.row_count:
            self.update_cell(str(previous), "mark", cell(""))
        if marked is not None and marked < self.row_count:
            self.update_cell(str(marked), "mark", cell(MARK, "bold"))
