"""The reply being streamed, kept as ``partial`` records while it comes.

A killed process must not lose what the model had already said, so ``SessionLog`` writes the
streamed text (and reasoning) as ``partial`` records: once ``every_bytes`` of it is buffered, or
once ``every_seconds`` passed since the last one, and when a provider error ends the turn. The
appended reply makes them obsolete. ``PartialReply`` is that buffer and its schedule; the log
decides when to write what it gives.

The records go to ``session.partial`` beside the log (``PartialFile``), not into the log: there
they stayed for ever once the reply was written whole, the reply's text twice and a line each
for every resume to parse. The file holds only the reply streaming now: it is emptied once the
reply (or the next request, or a compaction) is in the log, and removed at close when empty. Its
first record says how long the log was then: a loader reads the records at that point of the
log (``read_partials``), where what follows them decides, as when they were in the log, whether
they still stand (a message appended after them makes them obsolete).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from steiner_tui.sessions.records import PartialRecord, decode_record, encode_record
from steiner_tui.sessions.whole_append import append_whole

__all__ = [
    "PARTIAL_FILE_NAME",
    "PARTIAL_INTERVAL",
    "PartialFile",
    "PartialReply",
    "read_partials",
]

PARTIAL_FILE_NAME = "session.partial"

PARTIAL_INTERVAL = 1.0
"""Seconds between ``partial`` records while a reply streams: each is a write and a line of
``session.partial``. At a tenth of a second, two replies of a local model streaming 17 tokens
a second took 932 of them. A kill loses at most the last second of a reply it cut off."""


class PartialReply:
    """Streamed text and reasoning not yet written, and when the next record is due."""

    __slots__ = (
        "_at",
        "_buffered",
        "_reasoning",
        "_text",
        "clock",
        "every_bytes",
        "every_seconds",
        "file",
    )

    def __init__(
        self,
        *,
        every_bytes: int = 2048,
        every_seconds: float = PARTIAL_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every_bytes = every_bytes
        """A record is due once this much streamed text is buffered..."""
        self.every_seconds = every_seconds
        """... or once this many seconds passed since the last one (0: on every delta)."""
        self.clock = clock
        """The interval clock."""
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._buffered = 0
        self._at = 0.0
        self.file: PartialFile | None = None
        """Where the records go (the log's ``session.partial``; None: nowhere yet)."""

    def add(self, *, text: str = "", reasoning: str = "") -> bool:
        """Buffer a delta; whether a record is due now (the interval starts again if so). No
        text: a tool call's arguments streaming after it, which count as the stream going on
        (the text before a long ``write`` must not wait for more text)."""
        if text or reasoning:
            self._text.append(text)
            self._reasoning.append(reasoning)
            self._buffered += len(text) + len(reasoning)
        now = self.clock()
        if self._buffered and (
            self._buffered >= self.every_bytes or now - self._at >= self.every_seconds
        ):
            self._at = now
            return True
        return False

    def restart(self) -> None:
        """A request went out: nothing buffered or kept, the interval counted from now."""
        self.landed()
        self._at = self.clock()

    @property
    def buffered(self) -> bool:
        """Whether streamed text waits to be written."""
        return bool(self._buffered)

    def write(self, gen: int | None, turn: int, log_end: int) -> None:
        """Write the buffered text as a record of generation ``gen``'s ``turn`` to ``file``,
        emptying the buffer; the file's first record says where the log ends (``log_end``).

        Raises:
            OSError: the file cannot be opened or written.
        """
        if not self._buffered or self.file is None:
            return
        text, reasoning = "".join(self._text), "".join(self._reasoning)
        place = None if self.file.end else log_end
        self.drop()
        record = PartialRecord(gen=gen, turn=turn, text=text, reasoning=reasoning, log=place)
        self.file.append(encode_record(record))

    def landed(self) -> None:
        """The reply is in the log (or obsolete): forget what is buffered and kept."""
        self.drop()
        if self.file is not None:
            self.file.empty()

    def drop(self) -> None:
        """Forget what is buffered."""
        self._text.clear()
        self._reasoning.clear()
        self._buffered = 0

    def close(self, *, settled: bool) -> None:
        """Close ``file`` (``PartialFile.close``)."""
        if self.file is not None:
            self.file.close(settled=settled)


class PartialFile:
    """Appends the streaming reply's ``partial`` records to ``<session_dir>/session.partial``,
    creating it (or emptying a killed app's) with the first."""

    def __init__(self, session_dir: Path) -> None:
        self.path = session_dir / PARTIAL_FILE_NAME
        self._fd: int | None = None
        self.end = 0
        """The file's size (0: no record of the reply streaming now)."""

    def append(self, line: bytes) -> None:
        """Append one record's line, whole or not at all.

        Raises:
            OSError: the file cannot be opened or written (or is a symbolic link).
        """
        if self._fd is None:
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            self._fd = os.open(self.path, flags, 0o600)
            os.ftruncate(self._fd, 0)  # a killed app's records: resumed already, or obsolete
            self.end = 0
        self.end = append_whole(self._fd, line, end=self.end)

    def empty(self) -> None:
        """The streamed reply is in the log (or obsolete): forget its records."""
        if self.end and self._fd is not None:
            os.ftruncate(self._fd, 0)
            self.end = 0

    def close(self, *, settled: bool) -> None:
        """Close the file. ``settled``: the log holds all the lineage holds (a resumed
        session's restored reply too), so a file this session left empty, or never opened (a
        killed app's, read at the resume), is obsolete and removed."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        if settled and not self.end:
            self.path.unlink(missing_ok=True)


def read_partials(directory: Path, log: bytes) -> tuple[int, list[PartialRecord]] | None:
    """The ``partial`` records in ``directory``'s ``session.partial`` and where in the log
    ``log`` (its bytes) they were written, for the parser to read them there
    (``log_parse.parse_log_bytes``): what the log says after them decides whether they still
    stand, as it did when they were in it. None: no such file (or a symbolic link, or
    unreadable), or its first record does not name a line boundary of ``log``. A torn last
    line (a process killed while writing it) ends the records."""
    path = directory / PARTIAL_FILE_NAME
    try:
        if path.is_symlink():
            return None
        data = path.read_bytes()
    except OSError:
        return None
    records: list[PartialRecord] = []
    for line in data.splitlines():
        try:
            record = decode_record(line)
        except ValueError:
            break
        if not isinstance(record, PartialRecord):
            break
        records.append(record)
    offset = records[0].log if records else None
    if offset is None or offset > len(log) or (offset and log[offset - 1 : offset] != b"\n"):
        return None
    return offset, records
