"""The exceptions of ``steiner_tui.sessions``, in a module of their own.

The CLI catches them around building the app's session, and ``loader`` and ``store`` raise
them; both re-export them under their old names.
"""

from __future__ import annotations

from steiner_tui.errors import SessionError

__all__ = ["SessionBusyError", "SessionLoadError", "SessionNotFoundError", "busy_hint"]


class SessionLoadError(SessionError):
    """The session folder or its log cannot be read at all (bad content never raises)."""


class SessionNotFoundError(SessionError, LookupError):
    """No session with that id (or no session for that project)."""


class SessionBusyError(SessionLoadError):
    """The session is open in a running app (its lock is held); it is left alone."""


def busy_hint(session_id: str) -> str:
    """What to do when resuming a session another app has open (its lock is never broken)."""
    return f"close it there, or fork it to go on here: steiner-tui sessions fork {session_id}"
