"""Parse ``session.jsonl`` line by line into a ``LogState``; never raise for content.

Each line is decoded whole (a block of lines in one call when each of them is one valid record,
``records.decode_records``; else a line at a time), then applied inside its own ``try``: any
failure becomes a ``LogProblem`` for that line and changes nothing. Parsing is linear in the
log: messages grow in a list, and a request record keeps only its new hashes
(``RequestRecord.message_hashes``); request records are read whole only when asked for
(``request_values.LoggedRecords``).
"""

from __future__ import annotations

import contextlib
import io
import mmap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec
from msgspec.structs import replace

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.events import PermissionAnswered
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import Remedy
from steiner_tui.sessions.record_values import kept_messages, message_of_line
from steiner_tui.sessions.records import (
    LINE_OF_ROLE,
    LOG_VERSION,
    BackendStateRecord,
    ErrorRecord,
    GenerationRecord,
    HeaderRecord,
    LastMainRequestRecord,
    MessageLine,
    ModelRecord,
    ModeRecord,
    PartialRecord,
    PermissionRecord,
    PinRecord,
    Record,
    RequestEntry,
    ResumedRecord,
    SkillRecord,
    TimedRecord,
    UsageRecord,
    WarningRecord,
    decode_record,
    decode_records,
)
from steiner_tui.sessions.request_values import (
    LoggedRecords,
    RequestHead,
    RequestRecord,
    implied_last_main,
    stop_values,
)
from steiner_tui.sessions.text_file import LostText, StoredTexts

__all__ = [
    "APP_STOPPED",
    "KEPT_WARNINGS",
    "ActiveGeneration",
    "LogProblem",
    "LoggedError",
    "LogState",
    "RequestRecord",
    "SessionHeader",
    "parse_log_bytes",
    "stop_cut_request",
]


APP_STOPPED = "the app stopped while the reply streamed"
"""Why the request whose reply a stopped app cut off has no usage (the inspector's error)."""
KEPT_WARNINGS = frozenset(
    {
        "compaction_off",
        "compaction_failed",
        "compaction_held",
        "summary_rejected",
        "reply_limit",
        "session_log_restored",
        "provider_wait",
        "reply_bytes_replaced",
    }
)
"""Engine warnings that stay in the conversation as well as in a toast, and that a resumed
conversation shows where they were: ``off`` nearing the hard limit, why a compaction failed or
a summary was rejected and how long automatic compaction then waits, a reply cut at the
completion limit, a session log written anew after its folder went
(``agent.session_factory.LOG_RESTORED``), a server's retry delay (a toast is gone long
before a wait of up to a minute is over), and bytes of a reply that were not UTF-8 (shown as
U+FFFD in it)."""


class LoggedError(msgspec.Struct, frozen=True):
    """A turn that ended in an error (or a ``KEPT_WARNINGS`` warning: ``warning``), where it
    happened in its generation's conversation.

    ``position`` is how many messages of generation ``generation`` came before it, so a resumed
    conversation shows the error entry (the warning's notice) where it was.
    """

    generation: int
    position: int
    code: str
    message: str
    remedies: tuple[Remedy, ...] = ()
    warning: bool = False


class LogProblem(msgspec.Struct, frozen=True):
    """One bad line of the log: its 1-based number and what is wrong with it."""

    line_number: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line_number}: {self.message}"


SessionHeader = HeaderRecord
"""The log's first record: who the session is and which model it started on."""


class ActiveGeneration(msgspec.Struct):
    """The generation records are being added to: its record, and its messages in a list
    until the end (with the driver prefix of each, ``record_values.trusted_content``)."""

    record: GenerationRecord = GenerationRecord(id=0)
    messages: list[Message] = msgspec.field(default_factory=list)
    drivers: list[int | None] = msgspec.field(default_factory=list)

    @property
    def id(self) -> int:
        return self.record.id

    def freeze(
        self, messages: tuple[Message, ...] | None = None, lost: Mapping[int, Message] | None = None
    ) -> ConversationGeneration:
        """The generation (with ``messages``, equal to the list's, when given), without the
        messages held for ``lost`` texts (``LogState.lost``)."""
        r = self.record
        held = self.messages if messages is None else messages
        chain = Chain([m for m in held if id(m) not in lost] if lost else held)
        return ConversationGeneration(
            r.id, chain, r.summary, r.backend_state, r.outcome, r.created_at
        )


class LogState(msgspec.Struct):
    """Everything read so far."""

    header: SessionHeader | None = None
    done: list[ConversationGeneration] = msgspec.field(default_factory=list)
    """The generations before the active one."""
    active: ActiveGeneration = msgspec.field(default_factory=ActiveGeneration)
    last_main_request: LastMainRequest = msgspec.field(default_factory=LastMainRequest)
    """The last logged one: a ``last_main_request`` record's, or the one the last usage of a
    main request implies (``main_usage``, made at the end of the log)."""
    main_usage: tuple[RequestHead, datetime | None] | None = None
    """The last main request with a usage, and when the usage came, after the last
    ``last_main_request`` record: only the last implies the log's (5,000 at a resume)."""
    requests: LoggedRecords = msgspec.field(default_factory=LoggedRecords)
    problems: list[LogProblem] = msgspec.field(default_factory=list)
    mode: str = "build"
    switched_model: str = ""
    """The ref of a ``/model`` switch that no main request has gone to since ("": none)."""
    compaction_mode: str = ""
    """The last compaction mode set live ("": none)."""
    skill_toggles: list[tuple[str, bool]] = msgspec.field(default_factory=list)
    partials: list[PartialRecord] = msgspec.field(default_factory=list)
    """The streamed reply since the last message (or request or generation) record."""
    last_time: datetime | None = None
    records: int = 0
    damaged_since_request: bool = False
    message_lines: list[int] = msgspec.field(default_factory=list)
    """The line that holds each message of the active generation (a message or generation)."""
    warned_generations: set[int] = msgspec.field(default_factory=set)
    """Generations already reported as written without their generation record."""
    pins: dict[str, None] = msgspec.field(default_factory=dict)
    lost: dict[int, Message] = msgspec.field(default_factory=dict)
    """The messages held in the place of records whose text was lost, by id (kept alive here
    so that no other message takes an id): a generation record's indices count them, the
    lineage does not hold them (``without_lost``)."""
    """The pin keys held, in the order they were pinned."""
    errors: list[LoggedError] = msgspec.field(default_factory=list)
    """Every error record and kept warning, placed in its generation."""
    since_request: list[Message] = msgspec.field(default_factory=list)
    """The messages appended since the last request, generation or resumed record."""
    tool_statuses: dict[str, str] = msgspec.field(default_factory=dict)
    """How tool calls ended, by call id, where a ``tool`` line recorded it."""
    permission_answers: dict[str, PermissionAnswered] = msgspec.field(default_factory=dict)
    """How tool calls' permission requests were answered, by call id."""
    texts: dict[str, str] = msgspec.field(default_factory=dict)
    """The message contents read, each held once (``record_values.message_of_line``)."""
    stored: StoredTexts = msgspec.field(default_factory=StoredTexts)
    """``session.text``, where the records' large texts are."""

    def problem(self, line: int, message: str) -> None:
        self.problems.append(LogProblem(line, message))

    def without_lost(self) -> bool:
        """Take the messages held for lost texts out of the active generation (and its
        drivers and lines); whether there were any."""
        active, lost = self.active, self.lost
        if not lost:
            return False
        kept = [i for i, m in enumerate(active.messages) if id(m) not in lost]
        if len(kept) == len(active.messages):
            return False
        active.messages = [active.messages[i] for i in kept]
        active.drivers = [active.drivers[i] for i in kept]
        self.message_lines = [self.message_lines[i] for i in kept]
        return True


def _header(state: LogState, record: HeaderRecord, line: int) -> None:
    if state.records or state.header is not None:
        state.problem(line, "a header record after the start of the log was ignored")
        return
    _check_version(state, record.version, line)
    state.header = record
    state.last_time = state.last_time or record.created


def _check_version(state: LogState, version: int | None, line: int) -> None:
    """Records of a newer layout are read by this version's rules: say so (the log is kept)."""
    if version is not None and version > LOG_VERSION:
        state.problem(
            line,
            f"written by a newer steiner-tui (log version {version}; this one reads up to "
            f"{LOG_VERSION}): what it added may be missing or read wrongly",
        )


def _check_gen(state: LogState, gen: int | None, line: int) -> None:
    active = state.active.id
    if gen is not None and gen != active and gen not in state.warned_generations:
        state.warned_generations.add(gen)
        state.problem(
            line,
            f"record for generation {gen} while generation {active} is active "
            "(a generation record is missing); applied to the active generation",
        )


def _message_line(state: LogState, record: MessageLine, line: int) -> None:
    active = state.active
    messages = active.messages
    try:
        message, driver = message_of_line(record, messages, state.texts, state.stored)
    except LostText:
        # Held in its place while the log is read: a later generation record counts it.
        role = str(type(record).__struct_config__.tag)
        held = Message(role, "", turn=record.turn or 0)
        state.lost[id(held)] = held
        messages.append(held)
        active.drivers.append(None)
        state.message_lines.append(line)
        raise
    if record.status and message.role == "tool":
        state.tool_statuses[message.tool_call_id] = record.status
    state.since_request.append(message)
    messages.append(message)
    active.drivers.append(driver)
    state.message_lines.append(line)
    state.partials.clear()


def _request(state: LogState, record: RequestEntry, line: int) -> None:
    # Any field may come from the record before: a lost line makes all of them uncertain.
    exact = not state.damaged_since_request
    tip = state.requests.add(record, state.since_request, exact)
    if not exact:
        state.problem(
            line,
            "a damaged line precedes this request record; what it takes from the request "
            f"before (its first {tip.shared} hashes) may be inexact",
        )
    if not tip.compaction:
        state.switched_model = ""
    state.damaged_since_request = False
    state.since_request = []
    if record.usage and not tip.compaction:
        state.main_usage = (tip, record.usage_at or tip.time)
    state.last_time = record.usage_at or tip.time or state.last_time
    state.partials.clear()


def _generation(state: LogState, record: GenerationRecord, line: int) -> None:
    messages, lost = kept_messages(record, state.active.messages, state.stored)
    for position, exc in lost.items():
        state.problem(line, f"the generation record's text for message {position} was lost: {exc}")
        state.lost[id(messages[position])] = messages[position]
    if record.reset:
        state.done = []
        state.pins.clear()
    elif record.id <= state.active.id:
        state.problem(
            line, f"generation {record.id} does not follow generation {state.active.id}; ignored"
        )
        return
    else:
        _carry_errors(state, record)
        state.done.append(state.active.freeze(lost=state.lost))
    state.tool_statuses.update(record.statuses)
    state.active = ActiveGeneration(record, messages, [None] * len(messages))
    state.since_request = []
    state.message_lines = [line] * len(messages)
    state.last_time = record.created_at or state.last_time
    state.partials.clear()


def stop_cut_request(state: LogState) -> None:
    """The request whose reply the partial records hold got no usage and never will when the
    app stopped before it came: it ends with ``APP_STOPPED`` and what streamed, as a dropped
    connection does."""
    tip = state.requests.last
    if state.partials and tip is not None and not (tip.usage or tip.cancelled or tip.error):
        streamed = sum(len(p.text) for p in state.partials)
        state.requests.end_last(error=APP_STOPPED, streamed_chars=streamed)


def _carry_errors(state: LogState, record: GenerationRecord) -> None:
    """An error or kept warning that follows a message the new generation retains follows it
    there too, as the live conversation shows it after a compaction."""
    moved = {item: new for new, item in enumerate(record.messages) if isinstance(item, int)}
    for error in [e for e in state.errors if e.generation == state.active.id]:
        new = moved.get(error.position - 1)
        if new is not None:
            state.errors.append(replace(error, generation=record.id, position=new + 1))


def _error(state: LogState, record: ErrorRecord) -> None:
    remedies: list[Remedy] = []
    for remedy in record.remedies:
        with contextlib.suppress(msgspec.ValidationError):  # an action this version does not know
            remedies.append(msgspec.convert(remedy, Remedy))
    position = len(state.active.messages)
    state.errors.append(
        LoggedError(state.active.id, position, record.code, record.message, tuple(remedies))
    )


def _usage(state: LogState, record: UsageRecord) -> None:
    request = state.requests.last
    if request is None or record.model != request.model:
        return
    if not record.usage:  # why none will come
        state.requests.end_last(**stop_values(record.stopped, record.streamed))
        return
    if not request.compaction:
        state.main_usage = (request, record.at)
    if not request.usage:  # the first usage reported for a request stays
        state.requests.end_last(usage=record.usage, cache=record.cache)


_BY_TYPE: dict[type, Callable[[LogState, Any, int], None]] = {
    **dict.fromkeys(LINE_OF_ROLE.values(), _message_line),
    RequestEntry: _request,
}
"""The records almost every line holds, applied by their type: matching a struct class costs
0.1 us a pattern (``isinstance`` through its metaclass)."""


def _apply(state: LogState, record: Record, line: int) -> None:
    """Apply a record of the other types (``parse_log_bytes`` applies those of ``_BY_TYPE``)."""
    match record:
        case HeaderRecord():
            _header(state, record, line)
        case PartialRecord():
            state.partials.append(record)
        case GenerationRecord():
            _generation(state, record, line)
        case BackendStateRecord():
            _check_gen(state, record.gen, line)
            state.active.record = replace(state.active.record, backend_state=record.state)
        case LastMainRequestRecord():
            state.last_main_request, state.main_usage = record.request, None
            state.last_time = record.request.at or state.last_time
        case PinRecord():
            if record.pinned:
                state.pins.setdefault(record.key)
            else:
                state.pins.pop(record.key, None)
        case PermissionRecord():
            state.permission_answers[record.answer.call_id] = record.answer
        case ModeRecord():
            state.mode = record.mode
        case ModelRecord():
            state.switched_model = record.ref or state.switched_model
            state.compaction_mode = record.compaction or state.compaction_mode
        case SkillRecord():
            state.skill_toggles.append((record.name, record.enabled))
        case ErrorRecord():
            _error(state, record)
        case WarningRecord(code=code, message=message) if code in KEPT_WARNINGS:
            at = len(state.active.messages)
            state.errors.append(LoggedError(state.active.id, at, code, message, warning=True))
        case UsageRecord():
            _usage(state, record)
        case ResumedRecord():
            _check_version(state, record.version, line)
            stop_cut_request(state)
            state.requests.resumed.add(len(state.requests))
            # The resumed writer wrote what follows against the records read so far.
            state.damaged_since_request = False
            state.since_request = []
    if isinstance(record, TimedRecord):
        state.last_time = record.at or state.last_time


_BLOCK = 1 << 16
"""Bytes of log decoded at once (then the lines up to the next newline): a block's records are
made, applied and freed before the next block's, so the memory they take is reused."""


def _blocks(data: bytes) -> Iterator[bytes]:
    """``data`` in blocks of whole lines, of ``_BLOCK`` bytes and up to the next newline (the
    last: whatever is left)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _BLOCK) + 1 or len(data)
        yield data[start:end]
        start = end


def _parse_lines(state: LogState, data: bytes, number: int) -> int:
    """Apply each line of ``data`` to ``state``, the lines numbered after ``number``; the last
    line's number."""
    for block in _blocks(data):
        decoded = decode_records(block)
        # Else one line at a time (with its newline), never a copy of a block as separate lines.
        items: Iterable[Any] = io.BytesIO(block) if decoded is None else decoded
        for item in items:
            number += 1
            record: Record = item
            if decoded is None:
                raw: bytes = item
                try:
                    record = decode_record(raw)
                except Exception as exc:
                    # Any failure (including RecursionError on absurd nesting) stays on its line.
                    state.problem(number, str(exc) if isinstance(exc, ValueError) else repr(exc))
                    # A line that may have been a request record (its type is lost or says so).
                    known = raw.startswith(b'{"type":"')
                    state.damaged_since_request |= not known or raw.startswith(b'{"type":"request"')
                    continue
            try:
                _BY_TYPE.get(type(record), _apply)(state, record, number)
            except Exception as exc:
                text = str(exc) if isinstance(exc, ValueError) else repr(exc)
                tag = type(record).__struct_config__.tag
                if isinstance(exc, LostText):
                    text = f"the {tag} record was lost: {text}"
                elif not text.startswith("malformed"):
                    text = f"malformed {tag} record: {text}"
                state.problem(number, text)
                state.damaged_since_request |= isinstance(record, RequestEntry)
                continue
            state.records += 1
    return number


def parse_log_bytes(
    data: bytes,
    texts: bytes | mmap.mmap = b"",
    partials: tuple[int, Sequence[PartialRecord]] | None = None,
) -> LogState:
    """Parse a whole log (``texts``: its ``session.text``, ``text_file.map_texts``); each bad
    line becomes a problem, the rest still applies. ``partials``: ``session.partial``'s records
    and the place in ``data`` they were written at (``partial_reply.read_partials``), read there
    as if the log held them."""
    state = LogState(stored=StoredTexts(texts))
    if partials is None:
        number = _parse_lines(state, data, 0)
    else:
        offset, records = partials
        number = _parse_lines(state, data[:offset], 0)
        state.partials.extend(records)
        number = _parse_lines(state, data[offset:], number)
    if state.main_usage is not None:
        (head, at), header = state.main_usage, state.header
        key = header.prompt_cache_key if header is not None else ""
        state.last_main_request = implied_last_main(head, key, at) or state.last_main_request
    if not number:
        state.problems.append(LogProblem(1, "the log is empty (no header record)"))
    elif state.header is None and not any(p.line_number == 1 for p in state.problems):
        state.problems.insert(0, LogProblem(1, "the log does not start with a header record"))
    return state
