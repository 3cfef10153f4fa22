"""FileHistoryArchive: history.md created on the first non-empty append, appended in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.sessions.history_archive import FileHistoryArchive, read_history_file


def test_created_on_first_non_empty_append(tmp_path: Path) -> None:
    session_dir = tmp_path / "sessions" / "abc123"
    archive = FileHistoryArchive(session_dir)
    assert archive.history_path == session_dir / "history.md"
    assert not archive.history_path.exists()
    archive.append([])
    archive.append([Message("tool", "body only", tool_call_id="x")])
    assert not session_dir.exists()
    archive.append([Message("user", "first question"), Message("assistant", "first answer")])
    assert archive.history_path.read_text(encoding="utf-8").split("\n") == [
        "### User",
        "",
        "first question",
        "",
        "### Assistant",
        "",
        "first answer",
        "",
    ]


def test_appends_in_source_order(tmp_path: Path) -> None:
    archive = FileHistoryArchive(tmp_path / "s")
    archive.append([Message("user", "one")])
    archive.append(
        [
            Message("assistant", "", tool_calls=(ToolCall("c", "bash", {"command": "ls"}),)),
            Message("tool", "a.txt", tool_call_id="c"),
        ]
    )
    archive.append([Message("summary", "Sum.\n[history archive: x]")])
    assert read_history_file(archive.history_path) == (
        "### User\n\none\n\n### Assistant\n\n- ✓ bash command=ls\n  > a.txt\n\n### Summary\n\n"
        "Sum.\n"
    )


def test_note_points_at_history_md(tmp_path: Path) -> None:
    archive = FileHistoryArchive(tmp_path / "s")
    note = archive.note([Message("user", "x")])
    assert note.startswith(HISTORY_NOTE_MARKER)
    assert note.endswith("]")
    assert str(archive.history_path) in note


def test_note_and_append_fail_when_the_directory_is_a_file(tmp_path: Path) -> None:
    blocked = tmp_path / "s"
    blocked.write_text("not a directory")
    archive = FileHistoryArchive(blocked)
    with pytest.raises(NotADirectoryError):
        archive.note([])
    with pytest.raises(OSError):
        archive.append([Message("user", "x")])
