"""The compaction history archive: the note in the summary and the deferred appends.

Compaction is lossy, so sessions that have an archive (interactive sessions and oneshot phases;
exec runs and delegated children have none) keep the verbatim text of everything summarized in
``history.md``. The summary tells the model where that file is with one *history note* line, a
line that starts with ``HISTORY_NOTE_MARKER`` (``[history archive:``). Each stage removes the
note lines the summarizer copied from an earlier summary and adds the current one, so a summary
holds at most one. The offline summarizer drops lines with this marker too.

Appends never happen during the operation: its result carries the source messages per stage
(``CompactionResult.pending_archive``), and the caller appends them with
``commit_history_archive`` only after adopting the new state. Failures are warnings, never
errors: a failed note applies the summary without a note; a failed append stops further appends
and leaves the adopted state (and its note) as is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from steiner_tui.engine.events import EventSink, WarningEvent
from steiner_tui.engine.messages import Message

__all__ = [
    "HISTORY_NOTE_MARKER",
    "HistoryArchive",
    "commit_history_archive",
    "remove_history_note_lines",
    "with_history_note",
]

HISTORY_NOTE_MARKER = "[history archive:"
"""Every history note line starts with this marker (and ends with ``]``)."""

NOTE_WARNING_CODE = "compact_conversation"
ARCHIVE_WARNING_CODE = "archive_compacted_history"


class HistoryArchive(Protocol):
    """Where summarized messages are kept verbatim (``history.md`` of the session)."""

    def note(self, messages: Sequence[Message]) -> str:
        """The note line telling the model where ``messages`` are archived.

        The line must start with ``HISTORY_NOTE_MARKER``. Raises when no note can be given.
        """

    def append(self, messages: Sequence[Message]) -> None:
        """Append ``messages`` (oldest first) to the archive. Raises on failure."""


def remove_history_note_lines(summary: str) -> str:
    """``summary`` without the lines that start with the marker (leading blanks allowed)."""
    lines = summary.split("\n")
    kept = [line for line in lines if not line.lstrip().startswith(HISTORY_NOTE_MARKER)]
    return "\n".join(kept) if len(kept) != len(lines) else summary


def with_history_note(
    summary: str,
    archive: HistoryArchive | None,
    messages: Sequence[Message],
    sink: EventSink,
) -> tuple[str, bool]:
    """Put the current archive note at the end of ``summary``.

    Args:
        summary: the stage's summary text.
        archive: the session's archive, or None (no note, summary unchanged).
        messages: the stage's source messages, about to leave the conversation.
        sink: receives a ``compact_conversation`` warning when the note fails.

    Returns:
        ``(summary, noted)``; when ``noted`` is True the messages must be archived after the
        new state is adopted.
    """
    if archive is None:
        return summary, False
    cleaned = remove_history_note_lines(summary).strip()
    try:
        note = archive.note(messages).strip()
    except Exception as err:
        sink.emit(WarningEvent(NOTE_WARNING_CODE, f"compact conversation: history note: {err}"))
        return cleaned, False
    return (f"{cleaned}\n\n{note}" if cleaned else note), True


def commit_history_archive(
    archive: HistoryArchive | None, pending: Sequence[tuple[Message, ...]], sink: EventSink
) -> bool:
    """Append ``pending`` (each applied stage's source messages), stage by stage in source order.

    Call only after the new state has been adopted. An append error emits the
    ``archive compacted history: <error>`` warning and stops further appends.

    Returns:
        True when everything pending was appended (trivially when nothing was).
    """
    if archive is None:
        return not pending
    for batch in pending:
        if not batch:
            continue
        try:
            archive.append(batch)
        except Exception as err:
            sink.emit(WarningEvent(ARCHIVE_WARNING_CODE, f"archive compacted history: {err}"))
            return False
    return True
