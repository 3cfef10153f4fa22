"""Turns for retention: where a compaction stage cuts the conversation.

Compaction keeps the most recent turns verbatim and summarizes everything before them. A turn
starts at every user message, and at an assistant message when the current turn already holds an
assistant message; tool results and other roles join the current turn. So a tool-heavy reply
(assistant, tool, assistant, tool, ...) counts one turn per model step, and a tool result is never
separated from the call before it. Anything before the first user message (an earlier summary)
forms a turn of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.engine.messages import Message

__all__ = [
    "EMERGENCY_RETAINED_TURNS",
    "NORMAL_RETAINED_TURNS",
    "retain_recent_turns",
    "split_compaction_turns",
    "split_for_retention",
]

NORMAL_RETAINED_TURNS = 3
"""Turns the normal stage keeps verbatim."""

EMERGENCY_RETAINED_TURNS = 1
"""Turns the emergency stage keeps verbatim."""


def split_compaction_turns(messages: Sequence[Message]) -> list[list[Message]]:
    """Group ``messages`` into retention turns, oldest first.

    Args:
        messages: the active conversation, oldest first.

    Returns:
        The turns; concatenated they give ``messages`` back unchanged.
    """
    turns: list[list[Message]] = []
    current: list[Message] = []
    has_assistant = False
    for message in messages:
        starts = message.role == "user" or (message.role == "assistant" and has_assistant)
        if starts and current:
            turns.append(current)
            current = []
            has_assistant = False
        current.append(message)
        if message.role == "assistant":
            has_assistant = True
    if current:
        turns.append(current)
    return turns


def split_for_retention(
    messages: Sequence[Message], keep_turns: int
) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """Cut ``messages`` into (summarized part, retained tail) keeping ``keep_turns`` turns.

    Args:
        messages: the active conversation, oldest first.
        keep_turns: how many recent turns to retain; 0 or less retains nothing.

    Returns:
        ``(summarized, retained)``; ``summarized + retained == tuple(messages)``.
    """
    turns = split_compaction_turns(messages)
    keep = max(0, min(keep_turns, len(turns)))
    cut = sum(len(turn) for turn in turns[: len(turns) - keep])
    items = tuple(messages)
    return items[:cut], items[cut:]


def retain_recent_turns(messages: Sequence[Message], n: int) -> list[Message]:
    """The messages of the ``n`` most recent turns (all of them when there are fewer turns).

    Args:
        messages: the active conversation, oldest first.
        n: turns to keep; 0 or less keeps nothing.

    Returns:
        The retained tail, oldest first.
    """
    return list(split_for_retention(messages, n)[1])
