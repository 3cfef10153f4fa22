"""The conversation's bottom row while the newest entries are not shown (reading back)."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static

__all__ = ["LaterRow"]


class LaterRow(Static):
    """Says how many entries are below; a click jumps to the newest."""

    class JumpRequested(Message):
        """The user asked for the newest entries."""

    def show_count(self, count: int) -> None:
        """Show ``count`` later entries not shown; hidden itself when there are none."""
        self.display = count > 0
        self.update(f"▼ {count:,} later messages · PgDn for more · End for the newest")

    def on_click(self, event: events.Click) -> None:
        """A click jumps to the newest entries."""
        event.stop()
        self.post_message(self.JumpRequested())
