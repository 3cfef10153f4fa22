"""A sent message in the conversation: the text typed, with badges for what went with it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import UserEntry

__all__ = ["UserMessage"]


def _content(entry: UserEntry) -> Content:
    parts: list[Content | str | tuple[str, str]] = []
    for badge in entry.badges:
        parts.extend([(f" {printable(badge)} ", "$text-accent on $accent-muted"), " "])
    if entry.badges:
        parts.append("\n")
    parts.append(Content(printable(entry.text)))
    return Content.assemble(*parts)


class UserMessage(Static):
    """One user message (display only)."""

    def __init__(self, entry: UserEntry) -> None:
        super().__init__(_content(entry), classes="conversation-item")
        self.entry = entry
        """The entry shown."""
