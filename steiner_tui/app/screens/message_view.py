"""One message of a request, whole: its text and tool calls, as plain text, scrollable.

The request inspector's tables show a message's first line; Enter opens this view over them.
The text is shown as it was sent, never read as Markdown or markup, in lines drawn only where
they show (``TextLines``): a tool result can be hundreds of kilobytes.
"""

from __future__ import annotations

import json
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

from steiner_tui.app.widgets.inspector_format import count
from steiner_tui.app.widgets.text_lines import TextLines
from steiner_tui.engine.messages import Message, messages_bytes

__all__ = ["MessageScreen", "message_text"]


def message_text(message: Message) -> str:
    """The message's content, then each tool call with its arguments (indented JSON)."""
    parts = [message.content] if message.content else []
    for call in message.tool_calls:
        arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False)
        parts.append(f"→ {call.name} ({call.id})\n{arguments}")
    if message.tool_call_id:
        parts.insert(0, f"(result of {message.tool_call_id})")
    if message.images:
        parts.append(f"[{len(message.images)} image(s)]")
    return "\n\n".join(parts) or "(empty)"


class MessageScreen(ModalScreen[None]):
    """A message in full over the inspector; Escape (or q) goes back."""

    DEFAULT_CSS = """
    MessageScreen {
        align: center middle;
        background: $background 60%;
        #message-text {
            width: 100%;
            max-width: 140;
            height: 100%;
            max-height: 100%;
            border: round $border;
            border-title-color: $text-primary;
            border-subtitle-color: $text-muted;
            background: $surface;
            padding: 0 1;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back", id="message.close",
                tooltip="Back to the request"),
    ]  # fmt: skip
    """Escape or q closes the view."""

    def __init__(self, title: str, message: Message) -> None:
        super().__init__()
        self.heading = title
        self.message = message

    def compose(self) -> ComposeResult:
        lines = TextLines(id="message-text")
        lines.border_title = self.heading
        lines.border_subtitle = f"{count(messages_bytes([self.message]))} B · Esc to go back"
        yield lines

    def on_mount(self) -> None:
        self.query_one("#message-text").focus()
        self._show()

    @work(exclusive=True)
    async def _show(self) -> None:
        view = self.query_one("#message-text", TextLines)
        width = min(self.size.width, 140) - 6  # the view's border, padding and scrollbar
        await view.show(message_text(self.message), width)

    def action_close(self) -> None:
        """Back to the request."""
        self.dismiss(None)
