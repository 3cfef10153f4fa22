"""A notice between messages (compaction, cleared conversation, errors, a command's answer);
one line is centred, a list of lines reads from the left."""

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
        &.-warning {
            color: $text-warning;
        }
        &.-lines {
            text-align: left;
            padding: 0 2;
        }
    }
    """

    def __init__(self, entry: NoticeEntry) -> None:
        lines = " -lines" if "\n" in entry.text else ""  # a list reads from the left
        classes = f"conversation-item -{entry.kind}{lines}"
        super().__init__(Content(printable(entry.text)), classes=classes)
        self.entry = entry
        """The entry shown."""
