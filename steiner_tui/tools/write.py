"""The ``write`` tool: create or overwrite a file inside the project (asks permission first;
a write of the text the file already holds neither asks nor writes).

The file is written by ``safe_write``: resolved again after the prompt, no symlink followed,
never a hard-linked file or steiner-tui's own configuration.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from steiner_tui.engine.tool_results import NOTHING_WRITTEN
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import PATH_PARAMETER, ResolvedPath, load_file
from steiner_tui.tools.guards import ask_permission, change_preview, writable_target
from steiner_tui.tools.safe_write import UNCHECKED, write_inside

__all__ = ["WriteTool"]

_DEFINITION = ToolDefinition(
    name="write",
    description=(
        "Write a file in the project, replacing it if it exists; parent folders are created. "
        "Prefer `edit` for changing part of an existing file. In plan mode only files under "
        ".steiner/plans/ can be written. Asks the user for permission."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "content": {"type": "string", "description": "The complete new file content."},
        },
        "required": ["path", "content"],
    },
)


class WriteTool:
    """Writes whole files; asks permission and honours the plan-mode fence."""

    definition = _DEFINITION
    read_only = False

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        given = str(arguments["path"])
        content = str(arguments["content"])
        target = writable_target(ctx, "write", given)
        if isinstance(target, ToolResult):
            return target
        if target.path.is_dir():
            return failed(f"cannot write {given}: is a directory")
        data = content.encode("utf-8")
        replaced, preview, shown = await asyncio.to_thread(_compared, target, data, content)
        if replaced is None:  # nothing would change: no write, and nothing to ask about
            return ToolResult(
                content=f"{target.relative} already holds this text ({len(data)} bytes)"
                + NOTHING_WRITTEN,
                data={"path": target.relative, "bytes": len(data), "created": False},
            )
        summary = f"write {target.relative} ({len(data):,} bytes{replaced})"
        rejection = await ask_permission(ctx, "write", summary, arguments, preview)
        if rejection is not None:
            return rejection
        created = not target.path.exists()
        error = await asyncio.to_thread(
            write_inside, ctx.project_root, target, data, "write", shown
        )
        if error:
            return failed(error)
        note = " (new file)" if created else ""
        return ToolResult(
            content=f"Wrote {len(data)} bytes to {target.relative}{note}.",
            data={"path": target.relative, "bytes": len(data), "created": created},
        )


def _compared(target: ResolvedPath, data: bytes, content: str) -> tuple[str | None, str, object]:
    """What writing ``content`` (``data``, its UTF-8) does to ``target``, for the permission
    request: the summary's words for the file there (None: the file holds this text already),
    the diff (``change_preview``) and what the file held (``write_inside``'s ``shown``). Reads
    the file: call it in a thread."""
    existing = load_file(target, "write") if target.path.exists() else None
    if existing == data:
        return None, "", existing
    if isinstance(existing, bytes):
        replaced = f", replacing its {len(existing):,}"
        preview = change_preview(existing.decode("utf-8", errors="replace"), content)
        return replaced, preview, existing
    if existing is None:
        return ", a new file", change_preview(None, content), None
    # Too large to read: the new text shown as all added, and nothing to compare it with.
    return ", replacing a file too large to compare", change_preview(None, content), UNCHECKED
