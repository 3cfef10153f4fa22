"""The ``grep`` tool: a regex search over the project's text files, in pure Python.

No ripgrep dependency: the walk (``walk.py``) skips ignored folders and files, binary files and
files over 10 MiB are skipped, and results are ``path:line:text`` in walk order (sorted folder by
folder), capped at 200 matches with a marker.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import (
    FileTooLarge,
    NotRegularFile,
    is_binary,
    read_regular,
    resolve_in_root,
    split_lines,
)
from steiner_tui.tools.shaping import keep_first_lines
from steiner_tui.tools.walk import glob_to_regex, load_ignore_rules, walk_files

__all__ = ["MATCH_CAP", "MATCH_TEXT_CAP", "GrepTool", "grep"]

MATCH_CAP = 200
MATCH_TEXT_CAP = 500

_DEFINITION = ToolDefinition(
    name="grep",
    description=(
        "Search file contents with a regular expression (Python syntax). Returns "
        f"`path:line:text` lines, at most {MATCH_CAP}. Skips .git, .venv, node_modules, files "
        "ignored by the root .gitignore, and binary files."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "The regular expression to search for."},
            "path": {
                "type": "string",
                "description": "File or folder to search, relative to the project root "
                "(default: the whole project).",
            },
            "glob": {
                "type": "string",
                "description": "Only search files matching this glob, e.g. `*.py` (matched "
                "against the file name) or `src/**/*.ts` (matched against the path).",
            },
            "case_insensitive": {
                "type": "boolean",
                "description": "Ignore case when matching (default false).",
            },
        },
        "required": ["pattern"],
    },
)


class GrepTool:
    """Searches file contents; never changes anything."""

    definition = _DEFINITION
    read_only = True

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        result = await asyncio.to_thread(
            grep,
            ctx.project_root,
            str(arguments["pattern"]),
            str(arguments.get("path") or "."),
            arguments.get("glob"),
            bool(arguments.get("case_insensitive", False)),
        )
        return keep_first_lines(result, ctx.output_chars, ctx.results, ctx.call_id, "match list")


def grep(
    root: Path,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    case_insensitive: bool = False,
) -> ToolResult:
    """Search ``path`` under ``root`` for ``pattern``.

    Returns:
        ``done`` with the matches (or a no-match line), or ``failed`` for a bad regex or path.
    """
    try:
        regex = re.compile(pattern, re.IGNORECASE if case_insensitive else 0)
    except re.error as exc:
        return failed(f"invalid regex {pattern!r}: {exc}")
    target = resolve_in_root(root, path, "search")
    if isinstance(target, str):
        return failed(target)
    if not target.path.exists():
        return failed(f"cannot search {path}: no such file or directory")
    files: Iterable[tuple[Path, str]]
    if target.path.is_dir():
        files = walk_files(root, target.path, load_ignore_rules(root))
    else:
        files = [(target.path, target.relative)]
    name_filter = re.compile(glob_to_regex(glob) + r"\Z") if glob else None
    matches: list[str] = []
    truncated = False
    for file, relative in files:
        if name_filter and not name_filter.match(relative if "/" in (glob or "") else file.name):
            continue
        for number, line in _search(file, regex):
            if len(matches) == MATCH_CAP:
                truncated = True
                break
            matches.append(f"{relative}:{number}:{line[:MATCH_TEXT_CAP]}")
        if truncated:
            break
    if not matches:
        return ToolResult(content=f"No matches for {pattern}", data={"matches": 0})
    if truncated:
        matches.append(f"[... truncated at {MATCH_CAP} matches; narrow the pattern, path or glob]")
    count = MATCH_CAP if truncated else len(matches)
    return ToolResult(content="\n".join(matches), data={"matches": count, "truncated": truncated})


def _search(file: Path, regex: re.Pattern[str]) -> Iterable[tuple[int, str]]:
    try:
        data = read_regular(file)  # a named pipe or device in the tree is skipped, not waited on
    except (OSError, NotRegularFile, FileTooLarge):
        return
    if is_binary(data):
        return
    for number, line in enumerate(split_lines(data.decode("utf-8", errors="replace")), 1):
        if regex.search(line):
            yield number, line
