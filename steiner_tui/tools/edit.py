"""The ``edit`` tool: exact string replacement in one file (asks permission first).

The match must be exact and, unless ``replace_all`` is set, unique: an ambiguous edit is an
error that tells the model how many places matched, never a guess. Files with CRLF line endings
accept ``\\n`` in the strings (the replacement keeps the file's CRLF endings). The file is
written by ``safe_write`` (resolved again after the prompt, no symlink followed, and only
while the file still holds the text the change was made from).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import PATH_PARAMETER, binary_message, is_binary, load_file
from steiner_tui.tools.guards import ask_permission, change_preview, writable_target
from steiner_tui.tools.safe_write import write_inside
from steiner_tui.units import counted

__all__ = ["EditTool"]

_DEFINITION = ToolDefinition(
    name="edit",
    description=(
        "Replace an exact string in a file. `old_string` must match the file exactly "
        "(including indentation) and only once, unless `replace_all` is true; include enough "
        "surrounding lines to make it unique. In plan mode only files under .steiner/plans/ "
        "can be edited. Asks the user for permission."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "old_string": {"type": "string", "description": "The exact text to replace."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
            "replace_all": {
                "type": "boolean",
                "description": "Replace every occurrence instead of requiring a unique match.",
            },
        },
        "required": ["path", "old_string", "new_string"],
    },
)


class EditTool:
    """Edits files by exact replacement; asks permission and honours the plan-mode fence."""

    definition = _DEFINITION
    read_only = False

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        given = str(arguments["path"])
        old = str(arguments["old_string"])
        new = str(arguments["new_string"])
        replace_all = bool(arguments.get("replace_all", False))
        target = writable_target(ctx, "edit", given)
        if isinstance(target, ToolResult):
            return target
        if not old:
            return failed("old_string must not be empty; use write to create a file")
        if old == new:
            return failed("old_string and new_string are identical; nothing to change")
        data = await asyncio.to_thread(load_file, target, "edit")
        if isinstance(data, str):
            return failed(data)
        if is_binary(data):
            return failed(binary_message("edit", given, len(data)))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return failed(f"cannot edit {given}: not valid UTF-8 text")
        count = text.count(old)
        if count == 0 and "\r\n" in text and "\r\n" not in old:
            old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
            count = text.count(old)
        if count == 0:
            return failed(f"old_string not found in {given}")
        if count > 1 and not replace_all:
            return failed(
                f"old_string matches {count} places in {given}; add context to make it "
                "unique or set replace_all"
            )
        summary = f"edit {target.relative}: replace {counted(count, 'occurrence')}"
        updated = text.replace(old, new) if replace_all else text.replace(old, new, 1)
        preview = await asyncio.to_thread(change_preview, text, updated)
        rejection = await ask_permission(ctx, "edit", summary, arguments, preview)
        if rejection is not None:
            return rejection
        shown = data
        data = updated.encode("utf-8")
        error = await asyncio.to_thread(write_inside, ctx.project_root, target, data, "edit", shown)
        if error:
            return failed(error)
        return ToolResult(
            content=f"Edited {target.relative}: replaced {counted(count, 'occurrence')}.",
            data={"path": target.relative, "replacements": count},
        )
