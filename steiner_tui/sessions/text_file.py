"""``session.text``: message texts of ``TEXT_MIN_BYTES`` and more, kept outside JSON escaping.

A file read or a command's output is mostly newlines, quotes and backslashes, which a JSON
string escapes (4-5% of source text, more for JSON inside JSON). So the log keeps a large
message content in this append-only file of raw UTF-8 next to ``session.jsonl``, and the
record holds only ``[offset, length]`` in bytes (``records.MessageLine.text``,
``GenerationRecord.texts``); ``session.jsonl`` stays one JSON object per line.

Crash safety follows the log's: a text is handed to the kernel (one ``write()``) before the
record that refers to it, and at a turn boundary this file is fsynced before the log. A failed
write is cut back, so the file never ends with part of a text. A text whose bytes are missing
(past the file's end: a torn write, a truncated or lost file) or zeroed is reported with its
record, which is dropped as a torn line is (``LostText``). A resumed log first extends a short
file with zero bytes up to the end its records refer to, so those records stay reported as
lost rather than reading texts appended later: this is why a text holding a NUL character is
never stored here (its line keeps it, escaped).
"""

from __future__ import annotations

import mmap
import os
import zlib
from pathlib import Path
from typing import NamedTuple

from steiner_tui.errors import SessionError
from steiner_tui.sessions.whole_append import append_whole

__all__ = [
    "TEXT_FILE_NAME",
    "TEXT_MIN_BYTES",
    "LostText",
    "Placed",
    "Span",
    "StoredTexts",
    "TextFile",
    "map_texts",
]

TEXT_FILE_NAME = "session.text"
TEXT_MIN_BYTES = 1024
"""The smallest content kept in ``session.text``: below it the ``[offset, length]`` and the
second write cost more than the escapes they save (prose escapes almost nothing; thresholds
from 256 to 2048 bytes change ``benchmarks/bench_session_log.py``'s log size by under 1%)."""

Span = tuple[int, int]


class LostText(SessionError, ValueError):
    """A record's text is not (wholly) in ``session.text``."""


class Placed(NamedTuple):
    """A text written to the file."""

    span: Span
    crc: int
    """The CRC-32 of its bytes, which a loader checks them against (``StoredTexts.read``)."""
    data: bytes
    """Its UTF-8."""


class TextFile:
    """Appends texts to ``<session_dir>/session.text``, opening (or creating) it with its
    first text."""

    def __init__(self, session_dir: Path) -> None:
        self.path = session_dir / TEXT_FILE_NAME
        self.end = 0
        """Where the next text goes: the file's end (known once it is open)."""
        self._fd: int | None = None
        self._dirty = False

    @classmethod
    def resume(cls, session_dir: Path, referred: int) -> TextFile:
        """The file of a resumed log whose records refer to bytes up to ``referred``: a file
        that ends before is extended with zeros to there, so those records stay lost.

        Raises:
            OSError: the file cannot be opened or extended (or is a symbolic link).
        """
        texts = cls(session_dir)
        if referred > 0 or texts.path.exists():
            fd = texts._open()
            if referred > texts.end:
                os.ftruncate(fd, referred)
                texts.end, texts._dirty = referred, True
        return texts

    def _open(self) -> int:
        if self._fd is None:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
            self._fd = os.open(self.path, flags, 0o600)
            self.end = os.fstat(self._fd).st_size  # appends go to the end, whatever is there
        return self._fd

    def put(self, content: str) -> Placed | None:
        """Append ``content`` and return where it is; None (nothing written) when it stays in
        its record: under ``TEXT_MIN_BYTES``, holding NUL or unpaired surrogates.

        Raises:
            OSError: the write failed (the file is cut back to where it ended).
        """
        if len(content) < TEXT_MIN_BYTES // 4 or "\0" in content:
            return None
        try:
            data = content.encode()
        except UnicodeEncodeError:
            return None
        if len(data) < TEXT_MIN_BYTES:
            return None
        fd = self._open()  # ``end`` is the file's end from here
        self.end = append_whole(fd, data, end=self.end)
        self._dirty = True
        return Placed((self.end - len(data), len(data)), zlib.crc32(data), data)

    @property
    def descriptor(self) -> int | None:
        """The open file's descriptor (None: no text written or resumed yet)."""
        return self._fd

    def sync(self) -> None:
        """Make every text written so far durable (before the log that refers to them)."""
        if self._fd is not None and self._dirty:
            os.fsync(self._fd)
            self._dirty = False

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class StoredTexts:
    """``session.text`` as read once by the loader (its bytes, or the file mapped: ``map_texts``):
    each record's text taken from it."""

    def __init__(self, data: bytes | mmap.mmap = b"") -> None:
        self.data = data
        self.referred = 0
        """The end of the furthest text a record referred to (a resumed log starts there)."""
        self._decoded: dict[tuple[int, int], tuple[int, str]] = {}
        """By CRC-32 and length: where a checked text is, and its text."""

    def read(self, span: Span, crc: int) -> str:
        """The text at ``span``, whose bytes had the CRC-32 ``crc`` when written; the same
        string for each span of the same bytes (decoded once, and a file read again is held
        once, without hashing the strings).

        Raises:
            LostText: as ``read_utf8``, or its bytes are not the ones written (the CRC-32
                differs: the file was edited, or is another session's).
        """
        view = self._view(span, zeroed=False)  # no text written has NUL: the CRC-32 tells
        key = (crc, len(view))
        seen = self._decoded.get(key)
        # The bytes of a text checked against the same CRC-32 have it: not computed again. Found
        # in place (``==`` of two views compares byte by byte, 40x slower; bytes are copies).
        if seen is not None and self.data.find(view, seen[0], seen[0] + len(view)) == seen[0]:
            return seen[1]
        if zlib.crc32(view) != crc:
            self._view(span)  # zeroed, said as such
            raise LostText(f"{_where(span)} is not the text written there (its CRC-32 differs)")
        text = _decoded(view, span)
        self._decoded[key] = span[0], text
        return text

    def read_utf8(self, span: Span) -> tuple[str, memoryview]:
        """The text at ``span`` (written without a CRC-32) and its bytes in the file (its
        UTF-8, for a hash of it).

        Raises:
            LostText: it is not wholly in the file, is zeroed, or is not UTF-8.
        """
        view = self._view(span)
        return _decoded(view, span), view

    def _view(self, span: Span, *, zeroed: bool = True) -> memoryview:
        """The bytes at ``span``; ``zeroed``: check that they are not zeros."""
        offset, length = span
        end = offset + length
        if offset < 0 or length < 0:
            raise LostText(f"its text has no place in {TEXT_FILE_NAME} ({offset}, {length})")
        if end > self.referred:
            self.referred = end
        if end > len(self.data):
            raise LostText(f"{_where(span)} is missing (the file ends at byte {len(self.data)})")
        if zeroed and self.data.find(b"\0", offset, end) >= 0:
            raise LostText(f"{_where(span)} was zeroed")
        return memoryview(self.data)[offset:end]


def map_texts(path: Path) -> bytes | mmap.mmap:
    """The file at ``path`` for ``StoredTexts``, mapped read-only: its texts are checked and
    decoded from the page cache, with no copy of the whole file first (about 10 ms for 19 MB);
    b"" when it is missing or empty.

    Only an outside program cutting the file short while it is mapped could make reading it
    fail (a signal, not an error): a writer cuts back only a text of its own whose write
    failed, which no record refers to, so those bytes are never read.

    Raises:
        OSError: it cannot be opened or mapped.
    """
    try:
        with path.open("rb") as file:
            if os.fstat(file.fileno()).st_size == 0:
                return b""
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        return b""  # none was needed, or it was lost: each record that needs it says so


def _where(span: Span) -> str:
    return f"its text (bytes {span[0]}-{span[0] + span[1]} of {TEXT_FILE_NAME})"


def _decoded(view: memoryview, span: Span) -> str:
    try:
        return str(view, "utf-8")
    except UnicodeDecodeError as exc:
        raise LostText(f"{_where(span)} is not valid UTF-8 (byte {span[0] + exc.start})") from None
