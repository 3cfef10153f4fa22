"""Pictures of the context, drawn in the context panel from what the engine computed.

``SourceBar`` is the request on show as one stacked bar, a segment per source in the order of
the panel's table (each row of the table starts with its segment's swatch). ``RequestChart``
draws the tokens of each main request of the conversation as a column, on the scale of the
window, with the soft threshold (compaction trigger), the hard limit and the window as lines,
each compaction marked where it happened, a request over the window in the error colour, and
under it a strip of cache reuse: how much of each request repeated the one before it (the
prefix a provider's prompt cache can serve again). With a what-if result (``whatif``, the
threshold being tried in the panel's what-if view), the tried threshold is a line of its own
and a strip under the columns marks where that threshold would have compacted. Lines that fall
on the same row (a short chart: a row is an eighth of the window) share it cell by cell, and the
legend says so, so that none hides another.

The figures are the snapshot's per-source rows and the store's ``RequestSummary`` rows
(``BudgetView``): nothing is counted here. Colours are theme variables. Both are Textual
widgets rendering ``Content``: one ``render`` per frame, a line per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from steiner_tui.app.budget_view import BudgetView, SourceRow, WindowFigures
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.engine.whatif import WhatIfResult
from steiner_tui.units import count

__all__ = [
    "CHART_ROWS",
    "SOURCE_COLOURS",
    "TRIAL_COLOUR",
    "ChartColumn",
    "RequestChart",
    "SourceBar",
    "chart_columns",
    "source_colour",
    "source_segments",
]

SOURCE_COLOURS = (
    "$primary", "$warning", "$success", "$error", "$foreground", "$secondary",
    "$secondary-lighten-3", "$accent",
)  # fmt: skip
"""The segment colours, in table order (repeating after eight sources)."""
CHART_ROWS = 8
"""Rows of the tokens chart (each row is eight levels of a block glyph)."""
MAX_COLUMN_CELLS = 3
"""The widest a request's column is drawn (with few requests, each gets several cells)."""
_LEVELS = " ▁▂▃▄▅▆▇█"
_SHADES = " ░▒▓█"


TRIAL_COLOUR = "$secondary-lighten-2"
"""The what-if trial's line, marks and legend (lightened: the thin line must show on a dark
theme beside the soft line's)."""
_LINE_COLOURS = {"━": "$error", "┄": "$warning", "┈": TRIAL_COLOUR}
_LINE_NAMES = {"━": "hard", "┄": "soft"}


def _tried(window: WindowFigures, trial: WhatIfResult | None) -> int:
    """The tried threshold drawn as a line of its own (0: none, or the soft one itself)."""
    tried = trial.setting.threshold if trial is not None else 0
    return tried if tried != window.soft_threshold else 0


def _line(spec: Sequence[tuple[str, str]], start: int, cells: int) -> list[tuple[str, str]]:
    """``cells`` cells of a row's line from column ``start``: one glyph, or the glyphs of the
    lines sharing the row in turn (by column, so they line up across the columns)."""
    if len(spec) == 1:
        glyph, colour = spec[0]
        return [(glyph * cells, colour)] if cells else []
    return [spec[(start + i) % len(spec)] for i in range(cells)]


def _sharing(rows: dict[int, tuple[tuple[str, str], ...]]) -> str:
    """The line the tried threshold shares its row with ("" : it has a row of its own)."""
    for spec in rows.values():
        glyphs = [glyph for glyph, _ in spec]
        if "┈" in glyphs and len(glyphs) > 1:
            return " and ".join(_LINE_NAMES[g] for g in glyphs if g != "┈")
    return ""


def _shared_note(sharing: str) -> tuple[str | tuple[str, str], ...]:
    """The legend's line for a tried threshold whose line shares a row ("": none)."""
    if not sharing:
        return ()
    glyph = "┄" if sharing.startswith("soft") else "━"
    return (
        "\n",
        (glyph, _LINE_COLOURS[glyph]),
        ("┈", TRIAL_COLOUR),
        f" what-if on the {sharing} line's row",
    )


def source_colour(position: int) -> str:
    """The colour of the ``position``-th source of the table."""
    return SOURCE_COLOURS[position % len(SOURCE_COLOURS)]


def source_segments(rows: Sequence[SourceRow], width: int) -> list[int]:
    """Cells of each source in a bar ``width`` wide: proportional to its tokens (largest
    remainders get the cells rounding leaves), at least one for a source that costs
    anything, adding up to ``width``."""
    total = sum(row.tokens for row in rows)
    if not total or width <= 0:
        return [0] * len(rows)
    exact = [row.tokens * width / total for row in rows]
    cells = [int(x) for x in exact]
    by_remainder = sorted(range(len(rows)), key=lambda i: exact[i] - cells[i], reverse=True)
    for i in by_remainder[: width - sum(cells)]:
        cells[i] += 1
    for i, row in enumerate(rows):
        if row.tokens and not cells[i]:  # something is never drawn as nothing
            widest = max(range(len(cells)), key=cells.__getitem__)
            if cells[widest] > 1:
                cells[widest] -= 1
                cells[i] = 1
    return cells


class SourceBar(Widget):
    """The request on show as one stacked bar by source (display only)."""

    DEFAULT_CSS = """
    SourceBar { height: 1; }
    """

    rows: reactive[tuple[SourceRow, ...]] = reactive(())
    """The sources of the request on show, in table order."""

    def render(self) -> Content:
        width = self.size.width
        segments = source_segments(self.rows, width)
        return Content.assemble(
            *(("█" * cells, source_colour(i)) for i, cells in enumerate(segments) if cells)
        )


class ChartColumn(msgspec.Struct, frozen=True):
    """One column of the chart: the largest request it stands for."""

    tokens: int
    reuse: float
    """The smallest cache reuse among its requests (0.0 to 1.0); -1 for the first request."""
    compaction: bool
    """A compaction happened just before this column's requests."""
    fits: bool
    first: int
    last: int
    """The request numbers it covers."""
    start: int = 0
    size: int = 1
    """Its main requests' positions among the main requests: ``start`` to ``start + size``."""


def chart_columns(history: Sequence[RequestSummary], width: int) -> list[ChartColumn]:
    """The main requests of ``history`` as at most ``width`` columns (several requests per
    column when there are more requests than columns: the largest is drawn)."""
    columns: list[ChartColumn] = []
    pending_compaction = False
    points: list[tuple[RequestSummary, bool]] = []
    for row in history:
        if row.compaction:
            pending_compaction = True  # the summary call itself is not a main request
            continue
        points.append((row, pending_compaction))
        pending_compaction = False
    if width <= 0 or not points:
        return columns
    per = -(-len(points) // width)
    for start in range(0, len(points), per):
        group = points[start : start + per]
        rows = [row for row, _ in group]
        columns.append(
            ChartColumn(
                tokens=max(r.estimated_prompt_tokens for r in rows),
                reuse=min(r.reuse if r.position else -1.0 for r in rows),
                compaction=any(marked for _, marked in group),
                fits=all(r.fits for r in rows),
                first=rows[0].index,
                last=rows[-1].index,
                start=start,
                size=len(group),
            )
        )
    return columns


class RequestChart(Widget):
    """Tokens per request with the window's lines, compactions and cache reuse."""

    DEFAULT_CSS = f"""
    RequestChart {{ height: {CHART_ROWS + 4}; }}
    RequestChart.-whatif {{ height: {CHART_ROWS + 6}; }}
    RequestChart.-whatif.-shared {{ height: {CHART_ROWS + 7}; }}
    """

    view: reactive[BudgetView | None] = reactive(None)
    """The panel's figures (their history and window)."""
    whatif: reactive[WhatIfResult | None] = reactive(None)
    """The what-if view's trial (its threshold and where it would have compacted)."""

    def watch_whatif(self, trial: WhatIfResult | None) -> None:
        """Two more lines (the marks and their legend) while a trial is drawn, three when its
        line shares a row (the legend says with which)."""
        self.set_class(trial is not None, "-whatif")
        self._watch_sharing()

    def watch_view(self) -> None:
        """The window's lines moved: the trial's line may share a row now, or no longer."""
        self._watch_sharing()

    def _watch_sharing(self) -> None:
        view, trial = self.view, self.whatif
        rows = self._line_rows(view.window, trial) if view is not None and trial else {}
        self.set_class(bool(_sharing(rows)), "-shared")

    def render(self) -> Content:
        view = self.view
        width = self.size.width
        if view is None or width < 8:
            return Content("")
        # Each compaction takes a one-cell line: the newest request must still show.
        compactions = sum(row.compaction for row in view.history)
        columns = chart_columns(view.history, max(1, width - compactions))
        if not columns:
            title = Content.styled("tokens per request", "bold $text-muted")
            return Content("\n").join([title, Content.styled("none sent yet", "$text-muted")])
        first, last = columns[0].first, columns[-1].last
        title = Content.styled(
            f"tokens per request · #{first}–#{last}" if last != first else f"request #{first}",
            "bold $text-muted",
        )
        marks = sum(c.compaction for c in columns)  # a one-cell line before the column
        cells = max(1, min(MAX_COLUMN_CELLS, (width - marks) // len(columns)))
        trial = self.whatif
        rows = self._line_rows(view.window, trial)
        lines = [title, *self._plot(columns, view.window, width, cells, rows)]
        lines.append(self._reuse(columns, cells))
        if trial is not None:
            lines.append(self._trial_marks(columns, cells, trial))
        lines.append(self._legend(view, trial, _sharing(rows)))
        return Content("\n").join(lines)

    @staticmethod
    def _row_of(tokens: int, scale: int) -> int:
        """The chart row (0 = top) a horizontal line at ``tokens`` is drawn on."""
        level = min(CHART_ROWS - 1, tokens * CHART_ROWS // max(scale, 1))
        return CHART_ROWS - 1 - level

    def _plot(
        self,
        columns: list[ChartColumn],
        window: WindowFigures,
        width: int,
        cells: int,
        rows: dict[int, tuple[tuple[str, str], ...]],
    ) -> list[Content]:
        """The columns (``cells`` wide each) on the window's scale, and across the whole
        ``width`` the lines of ``rows`` (``_line_rows``) and the window's top."""
        scale = window.context_size
        lines: list[Content] = []
        eighths = [min(CHART_ROWS * 8, round(c.tokens * CHART_ROWS * 8 / max(scale, 1)))
                   for c in columns]  # fmt: skip
        for row in range(CHART_ROWS):
            floor = (CHART_ROWS - 1 - row) * 8  # eighths below this row
            line = rows.get(row) or ((("─", "$text-muted"),) if row == 0 else ((" ", ""),))
            parts: list[tuple[str, str]] = []
            used = 0
            for column, height in zip(columns, eighths, strict=True):
                if column.compaction:
                    parts.append(("╎", "$accent"))
                    used += 1
                fill = max(0, min(8, height - floor))
                if fill:
                    parts.append((_LEVELS[fill] * cells, "$primary" if column.fits else "$error"))
                else:
                    parts.extend(_line(line, used, cells))
                used += cells
            parts.extend(_line(line, used, max(0, width - used)))
            lines.append(Content.assemble(*parts))
        return lines

    def _line_rows(
        self, window: WindowFigures, trial: WhatIfResult | None
    ) -> dict[int, tuple[tuple[str, str], ...]]:
        """The horizontal lines of each chart row that has any: the hard limit, the soft
        threshold and the tried threshold. Lines that fall on one row share it, cell by cell
        in turn, so none hides another (the legend says which share)."""
        scale = window.context_size
        found: dict[int, list[tuple[str, str]]] = {}
        if not window.known:  # a scale only: no limit to draw (nor a threshold to try)
            return {}
        for tokens, glyph in (
            (window.hard_limit, "━"),
            (window.soft_threshold, "┄"),
            (_tried(window, trial), "┈"),
        ):
            if tokens:
                found.setdefault(self._row_of(tokens, scale), []).append(
                    (glyph, _LINE_COLOURS[glyph])
                )
        return {row: tuple(spec) for row, spec in found.items()}

    @staticmethod
    def _reuse(columns: list[ChartColumn], cells: int) -> Content:
        parts: list[tuple[str, str]] = []
        for column in columns:
            if column.compaction:
                parts.append(("╎", "$accent"))
            if column.reuse < 0:
                parts.append(("·" * cells, "$text-muted"))
            else:
                shade = _SHADES[min(4, round(column.reuse * 4))]
                parts.append(((shade if shade != " " else "·") * cells, "$success"))
        return Content.assemble(*parts)

    @staticmethod
    def _trial_marks(columns: list[ChartColumn], cells: int, trial: WhatIfResult) -> Content:
        """``▲`` under each column before which the tried threshold would have compacted."""
        at = trial.compactions
        parts: list[tuple[str, str]] = []
        for column in columns:
            if column.compaction:
                parts.append((" ", ""))
            hit = any(column.start <= p < column.start + column.size for p in at)
            parts.append(("▲" + " " * (cells - 1) if hit else " " * cells, TRIAL_COLOUR))
        return Content.assemble(*parts)

    @staticmethod
    def _legend(view: BudgetView, trial: WhatIfResult | None = None, sharing: str = "") -> Content:
        window = view.window
        if not window.known:
            return Content.assemble(
                ("▇", "$primary"), " tokens  ",
                ("╎", "$accent"), " compaction  ",
                ("▓", "$success"), " cache reuse\n",
                ("─", "$text-muted"), f" largest request {count(window.context_size)}",
                " · window unknown",
            )  # fmt: skip
        legend = Content.assemble(
            ("▇", "$primary"), " tokens  ",
            ("┄", "$warning"), f" soft {count(window.soft_threshold)}  ",
            ("━", "$error"), f" hard {count(window.hard_limit)}\n",
            ("╎", "$accent"), " compaction  ",
            ("▓", "$success"), " cache reuse  ",
            ("─", "$text-muted"), f" {count(window.context_size)}",
        )  # fmt: skip
        if trial is None:
            return legend
        return Content.assemble(
            legend,
            "\n",
            ("┈ ▲", TRIAL_COLOUR),
            f" what-if {count(trial.setting.threshold)} ({trial.setting.mode}): "
            f"{count(trial.count)} compaction{'s' if trial.count != 1 else ''}",
            *_shared_note(sharing),
        )  # fmt: skip
