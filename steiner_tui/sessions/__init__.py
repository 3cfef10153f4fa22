"""Durable sessions: the JSONL log, lineage, history.md, resume, fork, delete and evict.

Layout: ``CONFIG/sessions/<session id>/`` holds ``session.jsonl`` and ``session.text`` (append-only,
see ``records``), ``meta.json`` (rewritten atomically) and ``history.md`` (the compaction
archive). ``SessionLog`` writes a live session; ``load_session`` reads one back, reporting bad
lines as ``LogProblem``s instead of raising; ``SessionStore`` lists, deletes and evicts;
``fork_session`` copies a prefix into a new id; ``find_session`` picks the session to resume. This
package persists and loads; ``agent.session_factory`` builds sessions (new or resumed) over it.
"""

from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.store import SessionStore

__all__ = ["fork_session", "SessionStore"]
