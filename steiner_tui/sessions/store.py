"""The folder of sessions: list, find the latest, load, delete and evict.

``SessionStore`` is handed its base folder (``paths.sessions_dir()`` in the app, a temporary
folder in tests). Every id that reaches a path is validated first; folders whose names are not
valid ids (such as a fork's hidden temporary folder) are never listed or touched. Deleting or
evicting a session removes its whole folder: the log, ``session.text``, ``meta.json`` and
``history.md``.
"""

from __future__ import annotations

import builtins
import os
import shutil
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.plain import one_line
from steiner_tui.sessions.errors import SessionBusyError, SessionNotFoundError
from steiner_tui.sessions.ids import validate_session_id
from steiner_tui.sessions.loader import LoadedSession, load_session
from steiner_tui.sessions.lock import holding_lock, is_locked
from steiner_tui.sessions.meta import SessionMeta, own_meta
from steiner_tui.sessions.record_values import message_of_line
from steiner_tui.sessions.records import (
    LOG_FILE_NAME,
    GenerationRecord,
    HeaderRecord,
    MessageLine,
    decode_record,
)
from steiner_tui.sessions.text_file import TEXT_FILE_NAME, StoredTexts
from steiner_tui.sessions.titles import message_title, readable_title
from steiner_tui.units import byte_count, local_minute

__all__ = [
    "LIST_COLUMNS",
    "LIST_GIVE_WAY",
    "LIST_RIGHT",
    "EvictResult",
    "SessionInfo",
    "SessionBusyError",
    "SessionNotFoundError",
    "SessionStore",
]

DEFAULT_KEEP = 50
"""Sessions kept by ``evict`` unless configured (``[sessions] keep``)."""

LIST_COLUMNS = ("id", "project", "last activity", "model", "gen", "msgs", "size", "title")
"""The sessions list's columns (``sessions list``, the sessions screen): ``SessionInfo.cells``."""
LIST_GIVE_WAY = ("size", "gen", "msgs", "model", "project")
"""Columns left out, in this order, while the list is too narrow for the title (how a session
is recognised)."""
LIST_RIGHT = frozenset({"gen", "msgs", "size"})
"""Columns of figures, aligned right."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_HEAD_BYTES = 256 * 1024
"""How much of a log without ``meta.json`` is read, after its header, for its first message."""


class SessionInfo(msgspec.Struct, frozen=True):
    """One row of the sessions list.

    ``problem`` is non-empty when the folder holds no readable log; such sessions are listed so
    they can be deleted.
    """

    meta: SessionMeta
    directory: Path
    problem: str = ""

    @property
    def session_id(self) -> str:
        return self.meta.session_id

    @property
    def last_activity(self) -> datetime:
        return self.meta.last_activity or self.meta.created or _EPOCH

    @property
    def label(self) -> str:
        """The list's title cell: the title, ``[problem]``, or ``[no messages]`` for a session
        with nothing in it (its log empty: it was killed, or the disk full, at its first
        write)."""
        meta = self.meta
        if self.problem:
            return f"[{self.problem}]"
        if not meta.title and not meta.messages and meta.generations <= 1:
            return "[no messages]"
        return meta.title

    def cells(self) -> tuple[str, ...]:
        """The list's cells, in ``LIST_COLUMNS``' order, each one line of text: ``gen`` is the
        active generation's number (0: never compacted), ``msgs`` its messages."""
        meta = self.meta
        model = f"{meta.alias}/{meta.model}" if meta.alias else meta.model
        return tuple(
            one_line(value)
            for value in (
                self.session_id,
                meta.project_root or "—",
                local_minute(self.last_activity),
                model or "—",
                str(max(meta.generations - 1, 0)),
                f"{meta.messages:,}",
                byte_count(meta.size_bytes),
                self.label,
            )
        )


class EvictResult(msgspec.Struct, frozen=True):
    """What ``evict`` removed, what it could not remove (id, error), and what was open."""

    removed: tuple[str, ...]
    failed: tuple[tuple[str, str], ...] = ()
    busy: tuple[str, ...] = ()


def _mtime(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).astimezone()
    except OSError:
        return _EPOCH


def _first_message(lines: list[bytes], directory: Path) -> Message | None:
    """The first message of the log's first lines (its text, when in ``session.text``, read
    from the head of that file); None when they hold none, its text is beyond that head, or a
    generation record comes first (a fork, which has meta)."""
    for line in lines:
        try:
            record = decode_record(line.rstrip(b"\n"))
            if isinstance(record, MessageLine):
                texts = b""
                if record.text is not None:
                    if sum(record.text) > _HEAD_BYTES:
                        return None  # beyond the head read, as a line beyond it is
                    with (directory / TEXT_FILE_NAME).open("rb") as handle:
                        texts = handle.read(_HEAD_BYTES)
                return message_of_line(record, (), stored=StoredTexts(texts))[0]
        except (ValueError, RecursionError, OSError):
            continue  # a bad line or a lost text: the loader reports it
        if isinstance(record, GenerationRecord):
            return None
    return None


def _meta_from_header(directory: Path) -> tuple[SessionMeta, str]:
    """Meta derived from the log's first lines and the file's size and time.

    A session killed in its first turn by a version that wrote ``meta.json`` only at turn
    boundaries has none: its first message (within the first ``_HEAD_BYTES``) gives it its
    title and at least one message, so it is listed and resumed as the latest. Only the head
    is read: the list reads every session.
    """
    log = directory / LOG_FILE_NAME
    session_id = directory.name
    try:
        with log.open("rb") as handle:
            first = handle.readline()
            head = handle.read(_HEAD_BYTES).splitlines(keepends=True)
        size = sum(f.stat().st_size for f in (log, directory / TEXT_FILE_NAME) if f.exists())
    except FileNotFoundError:
        return SessionMeta(session_id, last_activity=_mtime(directory)), "no session log"
    except OSError as error:
        problem = f"cannot read {LOG_FILE_NAME}: {error.strerror or error}"
        return SessionMeta(session_id, last_activity=_mtime(directory)), problem
    if head and not head[-1].endswith(b"\n"):
        head.pop()  # cut by the budget (or torn)
    message = _first_message(head, directory)
    try:
        header = decode_record(first.rstrip(b"\n"))
    except (ValueError, RecursionError):
        header = None
    if not isinstance(header, HeaderRecord):
        return SessionMeta(session_id, last_activity=_mtime(log), size_bytes=size), ""
    meta = SessionMeta(
        session_id,
        project_root=header.project_root,
        created=header.created,
        last_activity=_mtime(log),
        alias=header.alias,
        model=header.model,
        size_bytes=size,
        messages=0 if message is None else 1,
        title="" if message is None else message_title(message),
        forked_from=header.forked_from,
    )
    return meta, ""


def _unusable(directory: Path) -> str:
    """Why the session in ``directory`` cannot be resumed ("": it can be tried): the folder,
    its log or its ``session.text`` is a symbolic link (never read through), or the person may
    not read or write it (``meta.json`` is replaced in the folder, the log and the texts
    appended to)."""
    log = directory / LOG_FILE_NAME
    try:
        for path, name, search in (
            (directory, "the session folder", os.X_OK),
            (log, LOG_FILE_NAME, 0),
            (directory / TEXT_FILE_NAME, TEXT_FILE_NAME, 0),
        ):
            if path.is_symlink():
                return f"{name} is a symbolic link"
            if path is log and not log.exists():
                break
            if not path.exists():  # no text was large enough for it yet
                continue
            if not os.access(path, os.R_OK | search):
                return f"{name} cannot be read (permission denied)"
            if not os.access(path, os.W_OK):
                return f"{name} cannot be written (permission denied)"
    except OSError as error:
        return f"cannot read the session folder: {error.strerror or error}"
    return ""


class SessionStore:
    """Sessions under one base folder (``CONFIG/sessions``).

    Args:
        base: the folder holding one sub-folder per session (created when first needed).
    """

    def __init__(self, base: Path) -> None:
        self.base = base

    def session_dir(self, session_id: str) -> Path:
        """The folder of ``session_id``.

        Raises:
            ValueError: the id is not valid.
        """
        return self.base / validate_session_id(session_id)

    def exists(self, session_id: str) -> bool:
        return self.session_dir(session_id).is_dir()

    def _ids(self) -> list[str]:
        try:
            entries = list(os.scandir(self.base))
        except (FileNotFoundError, NotADirectoryError):
            return []
        ids: list[str] = []
        for entry in entries:
            try:
                validate_session_id(entry.name)
            except ValueError:
                continue
            if entry.is_dir():
                ids.append(entry.name)
        return ids

    def info(self, session_id: str) -> SessionInfo:
        """The list row of one session.

        Raises:
            ValueError: the id is not valid.
            SessionNotFoundError: there is no such session.
        """
        directory = self.session_dir(session_id)
        if not directory.is_dir():
            raise SessionNotFoundError(f"no session {session_id!r} in {self.base}")
        log = directory / LOG_FILE_NAME
        meta = own_meta(directory)
        if problem := _unusable(directory):  # resuming it would fail: the row says why
            kept = meta or SessionMeta(session_id, last_activity=_mtime(directory))
            return SessionInfo(kept, directory, problem)
        if meta is not None and log.is_file():
            title = readable_title(meta.title)  # one stored before pastes were told apart
            if title != meta.title:
                meta = msgspec.structs.replace(meta, title=title)
            return SessionInfo(meta, directory)
        derived, problem = _meta_from_header(directory)
        return SessionInfo(derived, directory, problem)

    def list(self, project_root: Path | None = None) -> list[SessionInfo]:
        """Every session (or those of ``project_root``), most recently active first."""
        rows: list[SessionInfo] = []
        wanted = str(project_root.resolve()) if project_root is not None else None
        for session_id in self._ids():
            try:
                row = self.info(session_id)
            except (SessionNotFoundError, OSError):
                continue  # removed meanwhile
            if wanted is None or row.meta.project_root == wanted:
                rows.append(row)
        rows.sort(key=lambda row: (row.last_activity, row.session_id), reverse=True)
        return rows

    def latest(self, project_root: Path) -> SessionInfo | None:
        """The most recently active session of ``project_root`` that has messages.

        A session without messages (left by versions that saved every launch, or a folder
        without a log) is skipped; one whose log may not be read or written is not (resuming
        it says why, rather than going on with an older one).
        """
        for row in self.list(project_root):
            if row.meta.messages or row.meta.generations > 1:
                return row
        return None

    def is_open(self, session_id: str) -> bool:
        """True when a running app (or run) has the session open (its lock is held)."""
        return is_locked(self.session_dir(session_id))

    def load(self, session_id: str) -> LoadedSession:
        """Load one session.

        Raises:
            ValueError: the id is not valid.
            SessionNotFoundError: there is no such session.
            SessionLoadError: its log cannot be read.
        """
        directory = self.session_dir(session_id)
        if not directory.is_dir():
            raise SessionNotFoundError(f"no session {session_id!r} in {self.base}")
        return load_session(directory)

    def delete(self, session_id: str) -> None:
        """Remove the session's whole folder (log, meta and ``history.md``).

        The session's lock is held while the folder is removed, so a session open in a running
        app is never deleted.

        Raises:
            ValueError: the id is not valid.
            SessionNotFoundError: there is no such session.
            SessionBusyError: the session is open in a running app.
            OSError: the folder cannot be removed.
        """
        directory = self.session_dir(session_id)
        if directory.is_symlink():
            directory.unlink()
            return
        if not directory.is_dir():
            raise SessionNotFoundError(f"no session {session_id!r} in {self.base}")
        with holding_lock(directory):
            shutil.rmtree(directory)

    def evict_candidates(
        self, keep: int, *, protect: Collection[str] = ()
    ) -> builtins.list[SessionInfo]:
        """The sessions ``evict(keep)`` would remove, most recently active first.

        Raises:
            ValueError: ``keep`` is negative.
        """
        if keep < 0:
            raise ValueError(f"keep must not be negative, got {keep}")
        return [row for row in self.list()[keep:] if row.session_id not in protect]

    def evict(self, keep: int = DEFAULT_KEEP, *, protect: Collection[str] = ()) -> EvictResult:
        """Keep the ``keep`` most recently active sessions and delete the others.

        Sessions open in a running app are never removed (``busy``).

        Args:
            keep: how many to keep (sessions in ``protect`` count towards it).
            protect: ids never removed (the session that is open).

        Raises:
            ValueError: ``keep`` is negative.
        """
        removed: list[str] = []
        failed: list[tuple[str, str]] = []
        busy: list[str] = []
        for row in self.evict_candidates(keep, protect=protect):
            try:
                self.delete(row.session_id)
                removed.append(row.session_id)
            except SessionBusyError:
                busy.append(row.session_id)
            except (OSError, SessionNotFoundError) as exc:
                failed.append((row.session_id, str(exc)))
        return EvictResult(tuple(removed), tuple(failed), tuple(busy))
