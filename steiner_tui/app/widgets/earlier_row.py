"""The conversation's top row while earlier messages are kept as data but not shown."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static

__all__ = ["EarlierRow"]


class EarlierRow(Static):
    """Says how many entries are above; a click shows the ones before."""

    class LoadRequested(Message):
        """The user asked for the entries before."""

    def show_count(self, count: int) -> None:
        """Show ``count`` hidden entries; hidden itself when there are none."""
        self.display = count > 0
        self.update(f"▲ {count:,} earlier messages · PgUp for more · Home again for the first")

    def on_click(self, event: events.Click) -> None:
        """A click shows the entries before."""
        event.stop()
        self.post_message(self.LoadRequested())
