"""``ContextState``: the durable state carried across compaction, rebuilt every turn.

It holds the recent tool calls of the latest generation and the run's turn count. The summary
is not here (it lives in the active generation's summary prefix) and neither is file tracking
(``FileTracker``, rebuilt from read results).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from steiner_tui.engine.messages import Message
from steiner_tui.engine.state.recent_calls import summarize_recent_tool_calls

__all__ = ["RECENT_TOOL_CALLS_LIMIT", "ContextState", "build_context_state"]

RECENT_TOOL_CALLS_LIMIT = 3


@dataclass(frozen=True, slots=True)
class ContextState:
    """Recent tool call summaries (oldest first) and the turn count of the run."""

    recent_tool_calls: tuple[str, ...] = ()
    turn_count: int = 0


def build_context_state(
    messages: Sequence[Message], turn_count: int, cwd: str = ""
) -> ContextState:
    """The context state for a turn.

    Args:
        messages: The latest lineage generation's messages.
        turn_count: The run's turn count.
        cwd: The absolute working directory for redacting paths and commands.
    """
    recent = summarize_recent_tool_calls(messages, RECENT_TOOL_CALLS_LIMIT, cwd)
    return ContextState(recent_tool_calls=tuple(recent), turn_count=turn_count)
