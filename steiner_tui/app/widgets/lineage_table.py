"""The lineage browser's table: one row per generation, oldest first.

Gen and Time stay in place when the table scrolls sideways (fixed columns); Trigger, why the
compaction ran, comes right after them, so it shows whole at 120 columns.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from steiner_tui.app.widgets.inspector_format import cell
from steiner_tui.app.widgets.lineage_view import generation_row, lineage_scale
from steiner_tui.engine.compaction.lineage import ConversationLineage

__all__ = ["GenerationTable"]

_COLUMNS = (
    ("Gen", "gen"),
    ("Time", "time"),
    ("Trigger", "trigger"),
    ("Stages", "stages"),
    ("Before", "before"),
    ("After", "after"),
    ("Before → after", "bars"),
    ("Summary model", "model"),
    ("Fallback", "fallback"),
    ("Reason", "reason"),
    ("Health", "health"),
)
_REASON_WIDTH = 40
_RIGHT_ALIGNED = frozenset({"gen", "before", "after"})


class GenerationTable(DataTable[Text]):
    """Every generation of the lineage; the highlighted row is the one on show."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True, fixed_columns=2)

    def show_lineage(self, lineage: ConversationLineage) -> None:
        """Replace the rows with the generations of ``lineage`` and highlight the active one."""
        self.clear(columns=True)
        for label, key in _COLUMNS:
            self.add_column(label, key=key)
        scale = lineage_scale(lineage)
        for generation in lineage.generations:
            values = generation_row(generation, scale)
            cells = []
            for (_, key), value in zip(_COLUMNS, values, strict=True):
                if key == "reason" and len(value) > _REASON_WIDTH:
                    value = value[: _REASON_WIDTH - 1] + "…"
                text = cell(value)
                if key in _RIGHT_ALIGNED:
                    text.justify = "right"
                cells.append(text)
            self.add_row(*cells, key=str(generation.id))
        self.move_cursor(row=len(lineage.generations) - 1)
