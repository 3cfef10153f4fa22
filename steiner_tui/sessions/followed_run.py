"""What a session log reads off the runner it follows, and the header and meta made from it.

``SessionLog`` sees the runner only as a ``LoggedRun`` (sessions never import the agent); the
functions here turn what it reads into the log's header record and ``meta.json``'s fields.
Kept apart from ``writer`` so its sink says only when to write.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.records import LOG_VERSION, HeaderRecord
from steiner_tui.sessions.titles import title_of

__all__ = ["LoggedRun", "header_record", "meta_at_boundary", "new_meta"]


class _Model(Protocol):
    @property
    def alias(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def prompt_cache_key(self) -> str: ...


class _Turn(Protocol):
    @property
    def turn(self) -> int: ...


class LoggedRun(Protocol):
    """What the log reads off the runner it follows (``agent.runner.Runner`` has it)."""

    @property
    def project_root(self) -> Path: ...
    @property
    def model(self) -> _Model: ...
    @property
    def lineage(self) -> ConversationLineage: ...
    @property
    def last_main_request(self) -> LastMainRequest: ...
    @property
    def state(self) -> _Turn: ...


def new_meta(session_id: str, runner: LoggedRun, created: datetime) -> SessionMeta:
    """The meta of a session that ``runner`` begins now."""
    return SessionMeta(
        session_id,
        project_root=str(runner.project_root),
        created=created,
        alias=runner.model.alias,
        model=runner.model.model,
    )


def header_record(
    session_id: str,
    runner: LoggedRun | None,
    meta: SessionMeta,
    cache_key: str,
    clock: Callable[[], datetime],
) -> HeaderRecord:
    """The log's header: from the runner when bound, else from ``meta`` and ``cache_key``."""
    model = runner.model if runner is not None else None
    return HeaderRecord(
        version=LOG_VERSION,
        session_id=session_id,
        project_root=str(runner.project_root) if runner is not None else meta.project_root,
        created=meta.created or clock(),
        alias=model.alias if model is not None else meta.alias,
        model=model.model if model is not None else meta.model,
        prompt_cache_key=model.prompt_cache_key if model is not None else cache_key,
    )


def meta_at_boundary(
    meta: SessionMeta, runner: LoggedRun | None, *, at: datetime, size: int
) -> SessionMeta:
    """``meta`` at a turn boundary at ``at``, the log and its texts being ``size`` bytes."""
    updates: dict[str, Any] = {"last_activity": at, "size_bytes": size}
    if runner is not None:
        lineage = runner.lineage
        updates["generations"] = len(lineage.generations)
        updates["messages"] = len(lineage.active.messages)
        updates["alias"] = runner.model.alias
        updates["model"] = runner.model.model
        if not meta.title:
            updates["title"] = title_of(lineage)
    return meta.replace(**updates)
