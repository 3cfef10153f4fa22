"""Low-level log files: whole-line writes, safe appending, fresh logs and the header.

``write_all`` hands a line to the kernel in one ``write()`` (looping only on a short write), so
a killed process leaves each line whole or absent; ``append_whole`` also cuts the log back to
where it ended when a write fails part-way (a full disk took part of a line), so the log always
ends with a whole record. ``open_for_append`` first ends a torn last
line with a newline, so the next record never glues onto it and the torn line stays one bad
line for the loader to report.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.record_values import (
    generation_record,
)
from steiner_tui.sessions.records import (
    LOG_FILE_NAME,
    HeaderRecord,
    PinRecord,
    Record,
    encode_record,
)
from steiner_tui.sessions.text_file import TextFile

__all__ = [
    "append_whole",
    "open_for_append",
    "write_all",
    "write_fresh_log",
]


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` in one ``write()`` (looping only on a short write)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_whole(fd: int, data: bytes, write: Callable[[int, bytes], None] = write_all) -> None:
    """Append ``data`` (whole lines) to the log open on ``fd`` with ``write``; a failed write
    leaves no part of it.

    Raises:
        OSError: the write failed (the log is cut back to where it ended before).
    """
    end = os.lseek(fd, 0, os.SEEK_END)
    try:
        write(fd, data)
    except OSError:
        with contextlib.suppress(OSError):  # a torn line would glue onto the next record
            os.ftruncate(fd, end)
        raise


def write_fresh_log(
    session_dir: Path,
    header: HeaderRecord,
    lineage: ConversationLineage,
    statuses: Mapping[str, str] | None = None,
    tail: Sequence[Record] = (),
) -> None:
    """Write a complete log (header, then one ``generation`` record per generation, the pins,
    then ``tail``), its large texts in ``session.text``, both fsynced.

    Used for forks (the caller writes into a temporary folder and renames it into place) and
    for a log whose folder was removed while its session was open (``SessionLog``).
    ``statuses``: how tool calls ended, by call id (the source log's), kept with the results.
    """
    fd = os.open(session_dir / LOG_FILE_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    texts = TextFile(session_dir)
    try:
        write_all(fd, encode_record(header))
        before: Sequence[Message] = ()
        for index, generation in enumerate(lineage.generations):
            record = generation_record(
                generation, before=before, reset=index == 0, statuses=statuses, texts=texts
            )
            write_all(fd, encode_record(record))
            before = generation.messages
        for key in lineage.pins:
            write_all(fd, encode_record(PinRecord(key=key)))
        for extra in tail:
            write_all(fd, encode_record(extra))
        texts.sync()
        os.fsync(fd)
    finally:
        texts.close()
        os.close(fd)


def open_for_append(path: Path) -> int:
    """An append-only descriptor on an existing log whose last line is terminated.

    Raises:
        OSError: the log cannot be opened, or it is a symbolic link (``O_NOFOLLOW``).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - 1))
        torn = size > 0 and handle.read(1) != b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
    if torn:
        write_all(fd, b"\n")
    return fd
