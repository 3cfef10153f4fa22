"""The tools the model can call (read, write, edit, bash, grep, glob, display_file, delegate).

Tools implement the ``Tool`` protocol of ``base.py``; the runner runs them through
``ToolExecutor`` with the session's ``PermissionPolicy``. This package may import the engine,
never the other way round.
"""

from steiner_tui.tools.base import (
    Mode,
    PermissionCallback,
    PermissionDecision,
    PermissionRequest,
    Tool,
    ToolContext,
    ToolResult,
    ToolStatus,
    failed,
    reject_all,
    rejected,
    result_message,
)
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy, PermissionRule
from steiner_tui.tools.registry import default_tools, read_only_tools

__all__ = [
    "Mode",
    "PermissionCallback",
    "PermissionDecision",
    "PermissionPolicy",
    "PermissionRequest",
    "PermissionRule",
    "Tool",
    "ToolContext",
    "ToolExecutor",
    "ToolResult",
    "ToolStatus",
    "default_tools",
    "failed",
    "read_only_tools",
    "reject_all",
    "rejected",
    "result_message",
]
