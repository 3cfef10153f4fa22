"""Parse ``session.jsonl`` line by line into a mutable ``LogState``; never raise for content.

Each line is decoded, parsed and applied inside its own ``try``: a failure of any kind becomes a
``LogProblem`` for that line and parsing moves on. A record's effect is applied only after it
parsed completely, so a bad line changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.serialize import message_from_dict
from steiner_tui.sessions.records import (
    generation_from_record,
    last_main_request_from_record,
    parse_time,
)

__all__ = ["LogProblem", "LogState", "RequestRecord", "SessionHeader", "parse_log_bytes"]

MODES = ("build", "plan")


@dataclass(frozen=True, slots=True)
class LogProblem:
    """One bad line of the log: its 1-based number and what is wrong with it."""

    line_number: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line_number}: {self.message}"


@dataclass(frozen=True, slots=True)
class SessionHeader:
    """The log's first record: who the session is and which model it started on."""

    session_id: str
    project_root: str
    created: datetime | None
    alias: str
    model: str
    prompt_cache_key: str
    forked_from: str = ""


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """A logged request snapshot's metadata (the messages themselves are not repeated)."""

    index: int
    request_id: str
    model: str
    provider: str
    time: datetime | None
    message_hashes: tuple[str, ...]
    prompt_bytes: int
    estimated_prompt_tokens: int
    max_tokens: int
    compaction: bool
    generation: str


@dataclass(slots=True)
class LogState:
    """Everything read so far."""

    header: SessionHeader | None = None
    generations: list[ConversationGeneration] = field(
        default_factory=lambda: [ConversationGeneration(0)]
    )
    last_main_request: LastMainRequest = field(default_factory=LastMainRequest)
    requests: list[RequestRecord] = field(default_factory=list)
    problems: list[LogProblem] = field(default_factory=list)
    mode: str = "build"
    skill_toggles: list[tuple[str, bool]] = field(default_factory=list)
    partial_text: list[str] = field(default_factory=list)
    partial_reasoning: list[str] = field(default_factory=list)
    partial_turn: int = 0
    last_time: datetime | None = None
    records: int = 0
    warned_generations: set[int] = field(default_factory=set)
    """Generations already reported as written without their generation record."""

    @property
    def active(self) -> ConversationGeneration:
        return self.generations[-1]

    def clear_partial(self) -> None:
        self.partial_text.clear()
        self.partial_reasoning.clear()

    def problem(self, line: int, message: str) -> None:
        self.problems.append(LogProblem(line, message))


def _int(record: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = record.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key!r} must be an integer")
    return value


def _str(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def _header(state: LogState, record: Mapping[str, Any], line: int) -> None:
    header = SessionHeader(
        session_id=_str(record, "session_id"),
        project_root=_str(record, "project_root"),
        created=parse_time(record.get("created")),
        alias=_str(record, "alias"),
        model=_str(record, "model"),
        prompt_cache_key=_str(record, "prompt_cache_key"),
        forked_from=_str(record, "forked_from"),
    )
    if state.records or state.header is not None:
        state.problem(line, "a header record after the start of the log was ignored")
        return
    state.header = header
    state.last_time = state.last_time or header.created


def _check_gen(state: LogState, record: Mapping[str, Any], line: int) -> None:
    gen = _int(record, "gen", state.active.id)
    if gen != state.active.id and gen not in state.warned_generations:
        state.warned_generations.add(gen)
        state.problem(
            line,
            f"record for generation {gen} while generation {state.active.id} is active "
            "(a generation record is missing); applied to the active generation",
        )


def _message(state: LogState, record: Mapping[str, Any], line: int) -> None:
    payload = record.get("message")
    if not isinstance(payload, Mapping):
        raise ValueError("'message' must be an object")
    message = message_from_dict(payload)
    _check_gen(state, record, line)
    active = state.active
    state.generations[-1] = _with_messages(active, (*active.messages, message))
    state.clear_partial()


def _with_messages(
    generation: ConversationGeneration, messages: tuple[Any, ...]
) -> ConversationGeneration:
    return ConversationGeneration(
        generation.id,
        messages,
        generation.summary,
        generation.backend_state,
        generation.outcome,
        generation.created_at,
    )


def _partial(state: LogState, record: Mapping[str, Any], line: int) -> None:
    text, reasoning, turn = _str(record, "text"), _str(record, "reasoning"), _int(record, "turn", 0)
    if not state.partial_text and not state.partial_reasoning:
        state.partial_turn = turn
    state.partial_text.append(text)
    state.partial_reasoning.append(reasoning)


def _request(state: LogState, record: Mapping[str, Any], line: int) -> None:
    hashes = record.get("hashes", [])
    if not isinstance(hashes, list) or not all(isinstance(h, str) for h in hashes):
        raise ValueError("'hashes' must be a list of strings")
    time = parse_time(record.get("time"))
    state.requests.append(
        RequestRecord(
            index=_int(record, "index"),
            request_id=_str(record, "request_id"),
            model=_str(record, "model"),
            provider=_str(record, "provider"),
            time=time,
            message_hashes=tuple(hashes),
            prompt_bytes=_int(record, "prompt_bytes", 0),
            estimated_prompt_tokens=_int(record, "estimated_prompt_tokens", 0),
            max_tokens=_int(record, "max_tokens", 0),
            compaction=bool(record.get("compaction", False)),
            generation=str(record.get("generation", "")),
        )
    )
    state.last_time = time or state.last_time
    state.clear_partial()


def _generation(state: LogState, record: Mapping[str, Any], line: int) -> None:
    generation = generation_from_record(record)
    if record.get("reset", False):
        state.generations = [generation]
    elif generation.id <= state.active.id:
        state.problem(
            line,
            f"generation {generation.id} does not follow generation {state.active.id}; ignored",
        )
        return
    else:
        state.generations.append(generation)
    state.last_time = generation.created_at or state.last_time
    state.clear_partial()


def _backend_state(state: LogState, record: Mapping[str, Any], line: int) -> None:
    value = record.get("state")
    if value is not None and not isinstance(value, str):
        raise ValueError("'state' must be a string or null")
    _check_gen(state, record, line)
    active = state.active
    state.generations[-1] = ConversationGeneration(
        active.id, active.messages, active.summary, value, active.outcome, active.created_at
    )


def _last_main_request(state: LogState, record: Mapping[str, Any], line: int) -> None:
    state.last_main_request = last_main_request_from_record(record)
    state.last_time = state.last_main_request.at or state.last_time


def _mode(state: LogState, record: Mapping[str, Any], line: int) -> None:
    mode = _str(record, "mode")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    state.mode = mode


def _skill(state: LogState, record: Mapping[str, Any], line: int) -> None:
    state.skill_toggles.append((_str(record, "name"), bool(record.get("enabled", False))))


def _timestamped(state: LogState, record: Mapping[str, Any], line: int) -> None:
    state.last_time = parse_time(record.get("at")) or state.last_time


Handler = Callable[[LogState, Mapping[str, Any], int], None]

_HANDLERS: dict[str, Handler] = {
    "header": _header,
    "message": _message,
    "partial": _partial,
    "request": _request,
    "generation": _generation,
    "backend_state": _backend_state,
    "last_main_request": _last_main_request,
    "mode": _mode,
    "skill": _skill,
    "usage": _timestamped,
    "resumed": _timestamped,
    "warning": _timestamped,
    "error": _timestamped,
}


def _parse_line(raw: bytes) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid UTF-8 (byte {exc.start + 1})") from None
    if not text.strip():
        raise ValueError("empty line")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    return record


def parse_log_bytes(data: bytes) -> LogState:
    """Parse a whole log; each bad line becomes a problem, the rest still applies."""
    state = LogState()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last record
    for number, raw in enumerate(lines, start=1):
        kind: Any = None
        try:
            record = _parse_line(raw)
            kind = record.get("type")
            handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise ValueError(f"unknown record type {kind!r}")
        except Exception as exc:
            # Any failure (including RecursionError on absurd nesting) stays on its line.
            state.problem(number, str(exc) if isinstance(exc, ValueError) else repr(exc))
            continue
        try:
            handler(state, record, number)
        except Exception as exc:
            text = str(exc) if isinstance(exc, ValueError) else repr(exc)
            if not text.startswith("malformed"):
                text = f"malformed {kind} record: {text}"
            state.problem(number, text)
            continue
        if number == 1 and kind != "header":
            state.problem(1, "the log does not start with a header record")
        state.records += 1
    if not lines:
        state.problems.append(LogProblem(1, "the log is empty (no header record)"))
    elif state.header is None and not any(p.line_number == 1 for p in state.problems):
        state.problem(1, "the log does not start with a header record")
    return state
