"""Opening a session's log under its lock: a new log, or an existing one to append to.

Either way the lock is taken first and released again when the open fails, so a session that
could not be opened is never left locked. Kept apart from ``writer`` so its sink says only
when to write.
"""

from __future__ import annotations

import os
from pathlib import Path

from steiner_tui.sessions.lock import SessionLock
from steiner_tui.sessions.log_file import open_for_append
from steiner_tui.sessions.records import LOG_FILE_NAME
from steiner_tui.sessions.text_file import TextFile

__all__ = ["create_log", "open_log"]


def create_log(session_dir: Path) -> tuple[int, SessionLock]:
    """Lock ``session_dir`` (creating it) and create its log: the descriptor and the lock.

    Raises:
        OSError: the folder or the log cannot be created (``FileExistsError``: taken).
    """
    lock = SessionLock.acquire(session_dir)
    try:
        fd = os.open(
            session_dir / LOG_FILE_NAME,
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o600,
        )
    except BaseException:
        lock.release()
        raise
    return fd, lock


def open_log(session_dir: Path, texts_referred: int) -> tuple[int, SessionLock, TextFile]:
    """Lock ``session_dir`` and open its log and texts for appending.

    Raises:
        SessionBusyError: another running app has the session open.
        OSError: the log cannot be opened for appending (or is a symbolic link).
    """
    lock = SessionLock.acquire(session_dir)
    fd: int | None = None
    try:
        fd = open_for_append(session_dir / LOG_FILE_NAME)
        texts = TextFile.resume(session_dir, texts_referred)
    except BaseException:
        if fd is not None:
            os.close(fd)
        lock.release()
        raise
    return fd, lock, texts
