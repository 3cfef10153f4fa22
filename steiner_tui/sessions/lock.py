"""The lock that marks a session as open in a running app (or a headless run).

While a ``SessionLog`` is open it holds an exclusive ``fcntl.flock`` on ``session.lock`` in the
session's folder. ``sessions delete`` and ``sessions evict`` try the same lock without waiting
and leave the session alone when they cannot get it, so a running app never loses its folder;
resuming a session that another process has open is refused, so two writers never interleave
lines in one log. The kernel drops the lock when the holder exits, however it exits, so a
crashed app never leaves a session locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from steiner_tui.sessions.errors import SessionBusyError

__all__ = ["SessionLock", "holding_lock", "is_locked"]

LOCK_FILE_NAME = "session.lock"


class SessionLock:
    """An exclusive lock on one session folder, held until ``release``.

    Args:
        fd: the open lock file, already locked.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, session_dir: Path) -> SessionLock:
        """Lock ``session_dir`` (created if needed) without waiting.

        Raises:
            SessionBusyError: another open log holds the lock.
            OSError: the lock file cannot be created.
        """
        session_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(session_dir / LOCK_FILE_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SessionBusyError(
                f"session {session_dir.name!r} is open in another steiner-tui"
            ) from None
        return cls(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Unlock (the file stays; it is removed with the folder)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


@contextlib.contextmanager
def holding_lock(session_dir: Path) -> Iterator[None]:
    """Hold ``session_dir``'s lock for the ``with`` body (a folder without one is free).

    Raises:
        SessionBusyError: the session is open in a running app.
    """
    if not (session_dir / LOCK_FILE_NAME).exists():
        yield
        return
    lock = SessionLock.acquire(session_dir)
    try:
        yield
    finally:
        lock.release()


def is_locked(session_dir: Path) -> bool:
    """True when a running app (or run) has ``session_dir`` open."""
    try:
        with holding_lock(session_dir):
            return False
    except SessionBusyError:
        return True
    except OSError:
        return False
