"""The ``read`` tool: a file's lines, numbered, with the fields read dedup and tracking need.

The result goes to the model as compact JSON: ``path`` (relative to the project root),
``startLine``, ``endLine``, ``totalLines``, ``file_hash`` and ``output`` (numbered lines), plus
``capped: true`` when the range was cut short: by the 2000-line cap, or by the result's budget
(``ToolContext.output_chars``, a share of what the window has left). The output then ends with
the cap marker, which says where to go on: ``(next: offset=<n>, limit=<lines that fit>)``. The
file itself is where the rest is, so nothing needs saving. ``file_hash`` is the first 16 hex
digits of the SHA-256 of the file's bytes: enough to tell versions apart, short enough not to
waste tokens. A file that is not valid UTF-8 is read with each byte that is not shown as U+FFFD
and a ``note`` saying so (edit refuses such a file; a write of what was read would lose those
bytes). Image files come back as an image attachment; binary and oversized files are refused.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from steiner_tui.engine.events import OutputCut
from steiner_tui.engine.messages import Image
from steiner_tui.engine.state import line_cap_marker
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.files import (
    PATH_PARAMETER,
    ResolvedPath,
    binary_message,
    image_media_type,
    is_binary,
    load_file,
    resolve_in_root,
    split_lines,
)
from steiner_tui.tools.results import ResultStore
from steiner_tui.units import counted

__all__ = ["ReadTool", "read_file"]

READ_LINE_CAP = 2000
LINE_CHAR_CAP = 2000
FILE_HASH_CHARS = 16

_DEFINITION = ToolDefinition(
    name="read",
    description=(
        "Read a text file from the project. Returns JSON with the numbered lines in `output` "
        f"(at most {READ_LINE_CAP} lines per call, and only as many as fit the context), "
        "`startLine`, `endLine`, `totalLines` and `file_hash`. When the range is cut short, "
        "`output` ends with the offset and limit of the next window: use them to read "
        "further into long files. Image files "
        "(PNG, JPEG, GIF, WebP) are returned as images. Binary files and files over 10 MiB "
        "are refused."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": PATH_PARAMETER,
            "offset": {
                "type": "integer",
                "minimum": 1,
                "description": "1-based line number to start from (default 1).",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "description": f"Number of lines to read (default and maximum {READ_LINE_CAP}).",
            },
        },
        "required": ["path"],
    },
)


class ReadTool:
    """Reads files inside the project; never changes anything."""

    definition = _DEFINITION
    read_only = True

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(
            read_file,
            ctx.project_root,
            str(arguments["path"]),
            arguments.get("offset"),
            arguments.get("limit"),
            ctx.output_chars,
            ctx.results,
        )


def read_file(
    root: Path,
    given: str,
    offset: int | None = None,
    limit: int | None = None,
    max_chars: int | None = None,
    saved: ResultStore | None = None,
) -> ToolResult:
    """Read ``given`` under ``root``, or a saved output of ``saved``.

    Args:
        root: The project root.
        given: The path the model sent.
        offset: 1-based first line (default 1).
        limit: Line count (default, and at most, ``READ_LINE_CAP``).
        max_chars: About how many characters the result may hold (None: no budget); the
            range stops at the last whole line that fits (at least one line).
        saved: the session's saved outputs: a path outside ``root`` is read when it names
            one of them (the notes of cut and masked results point there).

    Returns:
        The read result (``data`` holds the same fields as the JSON content), an image result,
        or a failed result saying why the file cannot be read.
    """
    target = resolve_in_root(root, given, "read")
    if isinstance(target, str):
        kept = saved.holds(given) if saved is not None else None
        if kept is None:
            return failed(target)
        target = ResolvedPath(given=given, path=kept, relative=str(kept))
    data = load_file(target, "read")
    if isinstance(data, str):
        return failed(data)
    media_type = image_media_type(data[:16])
    if media_type is not None:
        image = Image(media_type, base64.b64encode(data).decode("ascii"))
        return ToolResult(
            content=f"Image {target.relative} ({media_type}, {len(data)} bytes) is attached.",
            data={"path": target.relative, "media_type": media_type, "bytes": len(data)},
            images=(image,),
        )
    if is_binary(data):
        return failed(binary_message("read", given, len(data)))
    text, note = _decoded(data)
    lines = split_lines(text)
    total = len(lines)
    start = offset or 1
    if total and start > total:
        return failed(
            f"cannot read {given}: offset {start} is past the end of the file ({total} lines)"
        )
    digest = hashlib.sha256(data).hexdigest()[:FILE_HASH_CHARS]

    def window(budget: int | None) -> ToolResult:
        return _window(target.relative, lines, start, limit, budget, digest, len(data), note)

    result = window(max_chars)
    return result.with_reshape(window)


_NOT_UTF8 = re.compile("[\udc80-\udcff]")
"""A byte that is not UTF-8, as ``surrogateescape`` decodes it."""


def _decoded(data: bytes) -> tuple[str, str]:
    """The file's text, and a note when some of its bytes are not UTF-8 (each shown as
    U+FFFD: the model was given the replacement character without a word)."""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        text, count = _NOT_UTF8.subn("\ufffd", data.decode("utf-8", errors="surrogateescape"))
    return text, (
        f"not valid UTF-8: {counted(count, 'byte')} shown as U+FFFD; edit refuses this file, "
        "and writing back what was read would lose those bytes"
    )


_JSON_OVERHEAD = 400
"""Characters of a read result that are not its lines (field names, the marker)."""


def _window(
    relative: str,
    lines: list[str],
    start: int,
    limit: int | None,
    max_chars: int | None,
    digest: str,
    size: int,
    note: str = "",
) -> ToolResult:
    total = len(lines)
    count = min(limit or READ_LINE_CAP, READ_LINE_CAP)
    end = min(total, start + count - 1)
    by_budget = False
    line_cap = LINE_CHAR_CAP
    if max_chars is not None and total:
        room = max(0, max_chars - _JSON_OVERHEAD)
        # A budget smaller than one line cuts that line too (one line is always shown).
        line_cap = max(40, min(LINE_CHAR_CAP, room - 80))
        end, by_budget = _fitting_end(lines, start, end, room, line_cap)
    capped = by_budget or (
        (limit is None or limit > READ_LINE_CAP) and total - start + 1 > READ_LINE_CAP
    )
    if not total:
        start = end = 0
    output = _numbered(lines, start, end, total, capped, line_cap)
    fields: dict[str, Any] = {
        "path": relative,
        "startLine": start,
        "endLine": end,
        "totalLines": total,
        "file_hash": digest,
        "output": output,
    }
    if capped:
        fields["capped"] = True
    if note:
        fields["note"] = note
    content = json.dumps(fields, ensure_ascii=False, separators=(",", ":"))
    cut = None
    # A line over ``line_cap`` is cut too (its marker tells the model): the tool block says
    # so as it says a range cut short (a minified file's one line of 3 MB: 2,000 characters).
    if capped or max(map(len, lines[start - 1 : end] if total else ()), default=0) > line_cap:
        cut = OutputCut(size, len(output.encode()), total, end - start + 1, relative)
    return ToolResult(content=content, data=fields, cut=cut)


def _fitting_end(
    lines: list[str], start: int, end: int, room: int, line_cap: int
) -> tuple[int, bool]:
    """The last line of ``start..end`` whose numbered text still fits ``room`` characters (at
    least ``start``), and whether the budget cut the range."""
    used = 0
    width = max(4, len(str(end))) + 2
    for number in range(start, end + 1):
        used += min(len(lines[number - 1]), line_cap + 40) + width
        if used > room and number > start:
            return number - 1, True
    return end, False


def _numbered(
    lines: list[str],
    start: int,
    end: int,
    total: int,
    capped: bool,
    line_cap: int = LINE_CHAR_CAP,
) -> str:
    if not lines:
        return ""
    width = max(4, len(str(end)))
    out = []
    for number in range(start, end + 1):
        line = lines[number - 1]
        if len(line) > line_cap:
            line = line[:line_cap] + f" [... line cut at {line_cap} characters]"
        out.append(f"{number:>{width}}\t{line}")
    if capped:
        out.append(line_cap_marker(start, end, total, end - start + 1))
    return "\n".join(out)
