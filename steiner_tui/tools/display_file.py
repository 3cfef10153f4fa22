"""The ``display_file`` tool: show a file (or a line range) to the user, not to the model.

The model uses it to point the user at code. The text goes in ``ToolResult.display`` for the UI;
the model gets a one-line acknowledgement, and the call is omitted from the history archive.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import (
    PATH_PARAMETER,
    binary_message,
    is_binary,
    load_file,
    resolve_in_root,
    split_lines,
)

__all__ = ["DisplayFileTool", "display_file"]

_DEFINITION = ToolDefinition(
    name="display_file",
    description=(
        "Show a file, or a range of its lines, to the user in the interface. The content is "
        "not returned to you; use `read` to see a file yourself."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "start_line": {
                "type": "integer",
                "minimum": 1,
                "description": "First line to show, 1-based (default 1).",
            },
            "end_line": {
                "type": "integer",
                "minimum": 1,
                "description": "Last line to show, inclusive (default: the end of the file).",
            },
        },
        "required": ["path"],
    },
)


class DisplayFileTool:
    """Shows files to the user; never changes anything."""

    definition = _DEFINITION
    read_only = True

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(
            display_file,
            ctx.project_root,
            str(arguments["path"]),
            arguments.get("start_line"),
            arguments.get("end_line"),
        )


def display_file(
    root: Path, given: str, start_line: int | None = None, end_line: int | None = None
) -> ToolResult:
    """The display result for ``given`` (lines ``start_line``..``end_line``, inclusive)."""
    target = resolve_in_root(root, given, "display")
    if isinstance(target, str):
        return failed(target)
    data = load_file(target, "display")
    if isinstance(data, str):
        return failed(data)
    if is_binary(data):
        return failed(binary_message("display", given, len(data)))
    lines = split_lines(data.decode("utf-8", errors="replace"))
    total = len(lines)
    start = start_line or 1
    end = min(end_line or total, total)
    if total and start > total:
        return failed(f"cannot display {given}: start_line {start} is past the end ({total} lines)")
    if end_line is not None and end_line < start:
        return failed(f"cannot display {given}: end_line {end_line} is before start_line {start}")
    if not total:
        start = end = 0
    shown = "\n".join(lines[start - 1 : end]) if total else ""
    return ToolResult(
        content=f"Displayed {target.relative} (lines {start}-{end} of {total}) to the user.",
        data={"path": target.relative, "startLine": start, "endLine": end, "totalLines": total},
        display=shown,
    )
