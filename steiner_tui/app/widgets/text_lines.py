"""A text of any length as lines, drawn only where they show: the history archive, a message.

``history.md`` grows without bound (200 KB after a day's work) and a tool result can be as long,
so such a text is shown as it is (never read as Markdown or markup) in a ``Log``, which draws
only the lines on screen: a ``Markdown`` widget made one widget per block and froze the lineage
browser for a minute opening the archive. ``show`` wraps the text to the view's width in a
thread and hands the lines over a page at a time, each its own step of the event loop, so the
first page shows at once and no step costs more than a page. Markdown headings (``### User``)
stand out.
"""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.highlighter import Highlighter
from rich.style import Style
from rich.text import Text
from textual.widgets import Log

from steiner_tui.plain import printable

__all__ = ["PAGE", "TextLines", "wrap_lines"]

PAGE = 5_000
"""Lines handed to the view per step of the event loop."""
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


class _Headings(Highlighter):
    """Styles Markdown headings with the view's heading component style."""

    def __init__(self, style: Callable[[], Style]) -> None:
        self.style = style

    def highlight(self, text: Text) -> None:
        if text.plain.startswith("#"):
            text.stylize(self.style())


class TextLines(Log):
    """A text's lines, scrollable, wrapped to the view."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"text-lines--heading"}
    """The style of a Markdown heading."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(highlight=True, auto_scroll=False, id=id)
        self.highlighter = _Headings(lambda: self.get_component_rich_style("text-lines--heading"))

    async def show(self, text: str | Callable[[], str], width: int) -> None:
        """Show ``text`` (or what reading it returns, called in a thread: a file) wrapped to
        ``width`` columns, replacing what was shown.

        Raises:
            OSError: reading the text failed.
        """
        self.clear()
        self.scroll_home(animate=False)
        whole = await asyncio.to_thread(text) if callable(text) else text
        # Printable: data, never control sequences for the terminal.
        lines = await asyncio.to_thread(lambda: wrap_lines(printable(whole), width))
        for start in range(0, len(lines), PAGE):
            self.add(lines[start : start + PAGE])
            await asyncio.sleep(0)

    def add(self, lines: Iterable[str]) -> None:
        """Append wrapped lines (``wrap_lines``)."""
        # One string: ``Log.write_lines`` splits each item and would drop an empty one.
        self.write_lines(["".join(f"{line}\n" for line in lines)])
