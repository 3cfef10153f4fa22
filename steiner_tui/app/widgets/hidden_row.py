"""The conversation's rows above and below the entries it shows, while more are kept as data.

A long conversation mounts widgets for one run of its entries (``ConversationPane``); the row
above the run says how many entries come before it, the row below how many come after it
(while reading back). A click on the first shows the page before, on the second the newest.
"""

from __future__ import annotations

from typing import Literal

from textual import events
from textual.message import Message
from textual.widgets import Static

__all__ = ["HiddenRow", "Side"]

Side = Literal["earlier", "later"]

_TEXTS: dict[Side, str] = {
    "earlier": "▲ {count:,} earlier messages · PgUp for more · Home again for the first",
    "later": "▼ {count:,} later messages · PgDn for more · End for the newest",
}


class HiddenRow(Static):
    """Says how many entries are kept on its ``side`` of the shown run; its id is the side."""

    class Clicked(Message):
        """The person asked for the entries on the row's side."""

        def __init__(self, row: HiddenRow) -> None:
            self.row = row
            super().__init__()

        @property
        def control(self) -> HiddenRow:
            """The row clicked."""
            return self.row

    def __init__(self, side: Side) -> None:
        super().__init__(id=side)
        self.side: Side = side
        """Above the shown run (``earlier``) or below it (``later``)."""

    def show_count(self, count: int) -> None:
        """Show ``count`` entries kept on this side; hidden itself when there are none."""
        self.display = count > 0
        self.update(_TEXTS[self.side].format(count=count))

    def on_click(self, event: events.Click) -> None:
        """A click asks for the entries on this side."""
        event.stop()
        self.post_message(self.Clicked(self))
