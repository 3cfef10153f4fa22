"""Appends that leave no part of what they write, for the session log and its texts.

Each goes to the kernel in one ``write()`` on an unbuffered descriptor, so a killed process
leaves it whole or absent; a write that fails part-way (a full disk) is cut back to where the
file ended, so the file always ends with a whole record (``session.jsonl``) or a whole text
(``session.text``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

__all__ = ["append_whole", "write_all"]


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` in one ``write()`` (looping only on a short write)."""
    written = os.write(fd, data)
    if written < len(data):
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(fd, view) :]


def append_whole(
    fd: int, data: bytes, write: Callable[[int, bytes], None] = write_all, end: int = -1
) -> int:
    """Append ``data`` (whole lines or a whole text) to the file open on ``fd`` with
    ``write``; a failed write leaves no part of it. Returns the file's size after it.

    ``end``: the file's size before, when the caller keeps it (it alone appends, under the
    session's lock); -1 asks the kernel, a system call that cost about as much as the
    write itself.

    Raises:
        OSError: the write failed (the file is cut back to where it ended before).
    """
    if end < 0:
        end = os.lseek(fd, 0, os.SEEK_END)
    try:
        write(fd, data)
    except OSError:
        with contextlib.suppress(OSError):  # a torn record would glue onto the next one
            os.ftruncate(fd, end)
        raise
    return end + len(data)
