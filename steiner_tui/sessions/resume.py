"""Open a session for the app: a new one, or a resumed one rebuilt exactly from its log.

Resuming restores the conversation and the prefix of the last request:

* the lineage is rebuilt from the log (a reply cut off by a crash comes back ``incomplete``);
* the prompt cache key is the session's own (from the log header), so the LastMainRequest seed
  can match; the seed is kept only when alias, model and cache key all match (the runner checks);
* the enabled skill set is seeded from the envelopes already sent (``effective_skills``), and
  every replayed envelope is reported as a ``skill_state`` event; only envelopes the driver
  composed count (``LoadedSession.skill_messages``), never text the user typed;
* the session date is captured afresh (a resumed session is a new session identity), and
  ParentUsage starts empty (it is never saved).

``open_session_for_app`` returns the inputs (``SessionOpening``); ``open_interactive_session``
builds the driver from them and a base ``SessionSpec``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.session_factory import SessionSpec, build_interactive_session
from steiner_tui.agent.tool_calls import ToolRunner
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import EventSink, FanoutSink
from steiner_tui.engine.skills.effective import effective_skills_of_messages
from steiner_tui.engine.skills.replay import replay_skill_states
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.ids import new_session_id
from steiner_tui.sessions.loader import LoadedSession, LogProblem
from steiner_tui.sessions.store import SessionNotFoundError, SessionStore
from steiner_tui.sessions.writer import SessionLog
from steiner_tui.tools.base import Mode, PermissionCallback, reject_all
from steiner_tui.tools.results import RESULTS_FOLDER, DirectoryResultStore

__all__ = [
    "LATEST",
    "OpenedSession",
    "SessionOpening",
    "open_interactive_session",
    "open_session_for_app",
    "resume_interactive_session",
]

LATEST = "latest"
"""``--resume`` without an id: the most recently active session of the project."""


def cache_key_for(session_id: str) -> str:
    """The prompt cache key of a session (``steiner-<id>``, as ``from_config`` derives it)."""
    return f"steiner-{session_id}"


@dataclass(frozen=True, slots=True)
class SessionOpening:
    """What the app needs to build the driver of a new or resumed session.

    Attributes:
        session_id: the session's id (its folder name).
        session_dir: ``CONFIG/sessions/<id>/``.
        project_root: the project (a resumed session's recorded root).
        prompt_cache_key: the session's cache key (resumed: from its header).
        loaded: the loaded session (None for a new session).
    """

    session_id: str
    session_dir: Path
    project_root: Path
    prompt_cache_key: str
    loaded: LoadedSession | None = None

    @property
    def resumed(self) -> bool:
        return self.loaded is not None

    @property
    def lineage(self) -> ConversationLineage | None:
        return self.loaded.lineage if self.loaded is not None else None

    @property
    def seed(self) -> LastMainRequest | None:
        return self.loaded.last_main_request if self.loaded is not None else None

    @property
    def enabled_skills(self) -> tuple[str, ...] | None:
        """Resumed: the skills in force in the active generation; new: None (use config)."""
        if self.loaded is None:
            return None
        blocks = effective_skills_of_messages(self.loaded.skill_messages)
        return tuple(block.name for block in blocks)

    @property
    def mode(self) -> Mode:
        mode = self.loaded.mode if self.loaded is not None else "build"
        return cast(Mode, mode if mode in ("build", "plan") else "build")

    @property
    def problems(self) -> tuple[LogProblem, ...]:
        return self.loaded.problems if self.loaded is not None else ()

    @property
    def archive(self) -> FileHistoryArchive:
        return FileHistoryArchive(self.session_dir)

    def open_log(self, clock: Callable[[], datetime], **options: Any) -> SessionLog:
        """The session log: appended to when resumed, created otherwise.

        Raises:
            OSError: the log cannot be opened or created.
        """
        if self.loaded is not None:
            return SessionLog.resume(self.loaded, clock=clock, **options)
        return SessionLog.create(self.session_dir, clock=clock, **options)

    def spec_for(self, base: SessionSpec) -> SessionSpec:
        """``base`` adjusted to this session: id, cache key, archive, skills, mode, date."""
        main = replace(base.main, prompt_cache_key=self.prompt_cache_key)
        spec = replace(
            base,
            main=main,
            session_id=self.session_id,
            compaction=replace(base.compaction, archive=self.archive),
            results=DirectoryResultStore(self.session_dir / RESULTS_FOLDER),
        )
        if self.loaded is not None:
            enabled = self.enabled_skills or ()
            spec = replace(
                spec, enabled_skills=enabled, mode=self.mode, session_date=self.started_at
            )
        return spec

    @property
    def started_at(self) -> datetime | None:
        """When a resumed session started (its header's ``created``), in the local zone: its
        date line keeps the bytes it had, so the cached prefix survives the resume. None for a
        new session, or a log whose header was lost (the date is then captured afresh)."""
        header = self.loaded.header if self.loaded is not None else None
        if header is None or header.created is None:
            return None
        return header.created.astimezone()


def open_session_for_app(
    project_root: Path, resume: str | None, sessions_base: Path
) -> SessionOpening:
    """Choose the session the app opens.

    Args:
        project_root: the project given on the command line.
        resume: None for a new session, ``"latest"`` for the project's most recent one, or an id.
        sessions_base: ``paths.sessions_dir()`` (tests pass a temporary folder).

    Raises:
        ValueError: ``resume`` is not a valid session id.
        SessionNotFoundError: no such session, or no session for the project.
        SessionLoadError: the session's log cannot be read.
    """
    store = SessionStore(sessions_base)
    root = project_root.resolve()
    if resume is None:
        session_id = new_session_id()
        return SessionOpening(
            session_id, store.session_dir(session_id), root, cache_key_for(session_id)
        )
    if resume == LATEST:
        row = store.latest(root)
        if row is None:
            raise SessionNotFoundError(f"no saved session for {root} in {sessions_base}")
        resume = row.session_id
    loaded = store.load(resume)
    recorded = Path(loaded.project_root) if loaded.project_root else root
    return SessionOpening(
        loaded.session_id,
        loaded.directory,
        recorded,
        loaded.prompt_cache_key or cache_key_for(loaded.session_id),
        loaded,
    )


@dataclass(frozen=True, slots=True)
class OpenedSession:
    """A running interactive session and its log."""

    driver: InteractiveDriver
    log: SessionLog
    opening: SessionOpening


def open_interactive_session(
    base: SessionSpec,
    opening: SessionOpening,
    *,
    estimator: RequestEstimator,
    tools: ToolRunner | None,
    sink: EventSink,
    clock: Clock | None = None,
    permission: PermissionCallback = reject_all,
    log_options: dict[str, Any] | None = None,
) -> OpenedSession:
    """Build the interactive driver of ``opening`` with its session log in the sink fan-out.

    ``sink`` (the UI) receives every engine event plus, when resuming, one ``skill_state``
    event per replayed envelope of the active generation.

    Raises:
        OSError: the session log cannot be opened.
    """
    clock = clock or SystemClock()
    log = opening.open_log(clock.now, **(log_options or {}))
    driver = build_interactive_session(
        opening.spec_for(base),
        estimator=estimator,
        tools=tools,
        sink=FanoutSink((log, sink)),
        clock=clock,
        permission=permission,
        lineage=opening.lineage,
        seed=opening.seed,
    )
    log.bind(driver.runner)
    if opening.loaded is not None:
        replay_skill_states(opening.loaded.skill_messages, sink)
    return OpenedSession(driver, log, opening)


def resume_interactive_session(
    base: SessionSpec,
    sessions_base: Path,
    session_id: str = LATEST,
    **kwargs: Any,
) -> OpenedSession:
    """Resume ``session_id`` (default: the latest of ``base.project_root``); see
    ``open_interactive_session`` for the keyword arguments.

    Raises:
        ValueError, SessionNotFoundError, SessionLoadError: as ``open_session_for_app``.
    """
    opening = open_session_for_app(base.project_root, session_id, sessions_base)
    return open_interactive_session(base, opening, **kwargs)
