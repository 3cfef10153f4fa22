"""The prompt: a multi-line editor where Enter sends and Shift+Enter starts a new line.

Terminals report Shift+Enter as ``shift+enter`` only with the kitty keyboard protocol; many send
plain Enter, and some send ``ctrl+j`` (a line feed). Both ``shift+enter`` and ``ctrl+j`` insert a
newline, so there is always a key that works. Up on the first line and Down on the last line
browse the prompt history; elsewhere they move the cursor as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import TextArea

from steiner_tui.app.history import PromptHistory

__all__ = ["PromptEditor"]

PLACEHOLDER = "Ask about this project · Shift+Enter or Ctrl+J for a new line · /help"


class PromptEditor(TextArea):
    """The multi-line prompt with history."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "submit",
            "Send",
            id="prompt.submit",
            priority=True,
            tooltip="Send the prompt, or run a /command",
        ),
        Binding(
            "shift+enter,ctrl+j",
            "newline",
            "New line",
            id="prompt.newline",
            priority=True,
            show=False,
            tooltip="Insert a line break (Ctrl+J works in every terminal)",
        ),
    ]
    """Send and new-line keys (priority: they win over the editor's own Enter)."""

    @dataclass
    class Submitted(Message):
        """The user pressed Enter with some text."""

        editor: PromptEditor
        text: str

        @property
        def control(self) -> PromptEditor:
            """The prompt that sent it."""
            return self.editor

    def __init__(self, *, cursor_blink: bool = True, id: str | None = None) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            compact=True,
            highlight_cursor_line=False,
            placeholder=PLACEHOLDER,
        )
        self.cursor_blink = cursor_blink
        self.history = PromptHistory()
        """What was sent, for Up and Down."""

    def action_submit(self) -> None:
        """Post ``Submitted`` unless the prompt is blank (the screen decides what happens)."""
        if self.text.strip():
            self.post_message(self.Submitted(self, self.text))

    def action_newline(self) -> None:
        """Insert a line break at the cursor, replacing any selection."""
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def sent(self, text: str) -> None:
        """Record ``text`` in the history and empty the prompt."""
        self.history.push(text)
        self.clear()

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        """Up: the previous prompt when on the first line, else move the cursor."""
        if not select and self.cursor_at_first_line:
            entry = self.history.previous(self.text)
            if entry is not None:
                self._show(entry)
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down: the next prompt (then the draft) when on the last line, else move the cursor."""
        if not select and self.cursor_at_last_line:
            entry = self.history.next()
            if entry is not None:
                self._show(entry)
                return
        super().action_cursor_down(select)
