"""Turns for retention: where a compaction stage cuts the conversation.

Compaction keeps the most recent turns verbatim and summarizes everything before them. A turn
starts at every user message, and at an assistant message when the current turn already holds an
assistant message; tool results and other roles join the current turn. So a tool-heavy reply
(assistant, tool, assistant, tool, ...) counts one turn per model step, and a tool result is never
separated from the call before it. Anything before the first user message (an earlier summary)
forms a turn of its own. A pending sub-agents line never counts as a turn when a stage chooses
what to keep (``retention_turns``).
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.engine.compaction.retention import is_pending_sub_agents_message
from steiner_tui.engine.messages import Message

__all__ = [
    "EMERGENCY_RETAINED_TURNS",
    "NORMAL_RETAINED_TURNS",
    "retain_recent_turns",
    "retention_turns",
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


def retention_turns(messages: Sequence[Message]) -> list[list[Message]]:
    """``split_compaction_turns``, with each pending sub-agents line joined to the turn before.

    The pending line is compaction's own note, not a turn of the conversation: counted as one,
    it would take the place of a real retained turn (and then be dropped as stale), so the
    emergency stage would keep nothing of the real last turn.
    """
    turns: list[list[Message]] = []
    for turn in split_compaction_turns(messages):
        if turns and is_pending_sub_agents_message(turn[0]):
            turns[-1] = turns[-1] + turn
        else:
            turns.append(turn)
    return turns


def split_for_retention(
    messages: Sequence[Message], keep_turns: int
) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """Cut ``messages`` into (summarized part, retained tail) keeping ``keep_turns`` turns.

    Args:
        messages: the active conversation, oldest first.
        keep_turns: how many recent turns to retain (pending sub-agents lines do not count);
            0 or less retains nothing.

    Returns:
        ``(summarized, retained)``; ``summarized + retained == tuple(messages)``.
    """
    turns = retention_turns(messages)
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
