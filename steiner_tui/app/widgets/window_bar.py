"""The context-window bar: used tokens, the completion reserve, the soft and hard limits.

One character is ``context_size / width`` tokens. The bar fills with the estimated prompt, then
shades the completion reserve after it; ``┊`` marks the soft threshold (compaction trigger) and
``┃`` the hard limit (window minus safety margin).
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from steiner_tui.app.budget_view import WindowFigures
from steiner_tui.units import count

__all__ = ["WindowBar", "bar_cells"]


def bar_cells(figures: WindowFigures, width: int) -> list[str]:
    """The bar's cell kinds: ``used``, ``reserve``, ``soft``, ``hard`` or ``free``."""
    size = max(figures.context_size, 1)

    def cell(tokens: int) -> int:
        return min(width - 1, max(0, tokens * width // size))

    used = min(width, -(-figures.used * width // size)) if figures.used else 0
    reserve_end = min(width, -(-(figures.used + figures.reserve) * width // size))
    cells = ["used" if i < used else "reserve" if i < reserve_end else "free" for i in range(width)]
    if figures.known:  # an unknown window has no limits to mark
        cells[cell(figures.soft_threshold)] = "soft"
        cells[cell(figures.hard_limit)] = "hard"
    return cells


_GLYPHS = {
    "used": ("█", "$primary"),
    "reserve": ("▒", "$warning"),
    "free": ("░", "$text-muted"),
    "soft": ("┊", "$warning"),
    "hard": ("┃", "$error"),
}


class WindowBar(Widget):
    """Two lines: the bar and its legend (display only)."""

    DEFAULT_CSS = """
    WindowBar { height: 3; }
    """

    figures: reactive[WindowFigures | None] = reactive(None)
    """The window figures shown (None: nothing yet)."""

    def render(self) -> Content:
        figures = self.figures
        if figures is None or self.size.width < 4:
            return Content("")
        cells = bar_cells(figures, self.size.width)
        bar = Content.assemble(*(_GLYPHS[kind] for kind in cells))
        share = figures.used * 100 / max(figures.context_size, 1)
        if not figures.known:
            legend = Content.assemble(
                ("█", "$primary"), f" used {count(figures.used)}  ",
                ("░", "$text-muted"), f" scale: largest request {count(figures.context_size)}\n",
                Content.styled("window unknown: no soft or hard limit", "$text-muted"),
            )  # fmt: skip
            return Content.assemble(bar, "\n", legend)
        used = "reported" if figures.stateful else "used"
        # An agent's hard line is its window (a capture's): said once, not "200,000 / 200,000".
        window = (
            ""
            if figures.hard_limit == figures.context_size
            else f" / {count(figures.context_size)}"
        )
        legend = Content.assemble(
            ("█", "$primary"), f" {used} {count(figures.used)} ({share:.0f}%)  ",
            ("▒", "$warning"), f" reserve {count(figures.reserve)}\n",
            ("┊", "$warning"), f" soft {count(figures.soft_threshold)}  ",
            ("┃", "$error"), f" hard {count(figures.hard_limit)}", window,
        )  # fmt: skip
        return Content.assemble(bar, "\n", legend)
