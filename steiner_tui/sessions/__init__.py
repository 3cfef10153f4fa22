"""Durable sessions: the JSONL log, lineage, history.md, resume, fork, delete and evict.

Layout: ``CONFIG/sessions/<session id>/`` holds ``session.jsonl`` and ``session.text`` (append-only,
see ``records``), ``meta.json`` (rewritten atomically) and ``history.md`` (the compaction
archive). ``SessionLog`` writes a live session; ``load_session`` reads one back, reporting bad
lines as ``LogProblem``s instead of raising; ``SessionStore`` lists, deletes and evicts;
``fork_session`` copies a prefix into a new id; ``find_session`` picks the session to resume. This
package persists and loads; ``agent.session_factory`` builds sessions (new or resumed) over it.
"""

from steiner_tui.sessions.errors import SessionLoadError, SessionNotFoundError
from steiner_tui.sessions.fork import ForkResult, cut_lineage, fork_session
from steiner_tui.sessions.ids import SESSION_ID_MAX_LENGTH, new_session_id, validate_session_id
from steiner_tui.sessions.loader import (
    INTERRUPTED_TOOL_RESULT,
    LoadedSession,
    LogProblem,
    RequestRecord,
    SessionHeader,
    load_session,
)
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.resume import LATEST, cache_key_for, find_session
from steiner_tui.sessions.store import (
    DEFAULT_KEEP,
    EvictResult,
    SessionInfo,
    SessionStore,
)
from steiner_tui.sessions.writer import SessionLog

__all__ = [
    "DEFAULT_KEEP",
    "INTERRUPTED_TOOL_RESULT",
    "LATEST",
    "SESSION_ID_MAX_LENGTH",
    "EvictResult",
    "ForkResult",
    "LoadedSession",
    "LogProblem",
    "RequestRecord",
    "SessionHeader",
    "SessionInfo",
    "SessionLoadError",
    "SessionLog",
    "SessionMeta",
    "SessionNotFoundError",
    "SessionStore",
    "cache_key_for",
    "cut_lineage",
    "find_session",
    "fork_session",
    "load_session",
    "new_session_id",
    "validate_session_id",
]
