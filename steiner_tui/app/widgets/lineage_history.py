"""The history archive (``history.md``) as a scrollable Markdown view inside the lineage browser.

Compaction appends every summarized turn to the archive, so the words a summary dropped stay
readable. The lineage screen reads the file and hands the text over; this widget only shows it.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown

from steiner_tui.plain import one_line, printable

__all__ = ["HistoryView"]


class HistoryView(VerticalScroll):
    """The archive's Markdown, scrollable; hidden until the screen opens it."""

    def compose(self) -> ComposeResult:
        yield Markdown(id="history-markdown")

    async def show_archive(self, path: Path, text: str) -> None:
        """Render ``text`` (the contents of ``path``) and scroll to the top."""
        self.border_title = Content(f"History archive · {one_line(path.name)}")
        self.border_subtitle = "h or Esc to return"
        await self.query_one("#history-markdown", Markdown).update(printable(text))
        self.scroll_home(animate=False)
