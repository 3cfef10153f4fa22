"""The history note in the summary and the deferred archive appends."""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.engine.compaction.archive import (
    HISTORY_NOTE_MARKER,
    commit_history_archive,
    remove_history_note_lines,
    with_history_note,
)
from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.messages import Message

M1 = Message("user", "one")
M2 = Message("user", "two")


class MemoryArchive:
    def __init__(self, *, note_error: Exception | None = None, fail_on: int = -1) -> None:
        self.note_error = note_error
        self.fail_on = fail_on
        self.noted: list[tuple[Message, ...]] = []
        self.appended: list[tuple[Message, ...]] = []
        self.attempts = 0

    def note(self, messages: Sequence[Message]) -> str:
        if self.note_error is not None:
            raise self.note_error
        self.noted.append(tuple(messages))
        return f"{HISTORY_NOTE_MARKER} see history.md]"

    def append(self, messages: Sequence[Message]) -> None:
        self.attempts += 1
        if self.attempts - 1 == self.fail_on:
            raise OSError("disk full")
        self.appended.append(tuple(messages))


def test_marker() -> None:
    assert HISTORY_NOTE_MARKER == "[history archive:"


def test_note_replaces_old_note_lines() -> None:
    archive = MemoryArchive()
    summary = "Goal.\n[history archive: old one]\n  [history archive: indented]\nNext."
    noted, ok = with_history_note(summary, archive, [M1], ListSink())
    assert ok
    assert noted == "Goal.\nNext.\n\n[history archive: see history.md]"
    assert archive.noted == [(M1,)]


def test_no_archive_leaves_summary_alone() -> None:
    summary = "Goal.\n[history archive: old]"
    assert with_history_note(summary, None, [M1], ListSink()) == (summary, False)


def test_note_error_warns_and_applies_without_note() -> None:
    sink = ListSink()
    noted, ok = with_history_note(
        "Goal.\n[history archive: old]", MemoryArchive(note_error=OSError("gone")), [M1], sink
    )
    assert (noted, ok) == ("Goal.", False)
    assert sink.events == [
        WarningEvent("compact_conversation", "compact conversation: history note: gone")
    ]


def test_remove_lines_keeps_text_without_markers_identical() -> None:
    assert remove_history_note_lines("a\n\nb\n") == "a\n\nb\n"


def test_commit_appends_batches_in_order() -> None:
    archive = MemoryArchive()
    assert commit_history_archive(archive, ((M1,), (), (M2,)), ListSink())
    assert archive.appended == [(M1,), (M2,)]


def test_append_error_warns_and_stops_further_appends() -> None:
    archive = MemoryArchive(fail_on=0)
    sink = ListSink()
    assert not commit_history_archive(archive, ((M1,), (M2,)), sink)
    assert archive.attempts == 1
    assert archive.appended == []
    assert sink.events == [
        WarningEvent("archive_compacted_history", "archive compacted history: disk full")
    ]
