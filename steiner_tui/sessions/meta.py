"""``meta.json``: the small summary the sessions list reads instead of parsing every log.

It is rewritten whole (never appended), so it is written to a temporary file in the same folder
and renamed over the old one: a reader sees the old file or the new one, never half of either.
It is not fsynced: only the log is (once per turn boundary), and after a power loss a missing
or empty ``meta.json`` is read as missing. A new session writes it with its first message,
then at every turn boundary. A missing, unreadable or another session's ``meta.json`` (a folder
copied under a new id) is not an error; the list falls back to the log's header line, its first
message (read from the head of the log only) and the file's modification time.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import msgspec

from steiner_tui.sessions.records import META_FILE_NAME

__all__ = ["SessionMeta", "atomic_write", "own_meta", "read_meta", "write_meta"]


class SessionMeta(msgspec.Struct, frozen=True):
    """What the sessions list shows about one session (the fields of ``meta.json``).

    Attributes:
        session_id: the folder name.
        project_root: the project the session worked on.
        created: when the session started.
        last_activity: the latest turn boundary written (or a new session's first message).
        alias: provider alias of the main model.
        model: backend model id.
        generations: how many generations the lineage has.
        messages: messages in the active generation.
        size_bytes: size of ``session.jsonl``.
        title: the first line of the first real user message (envelopes stripped).
        forked_from: ``<id>@g<generation>[:m<messages>]`` for a fork, else ``""``.
    """

    session_id: str
    project_root: str = ""
    created: datetime | None = None
    last_activity: datetime | None = None
    alias: str = ""
    model: str = ""
    generations: int = 1
    messages: int = 0
    size_bytes: int = 0
    title: str = ""
    forked_from: str = ""

    def replace(self, **changes: object) -> SessionMeta:
        """A copy with ``changes`` applied."""
        return msgspec.structs.replace(self, **changes)


def atomic_write(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically (temporary file, fsync, rename).

    A failure (a full disk) leaves ``path`` as it was and no temporary file behind. ``sync``
    False skips the fsync: a crash of the process still leaves the old file or the new one
    (the rename is atomic), only a power loss may leave neither.

    Raises:
        OSError: the folder cannot be written (its ``filename`` is ``path``).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error


def write_meta(session_dir: Path, meta: SessionMeta) -> None:
    """Rewrite ``meta.json`` in ``session_dir`` atomically.

    Raises:
        OSError: the folder cannot be written.
    """
    plain = msgspec.to_builtins(meta)
    try:
        data = json.dumps(plain, ensure_ascii=False, indent=2).encode("utf-8")
    except UnicodeEncodeError:  # a title with lone surrogates: ASCII escapes carry it
        data = json.dumps(plain, ensure_ascii=True, indent=2).encode()
    # Not fsynced: meta.json is a cache of the log (the list falls back to the log's head
    # when it is missing or unreadable), and its fsync doubled every turn's disk flushes.
    atomic_write(session_dir / META_FILE_NAME, data + b"\n", sync=False)


def read_meta(session_dir: Path) -> SessionMeta | None:
    """The session's ``meta.json``, or None when missing or unreadable."""
    try:
        raw = (session_dir / META_FILE_NAME).read_bytes()
        return msgspec.convert(json.loads(raw), SessionMeta)
    except (OSError, ValueError, msgspec.ValidationError, RecursionError):
        return None


def own_meta(session_dir: Path) -> SessionMeta | None:
    """``read_meta``, but None for another session's (a folder copied under a new id: its row
    would carry the other id, and ``sessions delete`` that id would remove the other one)."""
    meta = read_meta(session_dir)
    return meta if meta is not None and meta.session_id == session_dir.name else None
