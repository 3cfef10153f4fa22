"""What a session log's write failure means for the person, in one sentence.

Split from ``writer`` (at its line limit) along its own concept: the words said once when a
write fails (the workbench's note, ``exec``'s and the app's exit message), apart from how the
log writes. They name the file and the reason, and say what is kept and what is not.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["failure_note"]


def failure_note(error: OSError | None, path: Path) -> str:
    """What ``error`` (the log's first write failure; None: none) means for the session whose
    log is ``path`` ("" while the log is written)."""
    if error is None:
        return ""
    where = error.filename or path
    reason = error.strerror or str(error)
    return (
        f"the session log stopped: cannot write {where} ({reason}). What was saved before "
        "is kept and resumes; from here on this session is not saved."
    )
