"""``history.md``: the verbatim record of everything compaction summarized in a session.

The engine decides what to archive and when (after the new state is adopted); this module only
owns the file. It lives in the session's directory (``CONFIG/sessions/<session id>/``), is created
by the first append that has something to write, and grows in source order, one Markdown block per
archived batch (``engine.compaction.history_render``). Deleting or evicting the session removes
the directory and the file with it. Existing compactions are never backfilled.

A symlink named ``history.md`` is never followed, for writing or reading (``O_NOFOLLOW``):
otherwise a link planted there would have the conversation appended to any file the user can
write (``~/.bashrc``), or a fork copy a file from anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.history_render import render_history
from steiner_tui.engine.messages import Message
from steiner_tui.engine.tool_results import default_tool_status

__all__ = ["HISTORY_FILE_NAME", "FileHistoryArchive", "read_history_file"]

HISTORY_FILE_NAME = "history.md"


class FileHistoryArchive:
    """The engine's ``HistoryArchive`` for one session directory.

    Args:
        session_dir: ``CONFIG/sessions/<session id>/`` (created on the first non-empty append).
        tool_status: reads a tool result's status (``done``/``failed``/``rejected``); None:
            ``engine.tool_results.default_tool_status``.
    """

    def __init__(
        self,
        session_dir: Path,
        *,
        tool_status: Callable[[Message], str] | None = None,
    ) -> None:
        self.session_dir = session_dir
        self._tool_status = tool_status

    @property
    def history_path(self) -> Path:
        """Where ``history.md`` is (or will be)."""
        return self.session_dir / HISTORY_FILE_NAME

    def note(self, messages: Sequence[Message]) -> str:
        """The summary's note line pointing at ``history.md``.

        Raises:
            NotADirectoryError: the session directory path is taken by a file.
        """
        if self.session_dir.exists() and not self.session_dir.is_dir():
            raise NotADirectoryError(f"session directory {self.session_dir} is not a directory")
        return (
            f"{HISTORY_NOTE_MARKER} the full text of the earlier conversation, including what "
            f"this summary leaves out, is archived in {self.history_path}]"
        )

    def append(self, messages: Sequence[Message]) -> None:
        """Render ``messages`` and append them; nothing to render writes nothing.

        Raises:
            OSError: the directory or the file cannot be written.
        """
        # The renderer is imported by the first compaction, not when the session starts.

        text = render_history(messages, tool_status=self._tool_status or default_tool_status)
        if not text:
            return
        self.session_dir.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.history_path, flags, 0o600)  # a symlink: OSError (ELOOP)
        with os.fdopen(fd, "a", encoding="utf-8", errors="replace") as handle:
            separator = "\n" if os.fstat(fd).st_size > 0 else ""
            handle.write(separator + text)


def read_history_file(path: Path) -> str:
    """The text of the ``history.md`` at ``path``, never through a symlink.

    Raises:
        OSError: it cannot be read (``ELOOP``: it is a symlink).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, encoding="utf-8", errors="replace") as handle:
        return handle.read()
