"""The ``glob`` tool: list project files matching a pattern such as ``**/*.py``, sorted.

Patterns are matched against paths relative to the search folder (``*`` stays within one folder,
``**`` crosses folders). The same skips as ``grep`` apply; results are capped at 500 paths.
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import resolve_in_root
from steiner_tui.tools.shaping import keep_first_lines
from steiner_tui.tools.walk import glob_to_regex, load_ignore_rules, walk_files

__all__ = ["GlobTool", "glob_files"]

PATH_CAP = 500
_GLOB_SYNTAX = re.compile(r"[*?\[]")
"""A character with a meaning in a glob: a folder name without any is matched as written."""

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
    matches = re.compile(glob_to_regex(cleaned) + r"\Z").match
    base = target.path.resolve()
    below = base.relative_to(root.resolve()).as_posix()
    skip = 0 if below == "." else len(below) + 1  # the walk's paths start with "below/"
    walked = walk_files(root, base, load_ignore_rules(root), _folder_filter(cleaned))
    found = sorted(relative for _, relative in walked if matches(relative[skip:]))
    if not found:
        return ToolResult(content=f"No files match {pattern}", data={"count": 0})
    truncated = len(found) > PATH_CAP
    lines = found[:PATH_CAP]
    if truncated:
        lines.append(f"[... truncated at {PATH_CAP} of {len(found)} paths; narrow the pattern]")
    return ToolResult(content="\n".join(lines), data={"count": len(found), "truncated": truncated})


def _folder_filter(pattern: str) -> Callable[[str], bool] | None:
    """Which folders (relative to the search folder) can hold a match of ``pattern``.

    A match starts with the pattern's leading plain folder names (``src/`` in
    ``src/**/*.ts``), so only those are gone into at those depths. A pattern with no ``**``
    and no ``[...]`` (whose class might match ``/``) matches paths with exactly as many ``/``
    as it has, so no deeper folder is listed (``*.py``: the search folder alone). None when
    every folder may hold one.
    """
    segments = pattern.split("/")
    plain = list(itertools.takewhile(lambda part: not _GLOB_SYNTAX.search(part), segments[:-1]))
    depth = None if "**" in pattern or "[" in pattern else len(segments) - 1
    if not plain and depth is None:
        return None

    def could_hold_a_match(folder: str) -> bool:
        parts = folder.split("/")
        if depth is not None and len(parts) > depth:
            return False
        return all(part == want for part, want in zip(parts, plain, strict=False))

    return could_hold_a_match
