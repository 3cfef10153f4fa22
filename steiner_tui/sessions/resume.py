"""Choosing and reading back the session to resume; building it is the session factory's job.

Resuming restores the conversation and the prefix of the last request. This module finds the
saved session (``find_session``) and reads what a resumed session continues with from it; the
session factory (``agent.session_factory``) builds the runner, the driver and the appended log:

* the lineage is rebuilt from the log (a reply cut off by a crash comes back ``incomplete``);
* the prompt cache key is the session's own (from the log header, ``resumed_cache_key``), so
  the LastMainRequest seed can match; the seed is kept only when alias, model and cache key all
  match (the runner checks);
* the enabled skill set is seeded from the envelopes already sent (``resumed_skills``), and
  every replayed envelope is reported as a ``skill_state`` event; only envelopes the driver
  composed count (``LoadedSession.skill_messages``), never text the user typed;
* a compaction mode set live (F4, ``/compaction``) is kept (``resumed_compaction_mode``);
* request numbering goes on after the last logged request (``next_request_number``);
* the session date is the one it started with (``resumed_date``: its header's ``created``), so
  its date line keeps the bytes it had and the cached prefix survives the resume; ParentUsage
  starts empty (it is never saved);
* the calibration of estimates against reported usage is learnt again from the usage the log
  holds (``resumed_calibration``), so the panel, the soft trigger and the fit check say after a
  resume what they said before it.
"""

from __future__ import annotations

import typing
from datetime import datetime
from pathlib import Path

from steiner_tui.engine.compaction.policy import AUTO_COMPACTION_MODES, AutoCompaction
from steiner_tui.engine.skills.effective import SkillFold, fold_skills, user_contents
from steiner_tui.engine.tokens.calibration import TokenCalibration
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.store import SessionNotFoundError, SessionStore

__all__ = [
    "LATEST",
    "cache_key_for",
    "find_session",
    "next_request_number",
    "resumed_cache_key",
    "resumed_calibration",
    "resumed_compaction_mode",
    "resumed_date",
    "resumed_mode",
    "resumed_project",
    "resumed_skills",
]

LATEST = "latest"
"""``--resume`` without an id: the most recently active session of the project."""


def cache_key_for(session_id: str) -> str:
    """The prompt cache key of a session: ``steiner-<id>``."""
    return f"steiner-{session_id}"


def find_session(project_root: Path, resume: str, sessions_base: Path) -> LoadedSession:
    """Load the session to resume.

    Args:
        project_root: the project given on the command line (``LATEST`` looks for its latest).
        resume: ``LATEST`` for the project's most recent session, or a session id.
        sessions_base: ``paths.sessions_dir()`` (tests pass a temporary folder).

    Raises:
        ValueError: ``resume`` is not a valid session id.
        SessionNotFoundError: no such session, or no session for the project.
        SessionLoadError: the session's log cannot be read.
    """
    store = SessionStore(sessions_base)
    if resume == LATEST:
        root = project_root.resolve()
        row = store.latest(root)
        if row is None:
            raise SessionNotFoundError(f"no saved session for {root} in {sessions_base}")
        resume = row.session_id
    return store.load(resume)


def resumed_project(loaded: LoadedSession, given: Path) -> Path:
    """The folder a resumed session goes on in: the project it recorded, wherever the command
    runs (``given`` when it recorded none or that folder is gone). Its config, pastes and
    status line are that project's, as its tools are."""
    recorded = Path(loaded.project_root) if loaded.project_root else given
    return recorded if recorded.is_dir() else given


def resumed_cache_key(loaded: LoadedSession) -> str:
    """The session's own prompt cache key (its header's, else ``cache_key_for`` its id)."""
    return loaded.prompt_cache_key or cache_key_for(loaded.session_id)


def resumed_date(loaded: LoadedSession) -> datetime | None:
    """When the session started (its header's ``created``), in the local zone; None when the
    header was lost (the date is then captured afresh)."""
    header = loaded.header
    if header is None or header.created is None:
        return None
    return header.created.astimezone()


def resumed_skills(loaded: LoadedSession) -> SkillFold:
    """The fold of the active generation's skill envelopes (the driver's only): the skills in
    force are its ``effective`` blocks."""
    return fold_skills(user_contents(loaded.skill_messages))


def resumed_mode(loaded: LoadedSession) -> str:
    """The last logged execution mode (``build`` when the log holds none it knows)."""
    return loaded.mode if loaded.mode in ("build", "plan") else "build"


def resumed_compaction_mode(loaded: LoadedSession | None) -> AutoCompaction | None:
    """The compaction mode last set live in the session (F4, ``/compaction``); None: none was,
    the configuration's applies."""
    mode = loaded.compaction_mode if loaded is not None else ""
    return typing.cast(AutoCompaction, mode) if mode in AUTO_COMPACTION_MODES else None


def next_request_number(loaded: LoadedSession) -> int:
    """The number of the resumed session's next request: after the last one logged (from 1)."""
    return max((r.index for r in loaded.requests.heads), default=0) + 1


CALIBRATION_REPLAYED = 64
"""The latest usage reports replayed into the calibration: each moves the factor a quarter of
the way (``CALIBRATION_STEP``), so what came before them weighs 0.75^64 (1e-8) and would not
change an estimate; replaying every one of 5,000 would add milliseconds to a resume."""


def resumed_calibration(loaded: LoadedSession, calibration: TokenCalibration) -> None:
    """Teach ``calibration`` what the session's last main requests with usage taught the
    runner (``Runner`` observes each on its usage; summary requests are not observed)."""
    for model, reported, raw in loaded.requests.usage_samples(CALIBRATION_REPLAYED):
        calibration.observe(model, reported, raw)
