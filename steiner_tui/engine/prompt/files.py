"""The filesystem seam for file-backed prompt sources (AGENTS.md, project context, skills).

The engine never touches the disk directly: callers hand in a ``FileReader`` so tests can use a
fake. ``read_text_file`` applies the shared policy: a missing optional file is silently skipped,
an unreadable or oversized file is skipped with a ``WarningEvent``, and invalid UTF-8 is decoded
with replacement characters plus a warning naming the path (the file still counts).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from steiner_tui.engine.events import EventSink, WarningEvent

__all__ = [
    "FileReader",
    "LocalFileReader",
    "read_text_file",
]

DEFAULT_MAX_FILE_BYTES = 1 << 20
"""Files larger than this (1 MiB) are skipped: no prompt source should be that big."""


class FileReader(Protocol):
    """The few filesystem operations prompt sources need."""

    def exists(self, path: Path) -> bool:
        """Whether anything exists at ``path`` (following symlinks)."""

    def is_file(self, path: Path) -> bool:
        """Whether ``path`` is a regular file (following symlinks)."""

    def size(self, path: Path) -> int:
        """The file's size in bytes. Raises ``OSError`` when it cannot be read."""

    def read_bytes(self, path: Path) -> bytes:
        """The file's bytes. Raises ``OSError`` when it cannot be read."""

    def resolve(self, path: Path) -> Path:
        """The absolute path with every symlink resolved (non-strict)."""


class LocalFileReader:
    """``FileReader`` over the real filesystem."""

    def exists(self, path: Path) -> bool:
        return path.exists()

    def is_file(self, path: Path) -> bool:
        return path.is_file()

    def size(self, path: Path) -> int:
        return path.stat().st_size

    def read_bytes(self, path: Path) -> bytes:
        return path.read_bytes()

    def resolve(self, path: Path) -> Path:
        return path.resolve()


def read_text_file(
    path: Path,
    reader: FileReader,
    sink: EventSink,
    *,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
    optional: bool = True,
) -> str | None:
    """Read a UTF-8 text file for the prompt, or skip it.

    Args:
        path: the file to read.
        reader: the filesystem seam.
        sink: receives ``WarningEvent``s (``file_unreadable``, ``file_too_large``,
            ``invalid_utf8``).
        max_bytes: files strictly larger than this are skipped.
        optional: a missing optional file is skipped silently; a missing required one warns.

    Returns:
        The text, or ``None`` when the file was skipped.
    """
    if not reader.exists(path):
        if not optional:
            sink.emit(WarningEvent("file_unreadable", f"cannot read {path}: no such file"))
        return None
    if not reader.is_file(path):
        sink.emit(WarningEvent("file_unreadable", f"cannot read {path}: not a regular file"))
        return None
    try:
        size = reader.size(path)
        if size > max_bytes:
            sink.emit(
                WarningEvent(
                    "file_too_large",
                    f"skipped {path}: {size} bytes is over the {max_bytes}-byte limit",
                )
            )
            return None
        data = reader.read_bytes(path)
    except OSError as exc:
        sink.emit(WarningEvent("file_unreadable", f"cannot read {path}: {exc.strerror or exc}"))
        return None
    # The size is checked again: the file may have grown between stat and read.
    if len(data) > max_bytes:
        sink.emit(
            WarningEvent(
                "file_too_large",
                f"skipped {path}: {len(data)} bytes is over the {max_bytes}-byte limit",
            )
        )
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        sink.emit(
            WarningEvent(
                "invalid_utf8",
                f"{path} is not valid UTF-8 (first bad byte at offset {exc.start}); "
                "invalid bytes were replaced",
            )
        )
        return data.decode("utf-8", errors="replace")
