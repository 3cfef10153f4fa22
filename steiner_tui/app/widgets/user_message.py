"""A sent message in the conversation: the text typed, with badges for what went with it.

It takes the focus (Tab, a click) so that ``p`` pins it; a pinned message starts with the pin
mark.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import UserEntry
from steiner_tui.app.widgets.reply import PIN_MARK

__all__ = ["UserMessage"]


def _content(entry: UserEntry, pinned: bool) -> Content:
    parts: list[Content | str | tuple[str, str]] = []
    if pinned:
        parts.extend([(f" {PIN_MARK} ", "$text-primary on $primary-muted"), " "])
    for badge in entry.badges:
        parts.extend([(f" {printable(badge)} ", "$text-accent on $accent-muted"), " "])
    if entry.badges or pinned:
        parts.append("\n")
    parts.append(Content(printable(entry.text)))
    return Content.assemble(*parts)


class UserMessage(Static, can_focus=True):
    """One user message (display only)."""

    DEFAULT_CSS = """
    UserMessage {
        padding: 0 1;
        background: $boost;
        border-left: thick $secondary;
        &:focus {
            border-left: thick $block-cursor-background;
            background: $block-cursor-blurred-background;
        }
    }
    """

    def __init__(self, entry: UserEntry, pinned: bool = False) -> None:
        super().__init__(_content(entry, pinned), classes="conversation-item")
        self.entry = entry
        """The entry shown."""
        self.pinned = pinned
        """Whether it shows the pin mark."""

    def show_pin(self, pinned: bool) -> None:
        """Show or take away the pin mark."""
        if pinned != self.pinned:
            self.pinned = pinned
            self.update(_content(self.entry, pinned))
