"""The app's exit value when the person picks another session to resume.

Switching sessions rebuilds everything a session owns (driver, caches, log, watchers), so the
workbench exits with a ``ResumeRequest`` and ``commands.app`` opens the chosen session in a fresh
app; the current session's log is closed in between, exactly as on a normal quit.
"""

from __future__ import annotations

import msgspec

__all__ = ["ResumeRequest"]


class ResumeRequest(msgspec.Struct, frozen=True):
    """Resume ``session_id`` after this app exits."""

    session_id: str
