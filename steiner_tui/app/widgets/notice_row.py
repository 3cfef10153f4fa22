"""A notice between messages (compaction, cleared conversation, errors, a command's answer);
one line is centred, a notice that wraps or lists lines reads from the left."""

from __future__ import annotations

from textual import events
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
        self._text = Content(printable(entry.text))
        self._list = "\n" in entry.text
        lines = " -lines" if self._list else ""
        super().__init__(self._text, classes=f"conversation-item -{entry.kind}{lines}")
        self.entry = entry
        """The entry shown."""

    def on_resize(self, event: events.Resize) -> None:
        # A centred paragraph reads oddly (each line centred on its own): wrapped, it reads
        # from the left like a list.
        self.set_class(self._list or self._text.cell_length > self.outer_size.width, "-lines")
