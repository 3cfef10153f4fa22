"""Durable context state: recent tool calls, the file tracker, and read dedup.

Everything here is pure: it reads messages and returns new values, never doing I/O
(docs/design.md, "14. Durable context state").
"""

from steiner_tui.engine.state.context_state import ContextState, build_context_state
from steiner_tui.engine.state.file_tracker import (
    FileTracker,
    apply_read_dedup,
    dedup_read_result,
    observe_tool_result,
)
from steiner_tui.engine.state.read_results import line_cap_marker, parse_read_result
from steiner_tui.engine.state.recent_calls import (
    go_sprint,
    summarize_recent_tool_calls,
    summarize_tool_call,
)

__all__ = [
    "ContextState",
    "build_context_state",
    "FileTracker",
    "apply_read_dedup",
    "dedup_read_result",
    "observe_tool_result",
    "line_cap_marker",
    "parse_read_result",
    "go_sprint",
    "summarize_recent_tool_calls",
    "summarize_tool_call",
]
