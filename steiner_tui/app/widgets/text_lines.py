"""A text of any length as lines, drawn only where they show: the history archive, a message.

``history.md`` grows without bound (200 KB after a day's work) and a tool result can be as long,
so such a text is shown as it is (never read as Markdown or markup) by a Line API widget that
draws only the lines on screen: a ``Markdown`` widget made one widget per block and froze the
lineage browser for a minute opening the archive. ``show`` reads the text in a thread, then
sanitizes, wraps and measures it a ``CHUNK`` per step of the event loop: no step costs more for
a megabyte than for a line, and the first screen shows at once. Not in a thread: the work holds
the GIL (``str.translate`` over a 1 MB archive held it 190 ms in one call) and a thread taking
turns with the loop on a loaded machine stalled the loop longer than the steps do. Markdown
headings (``### User``) stand out.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.cells import get_character_cell_size as cell_size
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from steiner_tui.plain import printable

__all__ = ["CHUNK", "TextLines", "wrap_lines"]

CHUNK = 32_768
"""Characters of text sanitized, wrapped and measured per step of the event loop (some 2 ms)."""

_NARROWEST = 20
"""The narrowest lines are wrapped to, however narrow the view."""


def _indent(line: str) -> str:
    """The indent of a wrapped line's continuation: under the text of a list item."""
    stripped = line.lstrip(" ")
    lead = len(line) - len(stripped)
    marker = next((m for m in ("- ", "* ", "+ ") if stripped.startswith(m)), "")
    return " " * (lead + len(marker))


def wrap_lines(text: str, width: int) -> list[str]:
    """The text's lines, each at most ``width`` characters (list items indented; 20 at the
    narrowest, however narrow the view)."""
    width = max(width, _NARROWEST)
    lines: list[str] = []
    for line in text.expandtabs().splitlines():
        if len(line) <= width:
            lines.append(line)
            continue
        indent = _indent(line)
        lines.extend(
            textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
        )
    return lines


class TextLines(ScrollView, can_focus=True):
    """A text's lines, scrollable, wrapped to the view."""

    DEFAULT_CSS = """
    TextLines {
        background: $surface;
        color: $text;
        overflow: scroll;
        &:focus {
            background-tint: $foreground 5%;
        }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"text-lines--heading"}
    """The style of a Markdown heading."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: list[str] = []
        self._text = ""
        self._width = 0
        self._wraps = 0
        """How many wraps began: a wrap that a later one replaced stops at its next step."""

    @property
    def lines(self) -> Sequence[str]:
        """The lines shown, wrapped."""
        return self._lines

    async def show(self, text: str | Callable[[], str], width: int) -> None:
        """Show ``text`` (or what reading it returns, called in a thread: a file) wrapped to
        ``width`` columns (the view's own width once it has one), replacing what was shown.

        Raises:
            OSError: reading the text failed.
        """
        self._wraps += 1
        self._text, self._width = "", 0
        self._show([], 0)
        self.scroll_home(animate=False)
        whole = await asyncio.to_thread(text) if callable(text) else text
        await self._wrap(whole, self.scrollable_content_region.width or width)

    async def _wrap(self, whole: str, width: int) -> None:
        self._wraps += 1
        wrap = self._wraps
        self._text, self._width = whole, width
        lines: list[str] = []
        widest = start = 0
        while start < len(whole):
            end = whole.find("\n", start + CHUNK) + 1 or len(whole)
            chunk = wrap_lines(printable(whole[start:end]), width)
            # An ASCII line is as wide as it is long (``isascii`` reads a flag, it does not scan);
            # not ``cell_len``: its cache kept a tuple per line, garbage for a full collection.
            widths = (len(n) if n.isascii() else sum(map(cell_size, n)) for n in chunk)
            widest = max(widest, max(widths, default=0))
            lines += chunk
            if not start:
                self._show(lines[:], widest)  # the first screen at once
            start = end
            await asyncio.sleep(0)
            if wrap != self._wraps:  # a resize or another text took over
                return
        # The rest in one update: each resizes the scrollbars and repaints the view.
        self._show(lines, widest)

    def on_resize(self) -> None:
        # A view wrapped to another width would cut its lines (or leave half of it empty).
        width = self.scrollable_content_region.width
        if self._text and width and width != self._width:
            self.run_worker(self._wrap(self._text, width), group="wrap", exclusive=True)

    def _show(self, lines: list[str], widest: int) -> None:
        self._lines = lines
        self.virtual_size = Size(widest, len(lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        """The line at ``y`` on screen: the text's line at the scroll position plus ``y``."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        style = self.rich_style
        width = self.size.width
        if index >= len(self._lines):
            return Strip.blank(width, style)
        line = self._lines[index]
        text = Text(line, no_wrap=True)
        text.stylize(style)
        if line.startswith("#"):
            text.stylize(self.get_component_rich_style("text-lines--heading"))
        selection = self.text_selection
        span = selection.get_span(index) if selection is not None else None
        if span is not None:
            start, end = span
            selected = self.screen.get_component_rich_style("screen--selection")
            text.stylize(selected, start, len(text) if end == -1 else end)
        strip = Strip(text.render(self.app.console), cell_len(line))
        return strip.crop_extend(scroll_x, scroll_x + width, style).apply_offsets(scroll_x, index)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text (``Log``'s selection, kept)."""
        return selection.extract("\n".join(self._lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        """Draw the selection."""
        self.refresh()

    def on_unmount(self) -> None:
        # A closed screen is a reference cycle, freed by a full collection whenever one runs:
        # a megabyte of lines left in it made that collection (during a keystroke) longer.
        self._lines = []
