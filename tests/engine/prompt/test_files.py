"""read_text_file: the shared skip-and-warn policy for file-backed prompt sources."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.prompt.files import LocalFileReader, read_text_file


class BrokenReader(LocalFileReader):
    """Reports every file as present but fails to read it."""

    def read_bytes(self, path: Path) -> bytes:
        raise PermissionError(13, "Permission denied")


def _warnings(sink: ListSink) -> list[WarningEvent]:
    return [e for e in sink.events if isinstance(e, WarningEvent)]


def test_reads_utf8_text(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("héllo\n", encoding="utf-8")
    sink = ListSink()
    assert read_text_file(path, LocalFileReader(), sink) == "héllo\n"
    assert sink.events == []


def test_missing_optional_file_is_silent(tmp_path: Path) -> None:
    sink = ListSink()
    assert read_text_file(tmp_path / "nope.md", LocalFileReader(), sink) is None
    assert sink.events == []


def test_missing_required_file_warns(tmp_path: Path) -> None:
    sink = ListSink()
    assert read_text_file(tmp_path / "nope.md", LocalFileReader(), sink, optional=False) is None
    [warning] = _warnings(sink)
    assert warning.code == "file_unreadable"
    assert "nope.md" in warning.message


def test_unreadable_file_is_skipped_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "locked.md"
    path.write_text("secret", encoding="utf-8")
    sink = ListSink()
    assert read_text_file(path, BrokenReader(), sink) is None
    [warning] = _warnings(sink)
    assert warning.code == "file_unreadable"
    assert str(path) in warning.message


def test_directory_is_skipped_with_warning(tmp_path: Path) -> None:
    sink = ListSink()
    assert read_text_file(tmp_path, LocalFileReader(), sink) is None
    assert [w.code for w in _warnings(sink)] == ["file_unreadable"]


def test_oversized_file_is_skipped_with_warning(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 101)
    sink = ListSink()
    assert read_text_file(path, LocalFileReader(), sink, max_bytes=100) is None
    [warning] = _warnings(sink)
    assert warning.code == "file_too_large"
    assert str(path) in warning.message
    assert "101" in warning.message


def test_file_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "edge.md"
    path.write_bytes(b"x" * 100)
    sink = ListSink()
    assert read_text_file(path, LocalFileReader(), sink, max_bytes=100) == "x" * 100
    assert sink.events == []


def test_invalid_utf8_is_replaced_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes(b"caf\xe9 ok")
    sink = ListSink()
    assert read_text_file(path, LocalFileReader(), sink) == "caf\ufffd ok"
    [warning] = _warnings(sink)
    assert warning.code == "invalid_utf8"
    assert str(path) in warning.message
