"""A sent message in the conversation: the text typed, with badges for what went with it.

It takes the focus (Tab, a click) so that ``p`` pins it; a pinned message starts with the pin
mark. A message over ``PASTE_LINES`` lines (a paste) shows collapsed, its first line and
``[pasted 600 lines]``; Enter or a click shows it whole, and again collapses it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.paste import PASTE_LINES, line_count
from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import UserEntry
from steiner_tui.app.widgets.reply import PIN_MARK

__all__ = ["UserMessage"]


_HEAD = 80
"""Characters of its first line a collapsed message shows."""


def _text(text: str, collapsed: bool) -> Content:
    if not collapsed:
        return Content(printable(text))
    head = printable(text.split("\n", 1)[0])
    head = head if len(head) <= _HEAD else f"{head[: _HEAD - 1]}…"
    return Content.assemble(
        head, "\n", (f"[pasted {line_count(text):,} lines]", "$text-accent"), " Enter expands"
    )


def _content(entry: UserEntry, pinned: bool, collapsed: bool = False) -> Content:
    parts: list[Content | str | tuple[str, str]] = []
    if pinned:
        parts.extend([(f" {PIN_MARK} ", "$text-primary on $primary-muted"), " "])
    for badge in entry.badges:
        parts.extend([(f" {printable(badge)} ", "$text-accent on $accent-muted"), " "])
    if (entry.badges or pinned) and entry.text:
        parts.append("\n")
    parts.append(_text(entry.text, collapsed))
    return Content.assemble(*parts)


class UserMessage(Static, can_focus=True):
    """One user message (display only; a long one collapses)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "toggle_paste",
            "Expand",
            id="user_message.toggle_paste",
            tooltip="Show a collapsed paste whole, or collapse it again",
        ),
    ]

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
        collapsed = line_count(entry.text) > PASTE_LINES
        super().__init__(_content(entry, pinned, collapsed), classes="conversation-item")
        self.entry = entry
        """The entry shown."""
        self.pinned = pinned
        """Whether it shows the pin mark."""
        self.collapsed = collapsed
        """Whether a long message shows only its first line and its line count."""

    def show_pin(self, pinned: bool) -> None:
        """Show or take away the pin mark."""
        if pinned != self.pinned:
            self.pinned = pinned
            self.update(_content(self.entry, pinned, self.collapsed))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter expands only a message long enough to collapse."""
        if action == "toggle_paste":
            return line_count(self.entry.text) > PASTE_LINES
        return super().check_action(action, parameters)

    def action_toggle_paste(self) -> None:
        """Show the whole message, or collapse it again."""
        self.collapsed = not self.collapsed
        self.update(_content(self.entry, self.pinned, self.collapsed))

    def on_click(self) -> None:
        """A click toggles a long message too."""
        if line_count(self.entry.text) > PASTE_LINES:
            self.action_toggle_paste()
