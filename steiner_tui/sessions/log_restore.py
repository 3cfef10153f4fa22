"""Writing a session's log anew when its folder was removed while the session was open.

Nothing saved is left then, and the records appended since went with it: the conversation, its
generations, pins, last main request and mode are written again (``log_file.write_fresh_log``);
the request history, errors and tool statuses before now are not. Kept apart from ``writer``,
whose sink calls it at a turn boundary.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.sessions.lock import SessionLock
from steiner_tui.sessions.log_file import open_for_append, write_fresh_log
from steiner_tui.sessions.records import (
    LOG_FILE_NAME,
    HeaderRecord,
    LastMainRequestRecord,
    ModeRecord,
    Record,
)
from steiner_tui.sessions.text_file import TextFile

__all__ = ["restored_note", "restored_tail", "rewrite_log"]


def restored_tail(
    last_main: LastMainRequest, mode: str | None, clock: Callable[[], datetime]
) -> list[Record]:
    """The records written after the conversation: the last main request and the mode."""
    tail: list[Record] = []
    if not last_main.is_zero:
        tail.append(LastMainRequestRecord(request=last_main))
    if mode is not None:
        tail.append(ModeRecord(mode=mode, at=clock()))  # type: ignore[arg-type]
    return tail


def rewrite_log(
    session_dir: Path,
    header: HeaderRecord,
    lineage: ConversationLineage,
    tail: list[Record],
    removed: tuple[int | None, SessionLock | None, TextFile],
) -> tuple[int, SessionLock, TextFile]:
    """Lock ``session_dir`` again (creating it), write the log anew and open it for appending;
    the removed log's descriptor, lock and texts file (``removed``) are closed then. The new
    descriptor, lock and texts file.

    Raises:
        OSError: the folder or the log cannot be created again (``removed`` left open).
    """
    lock = SessionLock.acquire(session_dir)  # creates the folder again
    try:
        write_fresh_log(session_dir, header, lineage, tail=tail)
        fd = open_for_append(session_dir / LOG_FILE_NAME)
        texts = TextFile.resume(session_dir, 0)
    except BaseException:
        lock.release()
        raise
    old_fd, old_lock, old_texts = removed
    old_texts.close()
    if old_fd is not None:
        os.close(old_fd)
    if old_lock is not None:
        old_lock.release()
    return fd, lock, texts


def restored_note(session_dir: Path) -> str:
    """What the person is told once the log was written anew."""
    return (
        f"the session folder {session_dir} was removed while the session was "
        "open; the conversation was saved there again from memory (its request "
        "history before now was not)"
    )
