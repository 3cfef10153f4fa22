"""The conversation's top row when earlier messages are kept as data but not mounted."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import Static

__all__ = ["EarlierRow"]


class EarlierRow(Static):
    """Says how many entries are above; a click asks for more."""

    @dataclass
    class LoadRequested(Message):
        """The user asked to mount earlier entries."""

    def show_count(self, count: int) -> None:
        """Show ``count`` hidden entries; hidden itself when there are none."""
        self.display = count > 0
        self.update(f"▲ {count:,} earlier messages — press Home or PgUp at the top to load more")

    def on_click(self, event: events.Click) -> None:
        """A click loads more."""
        event.stop()
        self.post_message(self.LoadRequested())
