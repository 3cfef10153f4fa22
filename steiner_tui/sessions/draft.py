"""``draft.json``: what was typed in the prompt and not sent when the app quit.

A user who quits with half a message in the prompt finds it there again on ``--resume``. The
draft is the prompt's text as it stood (a long paste as its placeholder line) and the pastes
its placeholders stand for. It is written when the app exits and removed once a message is
sent after it came back, so a draft already sent never returns. A session that never had a
message has no folder, and its draft is not kept. An unreadable or malformed draft is
reported, never fatal: the session resumes without it.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from steiner_tui.sessions.meta import atomic_write

__all__ = ["DRAFT_FILE_NAME", "Draft", "read_draft", "save_draft"]

DRAFT_FILE_NAME = "draft.json"


class Draft(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The prompt's unsent text and the pastes its placeholder lines stand for."""

    text: str
    pastes: dict[str, str] = {}


def save_draft(session_dir: Path, draft: Draft) -> bool:
    """Keep ``draft`` in ``session_dir`` (an empty text removes the kept one); False when the
    session has no folder (it never had a message).

    Raises:
        OSError: the folder cannot be written.
    """
    if not session_dir.is_dir():
        return False
    if not draft.text.strip():
        drop_draft(session_dir)
        return True
    # ASCII escapes: a lone surrogate pasted from a broken file is kept as it was typed.
    data = json.dumps(msgspec.to_builtins(draft), ensure_ascii=True).encode()
    atomic_write(session_dir / DRAFT_FILE_NAME, data)
    return True


def read_draft(session_dir: Path) -> Draft | None:
    """The draft kept in ``session_dir``, or None when there is none.

    Raises:
        ValueError: the file cannot be read or is not a draft (the message says which).
    """
    path = session_dir / DRAFT_FILE_NAME
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror or error}") from error
    try:
        return msgspec.convert(json.loads(data), Draft)
    except (ValueError, msgspec.ValidationError, RecursionError) as error:
        raise ValueError(f"{path}: not a draft ({error})") from error


def drop_draft(session_dir: Path) -> None:
    """Remove the draft kept in ``session_dir`` (none is fine).

    Raises:
        OSError: it cannot be removed.
    """
    (session_dir / DRAFT_FILE_NAME).unlink(missing_ok=True)
