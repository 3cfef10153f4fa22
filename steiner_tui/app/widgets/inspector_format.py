"""Small text formatters shared by the request inspector and the lineage browser.

They turn engine values (messages, counts, times) into the short strings the tables show. Every
cell goes through ``cell`` so that text from the conversation is never read as Rich markup.
``fit_columns`` says which columns a table shows in the width it has (the sessions list too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path

from rich.text import Text

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.plain import one_line
from steiner_tui.units import count

__all__ = [
    "HEADER_ICON",
    "cell",
    "clock",
    "count",
    "first_line",
    "fit_columns",
    "message_line",
    "short_path",
]

HEADER_ICON = "≡"
"""The header icon of the inspector and lineage screens: a glyph every monospace font has."""


def cell(value: object, style: str = "") -> Text:
    """A DataTable cell showing ``value`` literally (never parsed as markup, control
    characters as symbols)."""
    return Text(one_line(str(value)), style=style, no_wrap=True, end="")


def fit_columns(
    widths: Mapping[str, int], room: int, give_way: Sequence[str], main: str, least: int
) -> tuple[list[str], int]:
    """The columns of ``widths`` (each as wide as its widest cell) to show in ``room`` cells,
    each taking two more for its padding: those of ``give_way`` dropped, in this order, while
    ``main`` would get fewer than ``least`` cells; and ``main``'s width, what the others leave
    (``least`` at least, its own width at most: it is cut with "…")."""
    shown = list(widths)
    least = min(widths[main], least)
    for column in give_way:
        if sum(widths[c] + 2 for c in shown if c != main) + least + 2 <= room:
            break
        shown.remove(column)
    left = room - sum(widths[c] + 2 for c in shown if c != main) - 2
    return shown, max(least, min(widths[main], left))


def clock(value: datetime | str | None, *, date: bool = False) -> str:
    """``HH:MM:SS`` in the local zone, as the app's own clock and the session lists say it
    (with the date when ``date``); an em dash when unknown. A string is an agent's ISO
    timestamp (Claude Code's and Codex's are UTC, ``Z``); one that is no date is shown as is."""
    if isinstance(value, str):
        text = value
        try:
            value = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return text or "—"
    if value is None:
        return "—"
    return value.astimezone().strftime("%Y-%m-%d %H:%M:%S" if date else "%H:%M:%S")


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


def short_path(path: str, width: int = 32) -> str:
    """``path`` with the home folder as ``~`` and, when long, only its trailing components."""
    home = str(Path.home())
    if path.startswith(home + "/"):
        path = "~" + path[len(home) :]
    if len(path) <= width:
        return path
    parts = path.split("/")
    kept = parts[-1]
    for part in reversed(parts[:-1]):
        if len(part) + len(kept) + 3 > width:
            break
        kept = f"{part}/{kept}"
    return "…/" + kept


def _skill_gist(content: str, width: int) -> str | None:
    """For a user message opening with skill envelopes: ``⟨name on, …⟩ text``; else None."""
    _, blocks, rest = split_skill_blocks(content)
    if not blocks:
        return None
    states = ", ".join(f"{b.name} {'on' if b.active else 'off'}" for b in blocks)
    return first_line(f"⟨{states}⟩ {first_line(rest, width)}".rstrip(), width)


def message_line(message: Message, width: int = 80) -> str:
    """A one-line gist of a message: its text, else its tool calls, else ``(empty)``.

    Leading skill envelopes of a user message are named, not shown.
    """
    if message.role == "user" and (gist := _skill_gist(message.content, width)) is not None:
        return gist
    if message.content.strip():
        return first_line(message.content, width)
    if message.tool_calls:
        calls = ", ".join(_call_gist(call) for call in message.tool_calls)
        return first_line(f"→ {calls}", width)
    if message.images:
        return f"[{len(message.images)} image(s)]"
    return "(empty)"
