"""The built-in tool set and its byte-stable definitions.

``default_tools`` is the list a session starts with, sorted by name; its definitions are part of
the cacheable prefix, so they are built from constants only (no paths, no clock, no environment)
and are the same bytes in every call and every process.
"""

from __future__ import annotations

from steiner_tui.tools.base import Tool
from steiner_tui.tools.bash import BashTool
from steiner_tui.tools.display_file import DisplayFileTool
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.glob import GlobTool
from steiner_tui.tools.grep import GrepTool
from steiner_tui.tools.read import ReadTool
from steiner_tui.tools.write import WriteTool

__all__ = ["ToolExecutor", "default_tools", "read_only_tools"]


def default_tools() -> tuple[Tool, ...]:
    """The built-in tools, sorted by name."""
    tools: list[Tool] = [
        BashTool(),
        DisplayFileTool(),
        EditTool(),
        GlobTool(),
        GrepTool(),
        ReadTool(),
        WriteTool(),
    ]
    return tuple(sorted(tools, key=lambda tool: tool.definition.name))


def read_only_tools() -> tuple[Tool, ...]:
    """The built-in tools that never change anything (what the offline model may call)."""
    return tuple(tool for tool in default_tools() if tool.read_only)
