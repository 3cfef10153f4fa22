"""Tokens per request as a bar chart, with each compaction marked where it happened.

One column per request (or, when there are more requests than columns, the largest of each
group of requests), eighth-block bars scaled to the largest value, and a marker column with a
label over it at each compaction. The chart is drawn from the values it is given; its colours
are component classes, so the theme decides them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from steiner_tui.units import count

__all__ = ["ChartMark", "TokenChart", "chart_lines"]

_EIGHTHS = " ▁▂▃▄▅▆▇█"

ChartMark = tuple[int, str]
"""A marker: the number of values before it, and its label."""


def chart_lines(
    values: Sequence[int], marks: Sequence[ChartMark], width: int, height: int
) -> tuple[list[str], list[int]]:
    """The chart's rows (top first) and the columns that hold a marker."""
    width = max(width, 1)
    groups = max(1, math.ceil(len(values) / width)) if values else 1
    columns = [max(values[i : i + groups]) for i in range(0, len(values), groups)]
    marker_columns = sorted({min(after // groups, len(columns)) for after, _ in marks})
    # Fewer requests than columns: each request gets as many columns as fit.
    spread = max(1, (width - len(marker_columns)) // max(len(columns), 1)) if groups == 1 else 1
    if spread > 1:
        columns = [value for value in columns for _ in range(spread)]
        marker_columns = [column * spread for column in marker_columns]
    top = max(columns, default=0) or 1
    cells: list[list[str]] = [[" "] * (len(columns) + len(marker_columns)) for _ in range(height)]
    shift = 0
    placed: list[int] = []
    for column, value in enumerate(columns):
        while shift < len(marker_columns) and marker_columns[shift] == column:
            placed.append(column + shift)
            shift += 1
        eighths = round(value / top * height * 8)
        x = column + shift
        for row in range(height):
            level = eighths - row * 8
            cells[height - 1 - row][x] = _EIGHTHS[max(0, min(8, level))]
    while shift < len(marker_columns):
        placed.append(len(columns) + shift)
        shift += 1
    for x in placed:
        for row in range(height):
            cells[row][x] = "┃"
    return ["".join(row) for row in cells], placed


class TokenChart(Widget):
    """A bar chart of one value per request, compactions marked."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"token-chart--bar", "token-chart--mark"}
    """Bar and marker colours."""

    DEFAULT_CSS = """
    TokenChart { height: 14; }
    TokenChart > .token-chart--bar { color: $primary; }
    TokenChart > .token-chart--mark { color: $warning; text-style: bold; }
    """

    values: reactive[tuple[int, ...]] = reactive(())
    """One value per request, oldest first."""
    marks: reactive[tuple[ChartMark, ...]] = reactive(())
    """The compactions: how many requests came before each, and its label."""

    def render(self) -> Text:
        width, height = self.content_size.width, self.content_size.height
        label_rows = 2 if self.marks else 0
        axis = 1
        bars = max(1, height - label_rows - axis)
        lines, placed = chart_lines(self.values, self.marks, width, bars)
        bar = self.get_component_rich_style("token-chart--bar")
        mark = self.get_component_rich_style("token-chart--mark")
        out = Text(no_wrap=True, overflow="crop")
        for index, (_, label) in enumerate(self.marks[: len(placed)]):
            x = placed[index]
            start = max(0, min(x, width - len(label) - 1))
            out.append(" " * start + label[: max(0, width - start)] + "\n", style=mark)
        if self.marks and len(self.marks) < 2:
            out.append("\n")
        for line in lines:
            for x, char in enumerate(line):
                out.append(char, style=mark if x in placed else bar)
            out.append("\n")
        peak = max(self.values, default=0)
        out.append(f"{len(self.values)} requests · peak {count(peak)} tokens")
        return out
