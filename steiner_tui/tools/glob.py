"""The ``glob`` tool: list project files matching a pattern such as ``**/*.py``, sorted.

Patterns are matched against paths relative to the search folder (``*`` stays within one folder,
``**`` crosses folders). The same skips as ``grep`` apply; results are capped at 500 paths.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import resolve_in_root
from steiner_tui.tools.shaping import keep_first_lines
from steiner_tui.tools.walk import glob_to_regex, load_ignore_rules, walk_files

__all__ = ["PATH_CAP", "GlobTool", "glob_files"]

PATH_CAP = 500

_DEFINITION = ToolDefinition(
    name="glob",
    description=(
        "Find files by name pattern, e.g. `**/*.py` or `src/*.ts`. `*` matches within one "
        f"folder, `**` across folders. Returns sorted paths relative to the project root, at "
        f"most {PATH_CAP}. Skips .git, .venv, node_modules and files ignored by the root "
        ".gitignore."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The glob pattern to match."},
            "path": {
                "type": "string",
                "description": "Folder to search from, relative to the project root "
                "(default: the project root).",
            },
        },
        "required": ["pattern"],
    },
)


class GlobTool:
    """Lists matching files; never changes anything."""

    definition = _DEFINITION
    read_only = True

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        result = await asyncio.to_thread(
            glob_files,
            ctx.project_root,
            str(arguments["pattern"]),
            str(arguments.get("path") or "."),
        )
        return keep_first_lines(result, ctx.output_chars, ctx.results, ctx.call_id, "path list")


def glob_files(root: Path, pattern: str, path: str = ".") -> ToolResult:
    """Files under ``path`` whose path relative to it matches ``pattern``."""
    cleaned = pattern.strip().removeprefix("./")
    if not cleaned:
        return failed("pattern must not be empty")
    target = resolve_in_root(root, path, "search")
    if isinstance(target, str):
        return failed(target)
    if not target.path.is_dir():
        return failed(f"cannot search {path}: not a folder")
    regex = re.compile(glob_to_regex(cleaned) + r"\Z")
    base = target.path.resolve()
    found = sorted(
        relative
        for file, relative in walk_files(root, base, load_ignore_rules(root))
        if regex.match(file.relative_to(base).as_posix())
    )
    if not found:
        return ToolResult(content=f"No files match {pattern}", data={"count": 0})
    truncated = len(found) > PATH_CAP
    lines = found[:PATH_CAP]
    if truncated:
        lines.append(f"[... truncated at {PATH_CAP} of {len(found)} paths; narrow the pattern]")
    return ToolResult(content="\n".join(lines), data={"count": len(found), "truncated": truncated})
