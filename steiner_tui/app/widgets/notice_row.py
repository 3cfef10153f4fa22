"""A one-line notice between messages (compaction, cleared conversation, errors)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import NoticeEntry

__all__ = ["NoticeRow"]


class NoticeRow(Static):
    """A notice (display only); its kind is a ``-<kind>`` class."""

    DEFAULT_CSS = """
    NoticeRow {
        color: $text-muted;
        text-align: center;
        &.-compaction {
            color: $text-accent;
        }
        &.-interrupted, &.-error {
            color: $text-error;
        }
    }
    """

    def __init__(self, entry: NoticeEntry) -> None:
        super().__init__(Content(printable(entry.text)), classes=f"conversation-item -{entry.kind}")
        self.entry = entry
        """The entry shown."""
