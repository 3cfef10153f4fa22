"""The log's fsyncs after turn boundaries are a group commit (``log_file.GroupCommit``).

Every boundary of one interval shares one fsync, made by the flusher thread within the
interval; the lines themselves are written at once, so what a killed process leaves is whole;
closing fsyncs at once; a failed fsync is raised by the next boundary.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from steiner_tui.sessions import log_file
from steiner_tui.sessions.log_file import GroupCommit


class Syncs:
    """Counts fsyncs (``done`` is set at each one); ``fail`` makes the next one raise."""

    def __init__(self) -> None:
        self.count = 0
        self.files: list[int] = []
        """The inode of each file synced, in order."""
        self.done = threading.Event()
        self.fail: OSError | None = None

    def __call__(self, fd: int) -> None:
        self.count += 1
        self.files.append(os.fstat(fd).st_ino)
        self.done.set()
        error, self.fail = self.fail, None
        if error is not None:
            raise error


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> Syncs:
    recorded = Syncs()
    monkeypatch.setattr(log_file.os, "fsync", recorded)
    return recorded


@pytest.fixture
def fd(tmp_path: Path) -> Iterator[int]:
    descriptor = os.open(tmp_path / "session.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    yield descriptor
    os.close(descriptor)


def test_the_boundaries_of_one_interval_share_one_fsync(syncs: Syncs, fd: int) -> None:
    commit = GroupCommit(fd, interval=1.0)
    for _ in range(20):
        os.write(fd, b"{}\n")  # written at once: a killed process loses none of it
        commit.due()
    assert syncs.done.wait(5)
    assert syncs.count == 1
    commit.close()
    assert syncs.count == 2  # closing fsyncs at once
    assert os.fstat(fd).st_size == 60


def test_close_fsyncs_at_once_without_waiting_for_the_interval(syncs: Syncs, fd: int) -> None:
    commit = GroupCommit(fd, interval=60)
    commit.due()
    commit.close()
    assert syncs.count == 1


def test_a_failed_fsync_is_raised_by_the_next_boundary(syncs: Syncs, fd: int) -> None:
    commit = GroupCommit(fd, interval=0)
    syncs.fail = OSError(5, "Input/output error")
    commit.due()
    assert syncs.done.wait(5)
    with pytest.raises(OSError, match="Input/output error"):
        for _ in range(500):  # until the thread has recorded it
            commit.due()
            threading.Event().wait(0.01)
    commit.close()


def test_the_texts_are_synced_before_the_log_that_refers_to_them(
    syncs: Syncs, fd: int, tmp_path: Path
) -> None:
    texts = os.open(tmp_path / "session.text", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        commit = GroupCommit(fd, interval=0.01)
        commit.due(texts)
        assert syncs.done.wait(5)
        commit.close()
    finally:
        os.close(texts)
    log, text = os.fstat(fd).st_ino, (tmp_path / "session.text").stat().st_ino
    assert syncs.files == [text, log, text, log]  # the interval's fsync, then the close's
