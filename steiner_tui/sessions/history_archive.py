"""``history.md``: the verbatim record of everything compaction summarized in a session.

The engine decides what to archive and when (after the new state is adopted); this module only
owns the file. It lives in the session's directory (``CONFIG/sessions/<session id>/``), is created
by the first append that has something to write, and grows in source order, one Markdown block per
archived batch (``engine.compaction.history_render``). Deleting or evicting the session removes
the directory and the file with it. Existing compactions are never backfilled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.history_render import render_history
from steiner_tui.engine.messages import Message
from steiner_tui.engine.tool_results import default_tool_status

__all__ = ["HISTORY_FILE_NAME", "FileHistoryArchive"]

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
        path = self.history_path
        self.session_dir.mkdir(parents=True, exist_ok=True)
        separator = "\n" if path.exists() and path.stat().st_size > 0 else ""
        with path.open("a", encoding="utf-8", errors="replace") as handle:
            handle.write(separator + text)

    def read_history(self) -> str:
        """The archive's text (``""`` before the first append)."""
        try:
            return self.history_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
