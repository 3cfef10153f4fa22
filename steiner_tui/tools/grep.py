"""The ``grep`` tool: a regex search over the project's text files, in pure Python.

No ripgrep dependency: the walk (``walk.py``) skips ignored folders and files, binary files and
files over 10 MiB are skipped, and results are ``path:line:text`` in walk order (sorted folder by
folder), capped at 200 matches with a marker.

The pattern is matched line by line, but most files hold no match, so a file's whole text is
searched once first (``re.MULTILINE``: ``^`` and ``$`` at every line's ends) and only a file
that matches is split into lines. That first search can only find more than the lines do (a
match across lines), never less, except for constructs that look past a line's ends: string
anchors (``\\A``, ``\\Z``), lookarounds, atomic groups, possessive quantifiers and a scoped
flag that turns ``re.MULTILINE`` off. A pattern holding one of those skips the first search.
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

__all__ = ["MATCH_CAP", "MATCH_TEXT_CAP", "GrepTool", "grep", "literal_bytes", "whole_text_regex"]

MATCH_CAP = 200
MATCH_TEXT_CAP = 500
_LOOKS_PAST_A_LINE = (
    "\\A",
    "\\Z",
    "\\z",
    "(?=",
    "(?!",
    "(?<",
    "(?>",
    "(?-",
    "*+",
    "++",
    "?+",
    "}+",
)
"""Pattern text that may match a line alone but not inside the whole text (conservative)."""
_REGEX_SYNTAX = re.compile(r"[.^$*+?{}\[\]\\|()]")
"""A character with a meaning in a regex: a pattern without any is a plain literal."""

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
    files: Iterable[tuple[str, str]]
    if target.path.is_dir():
        files = walk_files(root, target.path, load_ignore_rules(root))
    else:
        files = [(str(target.path), target.relative)]
    name_filter = re.compile(glob_to_regex(glob) + r"\Z") if glob else None
    by_path = "/" in (glob or "")
    whole = whole_text_regex(pattern, regex.flags)
    literal = literal_bytes(pattern, case_insensitive)
    matches: list[str] = []
    truncated = False
    for file, relative in files:
        if name_filter and not name_filter.match(
            relative if by_path else relative.rsplit("/", 1)[-1]
        ):
            continue
        for number, line in _search(file, regex, whole, literal):
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


def literal_bytes(pattern: str, case_insensitive: bool) -> bytes | None:
    """The UTF-8 bytes a file must hold for a line to match ``pattern``, when the pattern is a
    plain, case-sensitive literal (no regex syntax); else None.

    A literal in the text decoded with ``errors="replace"`` came from the same characters'
    valid UTF-8 in the bytes, unless it holds the replacement character itself.
    """
    if case_insensitive or _REGEX_SYNTAX.search(pattern) or "\ufffd" in pattern:
        return None
    try:
        return pattern.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: left to the regex
        return None


def whole_text_regex(pattern: str, flags: int) -> re.Pattern[str] | None:
    """``pattern`` for searching a file's whole text before its lines, or None when a match in
    a line alone might not be found in the whole text (see the module docstring)."""
    if any(token in pattern for token in _LOOKS_PAST_A_LINE):
        return None
    return re.compile(pattern, flags | re.MULTILINE)


def _search(
    file: str, regex: re.Pattern[str], whole: re.Pattern[str] | None, literal: bytes | None
) -> Iterable[tuple[int, str]]:
    try:
        data = read_regular(file)  # a named pipe or device in the tree is skipped, not waited on
    except (OSError, NotRegularFile, FileTooLarge):
        return
    if literal is not None and literal not in data:
        return
    if is_binary(data):
        return
    text = data.decode("utf-8", errors="replace")
    if whole is None:
        for number, line in enumerate(split_lines(text), 1):
            if regex.search(line):
                yield number, line
        return
    if "\r" in text:  # lines lose a trailing CR: search them as they will be searched
        text = "".join(line + "\n" for line in split_lines(text))  # "\n" ends even the last
    yield from _matching_lines(text, regex, whole)


def _matching_lines(
    text: str, regex: re.Pattern[str], whole: re.Pattern[str]
) -> Iterable[tuple[int, str]]:
    """The lines of ``text`` (``\\n``-separated, no CR) that ``regex`` finds, in order.

    ``whole`` finds the first place at or after the start of a line where a line could match;
    no line before the line holding that place can (a match in a line is a match in the
    text), so that line is the next one tried, and the search goes on from the line after it.
    """
    number, counted, start, end = 1, 0, 0, len(text)
    while (found := whole.search(text, start)) is not None:
        at = found.start()
        start = max(start, text.rfind("\n", start, at) + 1)
        if start >= end:
            return  # past the last line (the text ends with a line break, or is empty)
        number += text.count("\n", counted, start)
        counted = start
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop
        line = text[start:stop]
        if regex.search(line):
            yield number, line
        start = stop + 1
