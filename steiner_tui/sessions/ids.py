"""Session ids: the one gate between a user-supplied name and a folder on disk.

A session id names a folder under ``CONFIG/sessions/``; anything a user types (``--resume ID``,
``sessions delete ID``) passes through ``validate_session_id`` before it becomes a path, so no id
can reach outside that folder or collide with the store's hidden temporary folders.
"""

from __future__ import annotations

import re
import uuid

__all__ = ["SESSION_ID_MAX_LENGTH", "new_session_id", "validate_session_id"]

SESSION_ID_MAX_LENGTH = 128
"""Longer ids are refused (they would make unwieldy folder names)."""

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` unchanged when it is safe to use as a folder name.

    Safe: not empty, at most ``SESSION_ID_MAX_LENGTH`` characters, ASCII letters, digits, ``.``,
    ``_`` and ``-`` only, starting with a letter or digit, and no ``..`` anywhere.

    Raises:
        ValueError: the id is unsafe; the message quotes the id and says why.
    """
    if not isinstance(session_id, str):
        raise ValueError(f"invalid session id {session_id!r}: must be a string")
    reason = ""
    if not session_id:
        reason = "must not be empty"
    elif len(session_id) > SESSION_ID_MAX_LENGTH:
        reason = f"longer than {SESSION_ID_MAX_LENGTH} characters"
    elif "/" in session_id or "\\" in session_id:
        reason = "must not contain path separators"
    elif ".." in session_id:
        reason = "must not contain '..'"
    elif not _SAFE.fullmatch(session_id):
        reason = (
            "may hold only ASCII letters, digits, '.', '_' and '-', "
            "and must start with a letter or digit"
        )
    if reason:
        raise ValueError(f"invalid session id {session_id!r}: {reason}")
    return session_id


def new_session_id() -> str:
    """A fresh random id (12 hex digits, the form the app uses)."""
    return uuid.uuid4().hex[:12]
