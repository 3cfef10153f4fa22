"""The app's exit values that open the workbench again: another session, or a trusted project.

Switching sessions rebuilds everything a session owns (driver, caches, log, watchers), so the
workbench exits with a ``ResumeRequest`` and ``commands.app`` opens the chosen session in a fresh
app; the current session's log is closed in between, exactly as on a normal quit. Trusting the
project's folder (``screens.trust``) changes the configuration the session was built from, so
the workbench exits with ``TrustGranted`` and opens again with the project's file in full.
"""

from __future__ import annotations

import msgspec

from steiner_tui.sessions.draft import Draft

__all__ = ["ResumeRequest", "TrustGranted"]


class ResumeRequest(msgspec.Struct, frozen=True):
    """Resume ``session_id`` after this app exits."""

    session_id: str


class TrustGranted(msgspec.Struct, frozen=True):
    """Open the workbench again with the project's own config trusted (for this run at least;
    a remembered trust is in the user config already)."""

    draft: Draft | None = None
    """What was typed while the question was open (back in the prompt of the new workbench)."""
