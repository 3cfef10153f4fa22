"""The read tool's result as the engine sees it: fields, line-cap marker, and the dedup note.

The read tool (``steiner_tui.tools.read``) writes its result into the tool message as compact
JSON carrying ``path``, ``startLine``, ``endLine``, ``totalLines``, ``file_hash`` and ``output``,
plus ``capped`` when its line cap applied (docs/design.md, "14. Durable context state"). The engine
parses that JSON back to track files and deduplicate re-reads; both sides share the marker and
note formats defined here, so the tool never invents its own spelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = [
    "FILE_UNCHANGED_PREFIX",
    "ReadResult",
    "file_unchanged_note",
    "line_cap_marker",
    "parse_read_result",
]

LINE_CAP_MARKER_PREFIX = "[... truncated: showing lines"
"""Start of the marker line the read tool appends when its line cap applied."""

FILE_UNCHANGED_PREFIX = "[file unchanged since turn"
"""Start of the read dedup note; a result whose output is such a note is never a prior copy."""


def line_cap_marker(start: int, end: int, total: int, limit: int = 0) -> str:
    """The read tool's line-cap marker line, with where to go on when ``limit`` is given:
    ``[... truncated: showing lines S-E of N; use offset/limit to read more (next:
    offset=E+1, limit=L)]``."""
    hint = f" (next: offset={end + 1}, limit={limit})" if limit > 0 and end < total else ""
    return (
        f"{LINE_CAP_MARKER_PREFIX} {start}-{end} of {total}; use offset/limit to read more{hint}]"
    )


def file_unchanged_note(turn: int, start: int, end: int, total: int, path: str) -> str:
    """The read dedup note: ``[file unchanged since turn T: lines S-E of N in PATH]``."""
    return f"{FILE_UNCHANGED_PREFIX} {turn}: lines {start}-{end} of {total} in {path}]"


class ReadResult(msgspec.Struct, frozen=True):
    """The fields of one read result (missing fields are empty or zero)."""

    path: str
    start_line: int
    end_line: int
    total_lines: int
    file_hash: str
    output: str
    capped: bool = False

    @property
    def is_full_copy(self) -> bool:
        """True when this result holds the file's lines and can stand in for a later read.

        Line-capped reads, reads without ``file_hash``, empty files and dedup notes are not.
        """
        return (
            bool(self.file_hash)
            and self.total_lines != 0
            and not self.capped
            and LINE_CAP_MARKER_PREFIX not in self.output
            and not self.output.startswith(FILE_UNCHANGED_PREFIX)
        )


def parse_read_result(data: str | Mapping[str, Any]) -> ReadResult | None:
    """Parse a read result from its JSON text or its decoded fields.

    Args:
        data: The tool message content (JSON) or ``ToolResult.data``.

    Returns:
        The result, or ``None`` when ``data`` is not a JSON object with a string ``path``
        (an error message from the tool, for instance).
    """
    fields: Any = data
    if isinstance(data, str):
        try:
            # A third of json.loads' time on a read. Text other than ASCII as bytes: given the
            # str, msgspec keeps a UTF-8 copy on it for as long as the message lives.
            fields = msgspec.json.decode(data if data.isascii() else data.encode())
        except ValueError:
            return None
    if not isinstance(fields, Mapping) or not isinstance(fields.get("path"), str):
        return None
    return ReadResult(
        path=fields["path"],
        start_line=_int(fields.get("startLine")),
        end_line=_int(fields.get("endLine")),
        total_lines=_int(fields.get("totalLines")),
        file_hash=_str(fields.get("file_hash")),
        output=_str(fields.get("output")),
        capped=fields.get("capped") is True,
    )


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
