"""Low-level log files: whole-line writes, safe appending, fresh logs and the header.

``write_all`` hands a line to the kernel in one ``write()`` (looping only on a short write), so
a killed process leaves each line whole or absent; ``append_whole`` also cuts the log back to
where it ended when a write fails part-way (a full disk took part of a line), so the log always
ends with a whole record. ``open_for_append`` first ends a torn last
line with a newline, so the next record never glues onto it and the torn line stays one bad
line for the loader to report. ``GroupCommit`` fsyncs an open log at most once per interval;
``LogSync`` decides, at a turn boundary, between that and an fsync at once (when each is asked
for is ``SessionLog``'s rule).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
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
from steiner_tui.sessions.whole_append import write_all

__all__ = [
    "COMMIT_INTERVAL",
    "GroupCommit",
    "LogSync",
    "open_for_append",
    "write_fresh_log",
]


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


COMMIT_INTERVAL = 0.1
"""Seconds a turn boundary's fsync may wait for the boundaries after it (``GroupCommit``)."""


class GroupCommit:
    """fsyncs one log at most once per ``interval`` seconds, in one flusher thread.

    ``due`` asks for an fsync: the first ask starts the interval, asks during it join that
    fsync, so a burst of short turns costs one fsync instead of one each. ``close`` fsyncs at
    once and stops the thread. The thread syncs its own duplicates of the descriptors, so the
    log's may be closed or replaced whatever the thread is doing. The log's texts
    (``session.text``), once ``due`` names their descriptor, are fsynced before the log. An
    fsync that failed in the thread is raised by the next ``due`` or by ``close``.
    """

    def __init__(self, fd: int, interval: float = COMMIT_INTERVAL) -> None:
        self.interval = interval
        self._fds = [os.dup(fd)]
        """The descriptors synced, in order: the texts' (once known), then the log's."""
        self._texts: int | None = None
        self._wake = threading.Condition()
        self._due = False
        self._stopping = False
        self._error: OSError | None = None
        self._thread: threading.Thread | None = None

    def due(self, texts: int | None = None) -> None:
        """Ask for an fsync within ``interval`` seconds (``texts``: the descriptor of the log's
        texts, when open, synced first from now on).

        Raises:
            OSError: an earlier fsync failed.
        """
        with self._wake:
            self._raise()
            if texts is not None and self._texts is None:
                self._texts = texts
                self._fds.insert(0, os.dup(texts))
            if self._due:
                return
            self._due = True
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name=f"fsync-{self._fds[-1]}", daemon=True
                )
                self._thread.start()
            else:
                self._wake.notify()

    def close(self) -> None:
        """fsync now, stop the thread, release the duplicate descriptor.

        Raises:
            OSError: this fsync or an earlier one failed.
        """
        with self._wake:
            self._stopping = True
            self._wake.notify()
        if self._thread is not None:
            self._thread.join()
        try:
            with self._wake:
                self._raise()
            for fd in self._fds:
                os.fsync(fd)
        finally:
            for fd in self._fds:
                os.close(fd)

    def _raise(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _run(self) -> None:
        with self._wake:
            while True:
                while not self._due and not self._stopping:
                    self._wake.wait()
                if not self._stopping:
                    self._wake.wait(self.interval)  # the boundaries after it join this fsync
                if self._stopping:
                    return  # ``close`` fsyncs
                self._due = False
                fds = tuple(self._fds)
                self._wake.release()
                error: OSError | None = None
                try:
                    for fd in fds:
                        os.fsync(fd)
                except OSError as failed:
                    error = failed
                self._wake.acquire()
                self._error = self._error or error


class LogSync:
    """How a turn boundary makes one open log durable: the texts it refers to (``session.text``)
    first, then the log; at once, or as a ``GroupCommit`` within ``interval`` seconds (0: always
    at once)."""

    def __init__(self, interval: float = COMMIT_INTERVAL) -> None:
        self.interval = interval
        self._commit: GroupCommit | None = None
        """The group commit of the log open now (made at its first deferred boundary)."""

    def boundary(self, fd: int, texts: TextFile, *, now: bool) -> None:
        """fsync the log open on ``fd`` and ``texts``: at once (``now``), else within the
        interval.

        Raises:
            OSError: this fsync, or an earlier one of the group commit, failed.
        """
        if now or self.interval <= 0:
            texts.sync()  # before the log that refers to them
            os.fsync(fd)
            return
        if self._commit is None:
            self._commit = GroupCommit(fd, self.interval)
        self._commit.due(texts.descriptor)

    def end(self) -> None:
        """Stop the group commit of the log open now (its fsync at once): the log closes or is
        replaced.

        Raises:
            OSError: that fsync, or an earlier one, failed.
        """
        commit, self._commit = self._commit, None
        if commit is not None:
            commit.close()
