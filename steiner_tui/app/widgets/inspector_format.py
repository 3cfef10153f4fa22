"""Small text formatters shared by the request inspector and the lineage browser.

They turn engine values (messages, counts, times) into the short strings the tables show. Every
cell goes through ``cell`` so that text from the conversation is never read as Rich markup.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from steiner_tui.engine.messages import Message, ToolCall

__all__ = ["cell", "clock", "count", "first_line", "message_line"]


def cell(value: object, style: str = "") -> Text:
    """A DataTable cell showing ``value`` literally (never parsed as markup)."""
    return Text(str(value), style=style, no_wrap=True, end="")


def count(value: int) -> str:
    """An integer with thousands separators (``12,345``)."""
    return f"{value:,}"


def clock(value: datetime | None, *, date: bool = False) -> str:
    """``HH:MM:SS`` (with the date when ``date``), or an em dash when unknown."""
    if value is None:
        return "—"
    return value.strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")


def first_line(text: str, width: int = 80) -> str:
    """The first non-blank line of ``text``, cut to ``width`` characters with an ellipsis."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def _call_gist(call: ToolCall) -> str:
    arguments = call.arguments or {}
    for key in ("command", "path", "pattern"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return f"{call.name} {first_line(value, 60)}"
    return call.name


def message_line(message: Message, width: int = 80) -> str:
    """A one-line gist of a message: its text, else its tool calls, else ``(empty)``."""
    if message.content.strip():
        return first_line(message.content, width)
    if message.tool_calls:
        calls = ", ".join(_call_gist(call) for call in message.tool_calls)
        return first_line(f"→ {calls}", width)
    if message.images:
        return f"[{len(message.images)} image(s)]"
    return "(empty)"
