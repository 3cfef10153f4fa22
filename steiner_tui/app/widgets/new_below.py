"""The conversation's "new messages below" marker, fixed at the bottom of the view.

Output that arrives while the person reads further up (after PgUp, the wheel, or Tab onto a
tool block) does not move the view; this row says how much came in and jumps to the end on a
click (End does the same).
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static

__all__ = ["NewBelowMarker"]


class NewBelowMarker(Static):
    """Counts the entries that arrived below the view; hidden while there are none."""

    DEFAULT_CSS = """
    NewBelowMarker {
        dock: bottom;
        display: none;
        width: 100%;
        height: 1;
        text-align: center;
        color: $text-accent;
        background: $boost;
        pointer: pointer;
        &:hover { background: $block-hover-background; }
    }
    """

    class JumpRequested(Message):
        """The person asked for the end of the conversation."""

    def show_count(self, count: int) -> None:
        """Show ``count`` new entries below (hidden at 0)."""
        self.display = count > 0
        if count:
            noun = "message" if count == 1 else "messages"
            self.update(f"▼ {count:,} new {noun} below · End or click to jump")

    def on_click(self, event: events.Click) -> None:
        """A click jumps to the end."""
        event.stop()
        self.post_message(self.JumpRequested())
