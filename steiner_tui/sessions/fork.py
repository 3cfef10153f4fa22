"""Fork a session at a generation or a message into a new session id.

The fork's log is written fresh (a header naming the source, then one ``generation`` record per
generation kept, their large texts in its own ``session.text``) into a hidden temporary folder,
fsynced, and renamed into place, so a fork exists whole or not at all. Backend states are dropped:
a stateful provider's transcript belongs to the source session. ``history.md`` is copied, so
archive notes in kept summaries still find the summarized turns. The fork gets its own prompt cache
key (``steiner-<new id>``). The pins are kept (a ``pin`` record each, after the generations), and
so are the tool calls' statuses the source log recorded (``statuses`` in the ``generation``
records) and the answers to their permission requests (a ``permission`` record each, after the
pins): a resumed fork shows a failed call as failed, and what was allowed, as the source does.

The temporary folder is named ``.fork-<id>-<pid>-<random>``: a fork killed before its rename
leaves it behind, and ``remove_stale_forks`` (run by every fork, and when the workbench or
``sessions`` starts) removes those whose process is gone. A ``history.md`` that is a symlink
is not copied (``history_archive``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import msgspec

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.sessions.history_archive import HISTORY_FILE_NAME
from steiner_tui.sessions.ids import new_session_id, validate_session_id
from steiner_tui.sessions.loader import LogProblem
from steiner_tui.sessions.log_file import write_fresh_log
from steiner_tui.sessions.meta import SessionMeta, write_meta
from steiner_tui.sessions.records import LOG_FILE_NAME, LOG_VERSION, HeaderRecord, PermissionRecord
from steiner_tui.sessions.store import SessionStore
from steiner_tui.sessions.text_file import TEXT_FILE_NAME
from steiner_tui.sessions.titles import title_of

__all__ = ["ForkResult", "cut_lineage", "fork_session", "remove_stale_forks"]

_FORK_PREFIX = ".fork-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_stale_forks(base: Path) -> list[Path]:
    """Remove the temporary folders of forks whose process has ended; the folders removed."""
    removed: list[Path] = []
    try:
        entries = [e for e in base.iterdir() if e.name.startswith(_FORK_PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        parts = entry.name.removeprefix(_FORK_PREFIX).rsplit("-", 2)
        pid = int(parts[1]) if len(parts) == 3 and parts[1].isdigit() else 0
        if pid == os.getpid() or (pid and _alive(pid)):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


class ForkResult(msgspec.Struct, frozen=True):
    """The new session, its lineage, and the problems found reading the source."""

    session_id: str
    directory: Path
    lineage: ConversationLineage
    source_problems: tuple[LogProblem, ...] = ()


def cut_lineage(
    lineage: ConversationLineage, generation: int | None = None, message: int | None = None
) -> ConversationLineage:
    """The lineage up to generation ``generation`` (default: the active one), keeping only its
    first ``message`` messages when given; backend states are cleared.

    Raises:
        ValueError: no such generation, or ``message`` is outside ``0..len(messages)``.
    """
    generations = list(lineage.generations)
    if generation is not None:
        ids = [g.id for g in generations]
        if generation not in ids:
            raise ValueError(f"no generation {generation}; the session has generations {ids}")
        generations = generations[: ids.index(generation) + 1]
    last = generations[-1]
    if message is not None:
        if not 0 <= message <= len(last.messages):
            raise ValueError(
                f"message must be between 0 and {len(last.messages)} for generation {last.id}, "
                f"got {message}"
            )
        generations[-1] = msgspec.structs.replace(last, messages=last.messages[:message])
    kept = tuple(msgspec.structs.replace(g, backend_state=None) for g in generations)
    return ConversationLineage(kept, lineage.pins)


def fork_session(
    store: SessionStore,
    source_id: str,
    *,
    clock: Callable[[], datetime],
    generation: int | None = None,
    message: int | None = None,
    new_id: str | None = None,
) -> ForkResult:
    """Fork ``source_id`` into a new session (see the module docstring).

    Args:
        store: where both sessions live.
        source_id: the session to fork.
        clock: the injected clock (the fork's creation time).
        generation: the last generation kept (default: the active one).
        message: how many messages of that generation to keep (default: all).
        new_id: the fork's id (default: a fresh one).

    Raises:
        ValueError: an invalid id, generation or message number.
        SessionNotFoundError: no such source session.
        SessionLoadError: the source log cannot be read.
        FileExistsError: ``new_id`` is taken.
    """
    loaded = store.load(source_id)
    lineage = cut_lineage(loaded.lineage, generation, message)
    fork_id = validate_session_id(new_id or new_session_id())
    target = store.session_dir(fork_id)
    if target.exists():
        raise FileExistsError(f"session {fork_id!r} already exists")
    kept = lineage.active
    calls = {c.id for g in lineage.generations for m in g.messages for c in m.tool_calls}
    origin = f"{source_id}@g{kept.id}" + (f":m{message}" if message is not None else "")
    header = loaded.header
    now = clock()
    alias, model = (header.alias, header.model) if header else (loaded.meta.alias, "")
    store.base.mkdir(parents=True, exist_ok=True)
    remove_stale_forks(store.base)
    tmp = store.base / f"{_FORK_PREFIX}{fork_id}-{os.getpid()}-{os.urandom(4).hex()}"
    tmp.mkdir(mode=0o700)
    try:
        write_fresh_log(
            tmp,
            HeaderRecord(
                version=LOG_VERSION,
                session_id=fork_id,
                project_root=loaded.project_root,
                created=now,
                alias=alias,
                model=model,
                prompt_cache_key=f"steiner-{fork_id}",
                forked_from=origin,
            ),
            lineage,
            loaded.tool_statuses,
            tail=[
                PermissionRecord(answer=answer)
                for answer in loaded.permission_answers.values()
                if answer.call_id in calls
            ],
        )
        history = loaded.directory / HISTORY_FILE_NAME
        if history.is_file() and not history.is_symlink():
            shutil.copy2(history, tmp / HISTORY_FILE_NAME)
        files = (tmp / LOG_FILE_NAME, tmp / TEXT_FILE_NAME)
        size = sum(f.stat().st_size for f in files if f.exists())
        meta = SessionMeta(
            fork_id,
            project_root=loaded.project_root,
            created=now,
            last_activity=now,
            alias=alias,
            model=model,
            generations=len(lineage.generations),
            messages=len(kept.messages),
            size_bytes=size,
            title=title_of(lineage),
            forked_from=origin,
        )
        write_meta(tmp, meta)
        tmp.rename(target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ForkResult(fork_id, target, lineage, loaded.problems)
