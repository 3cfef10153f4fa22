"""``meta.json``: the small summary the sessions list reads instead of parsing every log.

It is created atomically (a temporary file in the same folder renamed into place), then
rewritten in place at each turn boundary, padded to its old length. It is never fsynced: only
the log is (after each turn boundary, ``writer``). A reader that catches a rewrite half done,
or a file a power loss left empty, reads it as missing. A new session writes it with its
first message, then at every turn boundary. A missing, unreadable or another session's
``meta.json`` (a folder copied under a new id) is not an error; the list falls back to the
log's header line, its first message (read from the head of the log only) and the file's
modification time.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import msgspec

from steiner_tui.sessions.records import META_FILE_NAME

__all__ = ["MetaFile", "SessionMeta", "atomic_write", "own_meta", "read_meta", "write_meta"]


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
        size_bytes: size of ``session.jsonl`` and ``session.text``.
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


_SLACK = 64
"""Spaces after a newly written ``meta.json``: the room its figures grow into in place."""


def write_meta(session_dir: Path, meta: SessionMeta) -> None:
    """Write ``meta.json`` in ``session_dir`` (``MetaFile.write``, the file closed after)."""
    file = MetaFile(session_dir)
    try:
        file.write(meta)
    finally:
        file.close()


class MetaFile:
    """An open session's ``meta.json``: created atomically, then rewritten in place.

    The file is rewritten at every turn boundary; creating a temporary file and renaming it
    each time was the largest part of the session log's work per turn, and opening it by name
    each time still cost several times the write itself. So it stays open, and while the new
    text fits the file it is overwritten in place, padded with spaces to the file's length
    (JSON allows trailing whitespace): no block is allocated, so a full disk cannot stop it
    half way. A reader that catches a rewrite half done reads invalid JSON, which is read as
    missing, as after a crash (the list falls back to the log's head). Text that does not fit
    is written whole and renamed into place, with ``_SLACK`` spaces of room (and opened again
    at the next write), after ``before_replace`` (the session log fsyncs itself first, so the
    renamed file never claims more than a power loss leaves of the log).
    """

    def __init__(self, session_dir: Path, before_replace: Callable[[], None] | None = None) -> None:
        self.path = session_dir / META_FILE_NAME
        self._fd = -1
        self._size = 0
        """The file's size (only this session writes it while open)."""
        self._before_replace = before_replace

    def write(self, meta: SessionMeta) -> None:
        """Write ``meta``.

        Raises:
            OSError: the folder cannot be written.
        """
        try:
            data = msgspec.json.encode(meta)
        except UnicodeEncodeError:  # a title with lone surrogates: ASCII escapes carry it
            data = json.dumps(msgspec.to_builtins(meta), ensure_ascii=True).encode()
        if self._fd < 0:
            with contextlib.suppress(FileNotFoundError):
                self._fd = os.open(self.path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
                self._size = os.fstat(self._fd).st_size
        size = self._size if self._fd >= 0 else 0
        if len(data) + 1 > size:
            # New, or longer than the room it has: written whole and renamed, with room to
            # spare, so a full disk never leaves half of it (its blocks are there afterwards).
            self.close()
            if self._before_replace is not None:
                self._before_replace()
            atomic_write(self.path, data + b" " * _SLACK + b"\n", sync=False)
            return
        data = data + b" " * (size - len(data) - 1) + b"\n"
        view = memoryview(data)
        offset = 0
        while offset < len(view):
            offset += os.pwrite(self._fd, view[offset:], offset)

    def close(self) -> None:
        """Close the file (the next ``write`` opens it again)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


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
