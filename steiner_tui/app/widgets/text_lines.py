"""The history archive (``history.md``) as a line-based view inside the lineage browser.

Compaction appends every summarized turn to the archive, so the words a summary dropped stay
readable. An archive grows without bound (200 KB after a day's work), so it is shown as its
Markdown source in a ``Log``, which draws only the lines on screen: a ``Markdown`` widget made
one widget per block and froze the browser for a minute opening it. Section headings
(``### User``) stand out; long lines are wrapped to the view's width by ``wrap_archive``, which
the screen runs in a thread before handing the lines over a page at a time.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import ClassVar

from rich.highlighter import Highlighter
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.widgets import Log

__all__ = ["HistoryView", "wrap_archive"]

_RETURN = "h or Esc to return"


def _indent(line: str) -> str:
    """The indent of a wrapped line's continuation: under the text of a list item."""
    stripped = line.lstrip(" ")
    lead = len(line) - len(stripped)
    marker = next((m for m in ("- ", "* ", "+ ") if stripped.startswith(m)), "")
    return " " * (lead + len(marker))


def wrap_archive(text: str, width: int) -> list[str]:
    """The archive's lines, each at most ``width`` characters (list items indented)."""
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
    """Styles the archive's ``#`` headings with the view's heading component style."""

    def __init__(self, style: Callable[[], Style]) -> None:
        self.style = style

    def highlight(self, text: Text) -> None:
        if text.plain.startswith("#"):
            text.stylize(self.style())


class HistoryView(Log):
    """The archive's lines, scrollable; hidden until the screen opens it."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"history-view--heading"}
    """The style of a section heading."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(highlight=True, auto_scroll=False, id=id)
        self.highlighter = _Headings(lambda: self.get_component_rich_style("history-view--heading"))

    def begin(self, path: Path) -> None:
        """Empty the view and say that ``path`` is loading."""
        self.clear()
        self.border_title = Content(f"History archive · {path.name}")
        self.border_subtitle = f"loading {path.name}… · {_RETURN}"
        self.scroll_home(animate=False)

    def add(self, lines: Iterable[str]) -> None:
        """Append a page of wrapped lines (``wrap_archive``)."""
        # One string: ``Log.write_lines`` splits each item and would drop an empty one.
        self.write_lines(["".join(f"{line}\n" for line in lines)])

    def loaded(self) -> None:
        """Say the archive is all there."""
        self.border_subtitle = _RETURN
