"""Pictures of the context, drawn in the context panel from what the engine computed.

``SourceBar`` is the request on show as one stacked bar, a segment per source in the order of
the panel's table (each row of the table starts with its segment's swatch). ``RequestChart``
draws the tokens of each main request of the conversation as a column, on the scale of the
window, with the soft threshold (compaction trigger), the hard limit and the window as lines,
each compaction marked where it happened, a request over the window in the error colour, and
under it a strip of cache reads: the share of each request's prompt the provider's cache served
(muted dots where its usage does not say it, ``RequestSummary.reuse``). With a what-if result
(``whatif``, the threshold being tried in the panel's what-if view), the tried threshold is a
line of its own and a strip under the columns marks where that threshold would have compacted.
Lines that fall on the same row (a short chart: a row is an eighth of the window) share it cell
by cell, and the legend says so, so that none hides another.

The figures are the snapshot's per-source rows and the store's ``RequestSummary`` rows
(``BudgetView``): nothing is counted here. Colours are theme variables. Both are Textual
widgets rendering ``Content``: one ``render`` per frame, a line per row.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from textual.app import App
from textual.color import Color
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from steiner_tui.app.budget_view import BudgetView, SourceRow, WindowFigures
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.engine.whatif import WhatIfResult
from steiner_tui.units import count, counted

__all__ = [
    "AXIS",
    "CHART_ROWS",
    "TRIAL_COLOUR",
    "MIN_COLOUR_DISTANCE",
    "RequestChart",
    "SourceBar",
    "chart_columns",
    "colour_distance",
    "source_colour",
    "source_colours",
    "source_segments",
]

SOURCE_COLOURS = (
    "$primary", "$warning", "$success", "$error", "$accent", "$secondary", "$foreground",
    "$primary-lighten-3", "$success-darken-3", "$error-lighten-3", "$warning-darken-3",
    "$accent-lighten-3", "$secondary-lighten-3", "$primary-darken-3", "$success-lighten-3",
    "$error-darken-3", "$warning-lighten-3", "$accent-darken-3", "$secondary-darken-3",
)  # fmt: skip
"""The theme colours a segment may take, by preference: the first eight that differ from each
other (``source_colours``)."""
SEGMENT_COLOURS = 8
"""Colours of the segments, in table order (repeating after eight sources)."""
MIN_COLOUR_DISTANCE = 48.0
"""How far apart (in RGB) two segments' colours are at least: textual-dark's accent is its
warning colour, monokai's secondary its error colour."""
_PALETTES: dict[str, tuple[str, ...]] = {}
"""``source_colours`` by theme name."""
CHART_ROWS = 8
"""Rows of the tokens chart (each row is eight levels of a block glyph)."""
MAX_COLUMN_CELLS = 3
"""The widest a request's column is drawn (with few requests, each gets several cells)."""
AXIS = 5
"""Columns of the chart's scale on its left (``_scale_label`` and a space)."""
_LEVELS = " ▁▂▃▄▅▆▇█"
_SHADES = " ░▒▓█"


TRIAL_COLOUR = "$secondary-lighten-2"
"""The what-if trial's line, marks and legend (lightened: the thin line must show on a dark
theme beside the soft line's)."""
_LINE_COLOURS = {"━": "$error", "┄": "$warning", "┈": TRIAL_COLOUR}
_LINE_NAMES = {"━": "hard", "┄": "soft"}


def _scale_label(tokens: int) -> str:
    """Tokens in at most four characters: ``0``, ``950``, ``16k``, ``1.0M``."""
    if tokens < 1000:
        return str(tokens)
    if tokens < 999_500:
        return f"{tokens / 1000:.0f}k"
    return f"{tokens / 1_000_000:.1f}M"


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


def colour_distance(one: Color, other: Color) -> float:
    """How far apart two colours are (Euclidean, in RGB)."""
    return float(sum((a - b) ** 2 for a, b in zip(one.rgb, other.rgb, strict=True)) ** 0.5)


def source_colours(app: App[object]) -> tuple[str, ...]:
    """The segment colours in ``app``'s theme: ``SEGMENT_COLOURS`` of ``SOURCE_COLOURS``, in
    order, each at least ``MIN_COLOUR_DISTANCE`` from those before it."""
    palette = _PALETTES.get(app.theme)
    if palette is None:
        variables = app.get_css_variables()
        chosen: list[tuple[str, Color]] = []
        for name in SOURCE_COLOURS:
            colour = Color.parse(variables[name.removeprefix("$")])
            if all(colour_distance(colour, c) >= MIN_COLOUR_DISTANCE for _, c in chosen):
                chosen.append((name, colour))
        palette = _PALETTES[app.theme] = tuple(name for name, _ in chosen[:SEGMENT_COLOURS])
    return palette


def source_colour(position: int, palette: Sequence[str]) -> str:
    """The colour of the ``position``-th source of the table (``palette``: ``source_colours``)."""
    return palette[position % len(palette)]


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
        palette = source_colours(self.app)
        return Content.assemble(
            *(("█" * cells, source_colour(i, palette)) for i, cells in enumerate(segments) if cells)
        )


class ChartColumn(msgspec.Struct, frozen=True):
    """One column of the chart: the largest request it stands for."""

    tokens: int
    reuse: float
    """The smallest share of a prompt the provider's cache served among its requests (0.0 to
    1.0); -1 where none of them says it (``RequestSummary.reuse``)."""
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
        known = [share for share in (r.reuse for r in rows) if share is not None]
        columns.append(
            ChartColumn(
                tokens=max(r.estimated_prompt_tokens for r in rows),
                reuse=min(known, default=-1.0),
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

    view: reactive[BudgetView | None] = reactive(None, layout=True)
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
        return self._drawn(self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Measured at the width being laid out: with ``height: auto`` (the imported screen), a
        # count taken from ``self.size`` before the first layout left the chart one line high.
        return len(self._drawn(width).split("\n"))

    def _drawn(self, width: int) -> Content:
        view = self.view
        if view is None or width < 8 + AXIS:
            return Content("")
        # Each compaction takes a one-cell line: the newest request must still show.
        compactions = sum(row.compaction for row in view.history)
        width -= AXIS  # the scale's labels
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
        lines.append(Content(" " * AXIS) + self._reuse(columns, cells))
        if trial is not None:
            lines.append(Content(" " * AXIS) + self._trial_marks(columns, cells, trial))
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
        ``width`` the lines of ``rows`` (``_line_rows``) and the window's top; on the left,
        the scale: the window at the top, half of it and zero."""
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
            level = {0: scale, CHART_ROWS // 2 - 1: scale // 2, CHART_ROWS - 1: 0}.get(row)
            label = f"{_scale_label(level):>{AXIS - 1}} " if level is not None else " " * AXIS
            lines.append(Content.assemble((label, "$text-muted"), *parts))
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
            f"{counted(trial.count, 'compaction')}",
            *_shared_note(sharing),
        )  # fmt: skip
