"""Durable context state: recent tool calls, the file tracker, and read dedup.

Everything here is pure: it reads messages and returns new values, never doing I/O
(docs/design.md, "14. Durable context state").
"""

from steiner_tui.engine.state.context_state import (
    CONTEXT_STATE_HEADER,
    RECENT_TOOL_CALLS_LIMIT,
    ContextState,
    build_context_state,
    render_context_state,
)
from steiner_tui.engine.state.file_tracker import (
    READ_TOOL_NAME,
    FileTracker,
    TrackedRead,
    apply_read_dedup,
    dedup_read_result,
    normalize_read_path,
    observe_tool_result,
)
from steiner_tui.engine.state.read_results import (
    FILE_UNCHANGED_PREFIX,
    LINE_CAP_MARKER_PREFIX,
    ReadResult,
    file_unchanged_note,
    line_cap_marker,
    parse_read_result,
)
from steiner_tui.engine.state.recent_calls import (
    SUMMARY_KEYS,
    go_sprint,
    summarize_recent_tool_calls,
    summarize_tool_call,
)

__all__ = [
    "CONTEXT_STATE_HEADER",
    "FILE_UNCHANGED_PREFIX",
    "LINE_CAP_MARKER_PREFIX",
    "READ_TOOL_NAME",
    "RECENT_TOOL_CALLS_LIMIT",
    "SUMMARY_KEYS",
    "ContextState",
    "FileTracker",
    "ReadResult",
    "TrackedRead",
    "apply_read_dedup",
    "build_context_state",
    "dedup_read_result",
    "file_unchanged_note",
    "go_sprint",
    "line_cap_marker",
    "normalize_read_path",
    "observe_tool_result",
    "parse_read_result",
    "render_context_state",
    "summarize_recent_tool_calls",
    "summarize_tool_call",
]
