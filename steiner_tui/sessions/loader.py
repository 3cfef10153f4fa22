"""Read ``session.jsonl`` back into a lineage, tolerating whatever a crash or a disk left behind.

Every line is parsed on its own. A line that is not UTF-8, not JSON, not an object, of an unknown
type, or malformed for its type becomes a ``LogProblem`` with its 1-based line number, and the
rest of the log still loads. Only an unreadable folder or log raises (``SessionLoadError``).

Two repairs make a log cut by a crash usable again (both are appended after everything that was
sent, so the prefix of the last request is untouched):

* streamed text left in trailing ``partial`` records becomes an ``incomplete`` assistant
  message, exactly as a cancelled reply is stored;
* tool calls of the last assistant message that have no result get an "interrupted" result,
  because every provider requires one result per call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.errors import SessionLoadError
from steiner_tui.sessions.ids import validate_session_id
from steiner_tui.sessions.log_parse import (
    LogProblem,
    LogState,
    RequestRecord,
    SessionHeader,
    parse_log_bytes,
)
from steiner_tui.sessions.meta import SessionMeta, read_meta
from steiner_tui.sessions.records import LOG_FILE_NAME

__all__ = [
    "INTERRUPTED_TOOL_RESULT",
    "LoadedSession",
    "LogProblem",
    "RequestRecord",
    "SessionHeader",
    "SessionLoadError",
    "load_session",
]

INTERRUPTED_TOOL_RESULT = (
    "The session was interrupted before this tool call finished; it may or may not have run."
)


@dataclass(frozen=True, slots=True)
class LoadedSession:
    """A session read back from disk.

    Attributes:
        session_id: the folder name.
        directory: the session folder.
        header: the header record (None when line 1 was lost).
        lineage: every generation, rebuilt exactly; repairs appended to the active one.
        last_main_request: the last logged one (zero when none).
        problems: each bad line, in order.
        meta: ``meta.json`` when readable, else derived from the log.
        requests: logged request metadata, in order.
        mode: the last logged execution mode.
        restored_incomplete: a streamed reply was restored as an ``incomplete`` message.
        repaired_tool_results: interrupted results added for calls that had none.
        logged_messages: how many messages of the active generation are in the log (the
            repairs come after them and are written when the session is resumed).
    """

    session_id: str
    directory: Path
    header: SessionHeader | None
    lineage: ConversationLineage
    last_main_request: LastMainRequest
    problems: tuple[LogProblem, ...]
    meta: SessionMeta
    requests: tuple[RequestRecord, ...] = ()
    mode: str = "build"
    restored_incomplete: bool = False
    repaired_tool_results: int = 0
    logged_messages: int = 0
    skill_toggles: tuple[tuple[str, bool], ...] = field(default=())

    @property
    def prompt_cache_key(self) -> str:
        return self.header.prompt_cache_key if self.header is not None else ""

    @property
    def project_root(self) -> str:
        return self.header.project_root if self.header is not None else self.meta.project_root


def _repairs(state: LogState) -> tuple[list[Message], bool]:
    active = state.generations[-1]
    extra: list[Message] = []
    restored = False
    text, reasoning = "".join(state.partial_text), "".join(state.partial_reasoning)
    if text or reasoning:
        extra.append(
            Message(
                "assistant", text, reasoning=reasoning, turn=state.partial_turn, incomplete=True
            )
        )
        restored = True
    messages = (*active.messages, *extra)
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    last_calls = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if last_calls is not None and last_calls.tool_calls:
        for call in last_calls.tool_calls:
            if call.id not in answered:
                extra.append(
                    Message(
                        "tool",
                        INTERRUPTED_TOOL_RESULT,
                        name=call.name,
                        tool_call_id=call.id,
                        turn=last_calls.turn,
                    )
                )
    return extra, restored


def _meta(session_id: str, state: LogState, lineage: ConversationLineage, size: int) -> SessionMeta:
    header = state.header
    return SessionMeta(
        session_id=session_id,
        project_root=header.project_root if header else "",
        created=header.created if header else None,
        last_activity=state.last_time,
        alias=header.alias if header else "",
        model=header.model if header else "",
        generations=len(lineage.generations),
        messages=len(lineage.active.messages),
        size_bytes=size,
        forked_from=header.forked_from if header else "",
    )


def load_session(directory: Path) -> LoadedSession:
    """Load the session in ``directory`` (``CONFIG/sessions/<id>/``).

    Raises:
        ValueError: the folder name is not a valid session id.
        SessionLoadError: the folder or its ``session.jsonl`` cannot be read.
    """
    session_id = validate_session_id(directory.name)
    path = directory / LOG_FILE_NAME
    if not directory.is_dir():
        raise SessionLoadError(f"session {session_id!r}: no session folder at {directory}")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SessionLoadError(f"session {session_id!r}: no session log at {path}") from None
    except OSError as exc:
        raise SessionLoadError(f"session {session_id!r}: cannot read {path}: {exc}") from exc
    state = parse_log_bytes(data)
    extra, restored = _repairs(state)
    generations = list(state.generations)
    active = generations[-1]
    logged = len(active.messages)
    if extra:
        generations[-1] = ConversationGeneration(
            active.id,
            (*active.messages, *extra),
            active.summary,
            active.backend_state,
            active.outcome,
            active.created_at,
        )
    lineage = ConversationLineage(tuple(generations))
    meta = read_meta(directory) or _meta(session_id, state, lineage, len(data))
    return LoadedSession(
        session_id=session_id,
        directory=directory,
        header=state.header,
        lineage=lineage,
        last_main_request=state.last_main_request,
        problems=tuple(state.problems),
        meta=meta,
        requests=tuple(state.requests),
        mode=state.mode,
        restored_incomplete=restored,
        repaired_tool_results=len(extra) - int(restored),
        logged_messages=logged,
        skill_toggles=tuple(state.skill_toggles),
    )
