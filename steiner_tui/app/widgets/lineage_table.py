"""The lineage browser's table: one row per generation, oldest first.

Gen and Time stay in place when the table scrolls sideways (fixed columns); Trigger, why the
compaction ran, and Health, how the session stands after it, come right after them, so both
show whole at 80 columns.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from steiner_tui.app.widgets.inspector_format import cell
from steiner_tui.app.widgets.lineage_view import generation_row, lineage_scale
from steiner_tui.app.widgets.row_table import RowTable
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage

__all__ = ["GenerationTable"]

_COLUMNS = (
    ("Gen", "gen"),
    ("Time", "time"),
    ("Trigger", "trigger"),
    ("Health", "health"),
    ("Stages", "stages"),
    ("Before", "before"),
    ("After", "after"),
    ("Before → after", "bars"),
    ("Summary model", "model"),
    ("Fallback", "fallback"),
    ("Reason", "reason"),
)
_REASON_WIDTH = 40
_RIGHT_ALIGNED = frozenset({"gen", "before", "after"})
_CHUNK = 20
"""Rows added between two frames."""


class GenerationTable(RowTable[Text]):
    """Every generation of the lineage; the highlighted row is the one on show."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, fixed_columns=2)

    def show_lineage(self, lineage: ConversationLineage) -> None:
        """Replace the rows with the generations of ``lineage`` and highlight the active one."""
        self.clear(columns=True)
        for label, key in _COLUMNS:
            self.add_column(label, key=key)
        self._add_rows(lineage.generations, lineage_scale(lineage), 0)

    def _add_rows(
        self, generations: Sequence[ConversationGeneration], scale: int, start: int
    ) -> None:
        # A chunk at a time, a frame between chunks: the table measures new rows when idle,
        # and measuring a hundred at once held the event loop four times as long as one.
        for generation in generations[start : start + _CHUNK]:
            self.add_row(*_cells(generation, scale), key=str(generation.id))
        if start + _CHUNK < len(generations):
            self.call_after_refresh(self._add_rows, generations, scale, start + _CHUNK)
        else:
            self.move_cursor(row=len(generations) - 1)


def _cells(generation: ConversationGeneration, scale: int) -> list[Text]:
    cells = []
    for (_, key), value in zip(_COLUMNS, generation_row(generation, scale), strict=True):
        if key == "reason" and len(value) > _REASON_WIDTH:
            value = value[: _REASON_WIDTH - 1] + "…"
        text = cell(value)
        if key in _RIGHT_ALIGNED:
            text.justify = "right"
        cells.append(text)
    return cells
