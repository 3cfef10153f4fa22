"""The app's exit value when the person picks another session to resume.

Switching sessions rebuilds everything a session owns (driver, caches, log, watchers), so the
workbench exits with a ``ResumeRequest`` and ``commands.app`` opens the chosen session in a fresh
app; the current session's log is closed in between, exactly as on a normal quit.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ResumeRequest"]


@dataclass(frozen=True, slots=True)
class ResumeRequest:
    """Resume ``session_id`` after this app exits."""

    session_id: str
