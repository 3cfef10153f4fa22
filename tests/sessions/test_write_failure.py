"""A log that cannot be written (a full disk) says so at once and keeps what it saved whole.

The log's ``write`` is the one seam the tests replace: a fake that hands the kernel part of a
line and then fails as a full disk does (``ENOSPC``), so the test sees what a real short write
leaves behind.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from steiner_tui.engine.events import WarningEvent
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.meta import SessionMeta, read_meta, write_meta
from steiner_tui.sessions.whole_append import append_whole
from tests.sessions.conftest import OpenSession


def _disk_full_after(half: bool = True) -> Callable[[int, bytes], None]:
    """A write that lands half of what it is given (when ``half``), then fails: no space."""

    def write(fd: int, data: bytes) -> None:
        if half:
            os.write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    return write


def _count_lseeks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``os.lseek`` from now on, as the offsets it was asked for."""
    asked: list[int] = []
    lseek = os.lseek

    def counted(fd: int, offset: int, how: int) -> int:
        asked.append(offset)
        return lseek(fd, offset, how)

    monkeypatch.setattr(os, "lseek", counted)
    return asked


def _log_warnings(events: list[object]) -> list[WarningEvent]:
    return [e for e in events if isinstance(e, WarningEvent) and e.code == "session_log"]


async def test_a_full_disk_is_reported_once_naming_the_log(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("first question")
    harness.log.write = _disk_full_after()

    await harness.driver.submit("second question")
    await harness.driver.submit("third question")

    warnings = _log_warnings(harness.sink.events)
    assert len(warnings) == 1, warnings
    text = warnings[0].message
    assert str(harness.log.path) in text
    assert "No space left on device" in text
    assert "not saved" in text
    assert harness.log.failure == text


async def test_what_was_saved_before_a_full_disk_stays_whole(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("first question")
    saved = harness.runner.lineage
    harness.log.write = _disk_full_after()

    await harness.driver.submit("second question")
    harness.session.close()

    data = harness.log.path.read_bytes()
    assert data.endswith(b"\n")  # the half line the failed write left is cut off again
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage.active.messages == saved.active.messages


def test_an_append_told_where_the_file_ends_cuts_a_failed_write_back_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "log"
    path.write_bytes(b"kept\n")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        assert append_whole(fd, b"more\n") == 10  # the end asked of the kernel
        asked = _count_lseeks(monkeypatch)
        assert append_whole(fd, b"next\n", end=10) == 15
        with pytest.raises(OSError):
            append_whole(fd, b"a torn line\n", _disk_full_after(), end=15)
        assert asked == []
    finally:
        os.close(fd)
    assert path.read_bytes() == b"kept\nmore\nnext\n"


async def test_a_turn_appends_without_asking_where_the_log_ends(
    open_session: OpenSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness = open_session()
    await harness.driver.submit("first question")
    asked = _count_lseeks(monkeypatch)
    await harness.driver.submit("second question")
    harness.session.close()
    assert asked == []
    assert load_session(harness.session_dir).lineage == harness.runner.lineage


async def test_a_resumed_log_that_lands_nothing_is_reported(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("first question")
    harness.session.close()

    resumed = open_session(resume=harness.session_id, write=_disk_full_after(half=False))
    await resumed.driver.submit("second question")
    warnings = _log_warnings(resumed.sink.events)
    assert len(warnings) == 1
    assert str(resumed.log.path) in warnings[0].message
    resumed.session.close()
    assert load_session(resumed.session_dir).lineage == harness.runner.lineage


def test_a_meta_file_that_cannot_be_written_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_meta(tmp_path, SessionMeta("s1", title="kept"))
    real_write = os.write

    def half_then_full(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data)[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch, pytest.raises(OSError) as raised:
        patch.setattr(os, "write", half_then_full)
        # Longer than the file's room: written whole and renamed (a shorter text is written
        # in place, where no block has to be allocated).
        write_meta(tmp_path, SessionMeta("s1", title="lost " * 40))
    assert raised.value.filename == str(tmp_path / "meta.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["meta.json"]
    assert read_meta(tmp_path) == SessionMeta("s1", title="kept")


def test_meta_is_rewritten_in_place_while_it_fits(tmp_path: Path) -> None:
    # Issue 32: a temporary file and a rename at every turn was most of the log's work.
    write_meta(tmp_path, SessionMeta("s1", title="a longer first title", messages=2))
    inode = (tmp_path / "meta.json").stat().st_ino
    write_meta(tmp_path, SessionMeta("s1", title="short", messages=40))
    assert (tmp_path / "meta.json").stat().st_ino == inode
    assert read_meta(tmp_path) == SessionMeta("s1", title="short", messages=40)
    write_meta(tmp_path, SessionMeta("s1", title="long " * 40))
    assert read_meta(tmp_path) == SessionMeta("s1", title="long " * 40)
