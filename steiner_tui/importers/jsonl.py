"""Reading an agent's JSONL transcript line by line, reporting what cannot be read by number.

A transcript is opened without waiting and read only if it is a regular file: a named pipe
called ``*.jsonl`` blocked an import for ever, a link to ``/dev/zero`` read zeros until memory
ran out. A line over ``MAX_LINE_CHARS`` is skipped (read past in pieces, never held whole), and
a value Python cannot read (a number over its 4300 digits) is that line's problem. Bytes that
are not UTF-8 do not cost the line: it is read with U+FFFD for each, and reported as kept.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from steiner_tui.errors import CaptureError
from steiner_tui.importers.model import LineProblem
from steiner_tui.units import counted

__all__ = [
    "MAX_LINE_CHARS",
    "NotATranscriptFile",
    "apply_each",
    "open_transcript",
    "read_document",
    "read_each",
    "read_lines",
    "read_records",
    "text_bytes",
]

MAX_LINE_CHARS = 64 * 1024 * 1024
"""The longest line read (Claude Code's longest, a tool result with images, are a few MB)."""
_SKIP_PIECE = 1024 * 1024
_NOT_UTF8 = re.compile("[\udc80-\udcff]+")
"""Bytes that are not UTF-8, as ``surrogateescape`` decodes them (one character each)."""
_NOT_UTF8_LISTED = 3


class NotATranscriptFile(CaptureError, OSError):
    """A named pipe, a socket or a device where a transcript file was expected."""


def open_transcript(path: Path) -> io.TextIOWrapper:
    """``path`` opened as UTF-8 text, never waiting on a pipe. Bytes that are not UTF-8 are
    read as ``surrogateescape`` characters (``read_records`` reports and replaces them).

    Raises:
        NotATranscriptFile: not a regular file.
        OSError: it cannot be opened.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = (
                "a named pipe"
                if stat.S_ISFIFO(mode)
                else "a folder"
                if stat.S_ISDIR(mode)
                else "a device or socket"
            )
            raise NotATranscriptFile(f"not a regular file ({kind})")
        os.set_blocking(fd, True)
        raw = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")


def read_lines(handle: IO[str], problems: list[LineProblem]) -> Iterator[tuple[int, str]]:
    """Each line with its number (from 1); a line over ``MAX_LINE_CHARS`` is a problem."""
    number = 0
    while line := handle.readline(MAX_LINE_CHARS + 1):
        number += 1
        if len(line) > MAX_LINE_CHARS and not line.endswith("\n"):
            while (rest := handle.readline(_SKIP_PIECE)) and not rest.endswith("\n"):
                pass
            problems.append(LineProblem(number, f"longer than {MAX_LINE_CHARS:,} characters"))
            continue
        yield number, line


def _numbered_lines(
    path: Path, problems: list[LineProblem], end: int | None
) -> Iterator[tuple[int, str]]:
    with open_transcript(path) as handle:
        if end is None:
            yield from read_lines(handle, problems)
            return
        data = bytes(handle.buffer.read(end))
    # A followed file's complete lines, through the same line cap as a whole file's.
    yield from read_lines(io.TextIOWrapper(io.BytesIO(data), "utf-8", "surrogateescape"), problems)


def read_records(
    path: Path, problems: list[LineProblem], end: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's JSON object with its number (from 1); blank lines are skipped, and a line
    that is not a JSON object is added to ``problems`` and skipped (never fatal); a line with
    bytes that are not UTF-8 is read with U+FFFD for each and added as kept. ``end`` reads
    only the file's first ``end`` bytes (a followed file's complete lines)."""
    for number, line in _numbered_lines(path, problems, end):
        if not line.strip():
            continue
        bad = "" if line.isascii() or not _NOT_UTF8.search(line) else _not_utf8(line)
        if bad:
            line = _NOT_UTF8.sub(lambda run: "\ufffd" * len(run.group()), line)
        try:
            # Without its newline: a line cut short is "at column 46", not at line 2's first.
            record = json.loads(line.rstrip("\n"))
        except json.JSONDecodeError as exc:
            at = "" if exc.msg.endswith(" at") else " at"  # "Invalid control character at"
            problems.append(LineProblem(number, f"not JSON: {exc.msg}{at} column {exc.colno}"))
            continue
        except RecursionError:
            problems.append(LineProblem(number, "JSON nested too deeply to read"))
            continue
        except ValueError:  # an integer over Python's digit limit
            limit = sys.get_int_max_str_digits()
            problems.append(LineProblem(number, f"a number too long to read (over {limit} digits)"))
            continue
        if not isinstance(record, dict):
            problems.append(LineProblem(number, "not a JSON object"))
            continue
        if bad:  # read: said as kept (a line skipped for another reason is said as skipped)
            problems.append(LineProblem(number, bad, kept=True))
        yield number, record


def read_document(path: Path, problems: list[LineProblem]) -> str:
    """The whole of a one-document transcript (Gemini CLI's JSON), its bytes that are not
    UTF-8 each read as U+FFFD and each line that had some added to ``problems`` as kept.

    Raises:
        NotATranscriptFile: not a regular file.
        OSError: it cannot be read.
    """
    with open_transcript(path) as handle:
        text = handle.read()
    if text.isascii() or not _NOT_UTF8.search(text):
        return text
    for number, line in enumerate(text.split("\n"), 1):
        if _NOT_UTF8.search(line):
            problems.append(LineProblem(number, _not_utf8(line), kept=True))
    return _NOT_UTF8.sub(lambda run: "\ufffd" * len(run.group()), text)


def _not_utf8(line: str) -> str:
    """``2 bytes that are not UTF-8: 0xE9 at column 39, 0xFF at column 41``."""
    runs = list(_NOT_UTF8.finditer(line))
    listed = [
        " ".join(f"0x{ord(c) - 0xDC00:02X}" for c in run.group()) + f" at column {run.start() + 1}"
        for run in runs[:_NOT_UTF8_LISTED]
    ]
    if len(runs) > _NOT_UTF8_LISTED:
        listed.append(f"{len(runs) - _NOT_UTF8_LISTED} more")
    bad = sum(len(run.group()) for run in runs)
    return f"{counted(bad, 'byte')} that {'is' if bad == 1 else 'are'} not UTF-8: " + ", ".join(
        listed
    )


def read_each(
    path: Path,
    problems: list[LineProblem],
    read: Callable[[int, dict[str, Any]], None],
    end: int | None = None,
) -> None:
    """Hand each record of ``path`` (its first ``end`` bytes) to ``read``, line by line (see
    ``apply_each``).

    Raises:
        OSError: the file cannot be read.
    """
    apply_each(read_records(path, problems, end), problems, read)


def apply_each(
    records: Iterable[tuple[int, dict[str, Any]]],
    problems: list[LineProblem],
    read: Callable[[int, dict[str, Any]], None],
) -> None:
    """Hand each numbered record to ``read``.

    A record ``read`` cannot use (a value of another type than the agent writes: a number for
    a message's content, a string for its usage) is added to ``problems`` by its line, and
    the records after it are still read: a damaged line never stops an import.
    """
    for number, record in records:
        try:
            read(number, record)
        except Exception as exc:  # any failure stays on its line, as the session loader's
            kind = record.get("type")
            what = f"{kind} record" if isinstance(kind, str) else "record"
            reason = str(exc) if isinstance(exc, ValueError) else repr(exc)
            problems.append(LineProblem(number, f"unreadable {what}: {reason}"))


def text_bytes(value: Any) -> int:
    """UTF-8 bytes of a tool result's content: its text, or its compact JSON."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
