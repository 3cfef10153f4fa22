"""``ContextState``: the durable state carried across compaction, rebuilt every turn.

It holds the recent tool calls of the latest generation and the run's turn count. The runner
rebuilds it before every model call and hands it to compaction, whose summary instruction
carries it (``render_context_state``), so the summary keeps what the model was just doing. The
summary is not here (it lives in the active generation's summary prefix) and neither is file
tracking (``FileTracker``, rebuilt from read results, which feeds read dedup).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.state.recent_calls import summarize_recent_tool_calls

__all__ = [
    "CONTEXT_STATE_HEADER",
    "ContextState",
    "build_context_state",
    "render_context_state",
]

CONTEXT_STATE_HEADER = "Context state at this point (keep it in the summary):"
"""Opens the context state's part of a summary instruction."""

RECENT_TOOL_CALLS_LIMIT = 3


class ContextState(msgspec.Struct, frozen=True):
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


def render_context_state(state: ContextState) -> str:
    """The context state as a summary instruction carries it ("" when there is nothing).

    Example::

        Context state at this point (keep it in the summary):
        Turns so far: 7
        Recent tool calls (oldest first):
        - read path=src/a.py, offset=10, limit=2
    """
    if state.turn_count <= 0 and not state.recent_tool_calls:
        return ""
    lines = [CONTEXT_STATE_HEADER, f"Turns so far: {state.turn_count}"]
    if state.recent_tool_calls:
        lines.append("Recent tool calls (oldest first):")
        lines += [f"- {call}" for call in state.recent_tool_calls]
    return "\n".join(lines)
