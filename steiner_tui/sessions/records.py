"""The records of ``session.jsonl``, declared once as typed structures, and their encoding.

Every line is one record: a msgspec ``Struct`` of the tagged union ``Record`` (``tag_field
"type"``). This module is the only place that turns records into bytes and back; the writer, the
parser, ``fork`` and the store all go through it.

Record types (``gen`` is a generation id; fields left at their default are not written):

* ``header``: ``version``, ``session_id``, ``project_root``, ``created``, ``alias``, ``model``,
  ``prompt_cache_key``, optional ``forked_from``. Always the first line.
* ``message``: ``gen``, ``message`` (the message exactly as stored) and, for a user message
  the driver composed, ``driver``: how many leading characters (mode notice, skill envelopes
  and their separators) the driver produced. Resume trusts envelopes only in that prefix
  (``trusted_content``); what follows is the user's own text.
* ``partial``: ``gen``, ``turn``, ``text``, ``reasoning``: a slice of a reply still streaming.
  Consecutive partials concatenate; any later ``message``, ``request`` or ``generation``
  record supersedes them. Left over at the end of the log, they become an ``incomplete``
  assistant message.
* ``request``: a request snapshot's metadata (index, its number from 1; model, time, estimate,
  bytes, max_tokens, compaction flag) and its message hashes **relative to the previous request
  record**: ``shared`` leading hashes are the previous request's, ``hashes`` are the rest. A
  record's size so depends on what the request added, not on the conversation's length.
  (Version 1 logs wrote every hash with no ``shared``: the same rule with ``shared = 0``.)
* ``generation``: a whole generation (``id``, ``summary``, ``messages``, ``backend_state``,
  ``created_at``, ``outcome``); ``reset: true`` starts the lineage over with it. A message that
  the generation keeps from the one before it is written as its index there (an integer), so
  retained turns are stored once; an ``outcome`` whose summary is the generation's own leaves
  it out. Version 1 logs wrote every message and the summary twice; both read the same.
* ``backend_state``: ``gen``, ``state`` (string or null).
* ``last_main_request``: ``alias``, ``model``, ``prompt_cache_key``, ``at``.
* ``usage``, ``mode``, ``skill``, ``resumed``, ``warning``, ``error``: bookkeeping.

Lines are compact UTF-8 JSON. Text holding lone surrogates (which UTF-8 cannot carry) is
written with ASCII escapes instead, and lines are parsed with the standard library's JSON
reader (which accepts those escapes) before being converted to their structure, so every
string round-trips.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, cast

import msgspec

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.events import (
    CompactionOutcome,
    EditKind,
    HealthEvent,
    RequestSnapshot,
    RoomEdit,
)
from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import Image, Message, ToolCall
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import escape_user_text

__all__ = [
    "FIRST_NUMBERED_FROM_ONE",
    "LOG_FILE_NAME",
    "LOG_VERSION",
    "META_FILE_NAME",
    "BackendStateRecord",
    "ErrorRecord",
    "GenerationRecord",
    "HeaderRecord",
    "LastMainRequestRecord",
    "MessageData",
    "MessageRecord",
    "ModeRecord",
    "OutcomeData",
    "PartialRecord",
    "Record",
    "RequestEntry",
    "ResumedRecord",
    "SkillRecord",
    "UsageRecord",
    "WarningRecord",
    "decode_record",
    "encode_record",
    "generation_of",
    "generation_record",
    "last_main_request_of",
    "last_main_request_record",
    "message_data",
    "message_of",
    "message_record",
    "request_entry",
    "shared_prefix",
    "trusted_content",
]

LOG_VERSION = 3
"""3: requests numbered from 1; 2: relative request hashes and retained messages by index.

Version 1 and 2 logs still load: their requests were numbered from 0 and read one higher.
"""
FIRST_NUMBERED_FROM_ONE = 3
"""The first version whose ``request`` records number requests from 1."""
LOG_FILE_NAME = "session.jsonl"
META_FILE_NAME = "meta.json"


class _Data(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True):
    """Plain data inside a record: immutable, defaults left out of the line."""


class ToolCallData(_Data, frozen=True):
    id: str
    name: str
    arguments: Any = None
    raw_arguments: str = ""


class ImageData(_Data, frozen=True):
    media_type: str
    data: str


class MessageData(_Data, frozen=True):
    """A message as stored (every field of ``engine.messages.Message``)."""

    role: str
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallData, ...] = ()
    images: tuple[ImageData, ...] = ()
    name: str = ""
    tool_call_id: str = ""
    source: str = ""
    turn: int = 0
    incomplete: bool = False


class HealthData(_Data, frozen=True):
    severity: str = ""
    state: str = ""
    guidance: str = ""
    stage_count: int = 0


class EditData(_Data, frozen=True):
    """What a compaction did to fit the window (``RoomEdit``)."""

    kind: str
    where: str
    role: str = ""
    label: str = ""
    turn: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    saved_at: str = ""
    count: int = 1


class OutcomeData(_Data, frozen=True):
    """A compaction outcome (``pending_archive`` is transient and never written)."""

    applied: bool
    stage_count: int = 0
    modes: tuple[str, ...] = ()
    before_tokens: int = 0
    after_tokens: int = 0
    summary_model: str = ""
    fallback_status: str = ""
    fallback_reason: str = ""
    backend_state_cleared: bool = False
    health: HealthData | None = None
    at: datetime | None = None
    summarized_count: int = 0
    retained_count: int = 0
    steering: str = ""
    manual: bool = False
    summary: str | None = None
    """None: the same text as the generation's summary (written once)."""
    edits: tuple[EditData, ...] = ()


class _Record(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True, tag_field="type"):
    """A line of the log."""


class HeaderRecord(_Record, frozen=True, tag="header"):
    version: int
    """Always written (1, 2 or 3): which layout the rest of the log uses."""
    session_id: str = ""
    project_root: str = ""
    created: datetime | None = None
    alias: str = ""
    model: str = ""
    prompt_cache_key: str = ""
    forked_from: str = ""


class MessageRecord(_Record, frozen=True, tag="message"):
    message: MessageData
    gen: int | None = None
    driver: int | None = None
    """User messages: leading characters the driver composed (None: not recorded)."""


class PartialRecord(_Record, frozen=True, tag="partial"):
    gen: int | None = None
    turn: int = 0
    text: str = ""
    reasoning: str = ""


class RequestEntry(_Record, frozen=True, tag="request"):
    """A request snapshot's metadata with its hashes relative to the previous request."""

    index: int
    request_id: str = ""
    model: str = ""
    provider: str = ""
    time: datetime | None = None
    shared: int = 0
    hashes: tuple[str, ...] = ()
    block_message_count: int = 0
    prompt_bytes: int = 0
    blocks_bytes: int = 0
    tools_bytes: int = 0
    max_tokens: int = 0
    estimated_prompt_tokens: int = 0
    raw_prompt_tokens: int = 0
    estimate_strategy: str = ""
    compaction: bool = False
    generation: str = ""


class GenerationRecord(_Record, frozen=True, tag="generation"):
    id: int
    reset: bool = False
    summary: str = ""
    backend_state: str | None = None
    created_at: datetime | None = None
    outcome: OutcomeData | None = None
    messages: tuple[MessageData | int, ...] = ()
    """Each message, or its index in the generation before (a retained message)."""


class BackendStateRecord(_Record, frozen=True, tag="backend_state"):
    gen: int | None = None
    state: str | None = None


class LastMainRequestRecord(_Record, frozen=True, tag="last_main_request"):
    alias: str = ""
    model: str = ""
    prompt_cache_key: str = ""
    at: datetime | None = None


class UsageRecord(_Record, frozen=True, tag="usage"):
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    at: datetime | None = None


class ModeRecord(_Record, frozen=True, tag="mode"):
    mode: Literal["build", "plan"]
    at: datetime | None = None


class SkillRecord(_Record, frozen=True, tag="skill"):
    name: str
    enabled: bool = False
    at: datetime | None = None


class ResumedRecord(_Record, frozen=True, tag="resumed"):
    at: datetime | None = None
    version: int | None = None
    """The layout of the records after this one (an older log resumed by a newer app)."""


class WarningRecord(_Record, frozen=True, tag="warning"):
    code: str = ""
    message: str = ""
    at: datetime | None = None


class ErrorRecord(_Record, frozen=True, tag="error"):
    code: str = ""
    message: str = ""
    at: datetime | None = None


Record = (
    HeaderRecord
    | MessageRecord
    | PartialRecord
    | RequestEntry
    | GenerationRecord
    | BackendStateRecord
    | LastMainRequestRecord
    | UsageRecord
    | ModeRecord
    | SkillRecord
    | ResumedRecord
    | WarningRecord
    | ErrorRecord
)
"""Every record type of the log."""

_ENCODER = msgspec.json.Encoder()


def encode_record(record: Record) -> bytes:
    """One log line: compact JSON plus ``\\n``, as UTF-8 bytes."""
    try:
        return _ENCODER.encode(record) + b"\n"
    except UnicodeEncodeError:
        # Lone surrogates: ASCII escapes carry them exactly.
        plain = msgspec.to_builtins(record)
        return (json.dumps(plain, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def decode_record(raw: bytes) -> Record:
    """Parse one line into its record.

    Raises:
        ValueError: the line is not UTF-8, not JSON, not an object, of an unknown type, or
            malformed for its type; the message says which.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not valid UTF-8 (byte {exc.start + 1})") from None
    if not text.strip():
        raise ValueError("empty line")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    kind = data.get("type")
    try:
        record: Record = msgspec.convert(data, Record)
    except msgspec.ValidationError as exc:
        if "`$.type`" in str(exc) or "missing required field `type`" in str(exc):
            raise ValueError(f"unknown record type {kind!r}") from None
        raise ValueError(f"malformed {kind} record: {exc}") from None
    return record


# -- messages ------------------------------------------------------------------------------


def message_data(message: Message) -> MessageData:
    """The stored form of ``message``."""
    return MessageData(
        role=message.role,
        content=message.content,
        reasoning=message.reasoning,
        tool_calls=tuple(
            ToolCallData(
                id=call.id,
                name=call.name,
                arguments=thaw(call.arguments) if call.arguments is not None else None,
                raw_arguments=call.raw_arguments,
            )
            for call in message.tool_calls
        ),
        images=tuple(ImageData(media_type=i.media_type, data=i.data) for i in message.images),
        name=message.name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        turn=message.turn,
        incomplete=message.incomplete,
    )


def message_of(data: MessageData) -> Message:
    """The message ``data`` stores.

    Raises:
        ValueError: the role is unknown.
    """
    return Message(
        data.role,
        data.content,
        reasoning=data.reasoning,
        tool_calls=tuple(
            ToolCall(call.id, call.name, call.arguments, call.raw_arguments)
            for call in data.tool_calls
        ),
        images=tuple(Image(image.media_type, image.data) for image in data.images),
        name=data.name,
        tool_call_id=data.tool_call_id,
        source=data.source,
        turn=data.turn,
        incomplete=data.incomplete,
    )


def message_record(gen: int, message: Message) -> MessageRecord:
    """A ``message`` record; a user message also records its driver-composed prefix."""
    driver = None
    if message.role == "user" and not message.source:
        driver = len(message.content) - len(split_skill_blocks(message.content)[2])
    return MessageRecord(gen=gen, message=message_data(message), driver=driver)


def trusted_content(message: Message, driver: int | None) -> str:
    """The content of a user message with only its driver-composed prefix left parsable.

    Resume reads skill state from envelopes at the start of user messages. ``driver`` says
    where the driver's part ends; the rest is the user's own text, escaped here (the engine's
    rule, ``engine.skills.escape``) so that nothing in it can count as an envelope or a mode
    notice. ``None`` (a version 1 log) keeps the content as it is.
    """
    if driver is None or driver >= len(message.content):
        return message.content
    return message.content[:driver] + escape_user_text(message.content[driver:])


# -- compaction outcomes and generations ---------------------------------------------------


def _outcome_data(outcome: CompactionOutcome, summary: str) -> OutcomeData:
    health = outcome.health
    return OutcomeData(
        applied=outcome.applied,
        stage_count=outcome.stage_count,
        modes=outcome.modes,
        before_tokens=outcome.before_tokens,
        after_tokens=outcome.after_tokens,
        summary_model=outcome.summary_model,
        fallback_status=outcome.fallback_status,
        fallback_reason=outcome.fallback_reason,
        backend_state_cleared=outcome.backend_state_cleared,
        health=None
        if health is None
        else HealthData(
            severity=health.severity,
            state=health.state,
            guidance=health.guidance,
            stage_count=health.stage_count,
        ),
        at=outcome.at,
        summarized_count=outcome.summarized_count,
        retained_count=outcome.retained_count,
        steering=outcome.steering,
        manual=outcome.manual,
        summary=None if outcome.summary == summary else outcome.summary,
        edits=tuple(
            EditData(
                kind=e.kind,
                where=e.where,
                role=e.role,
                label=e.label,
                turn=e.turn,
                bytes_before=e.bytes_before,
                bytes_after=e.bytes_after,
                tokens_before=e.tokens_before,
                tokens_after=e.tokens_after,
                saved_at=e.saved_at,
                count=e.count,
            )
            for e in outcome.edits
        ),
    )


def _outcome_of(data: OutcomeData, summary: str) -> CompactionOutcome:
    health = data.health
    return CompactionOutcome(
        applied=data.applied,
        stage_count=data.stage_count,
        modes=data.modes,
        before_tokens=data.before_tokens,
        after_tokens=data.after_tokens,
        summary_model=data.summary_model,
        fallback_status=data.fallback_status,
        fallback_reason=data.fallback_reason,
        backend_state_cleared=data.backend_state_cleared,
        health=None
        if health is None
        else HealthEvent(health.severity, health.state, health.guidance, health.stage_count),
        at=data.at,
        summarized_count=data.summarized_count,
        retained_count=data.retained_count,
        steering=data.steering,
        manual=data.manual,
        summary=summary if data.summary is None else data.summary,
        edits=tuple(
            RoomEdit(
                cast(EditKind, e.kind),
                "summary_request" if e.where == "summary_request" else "retained",
                e.role,
                e.label,
                e.turn,
                e.bytes_before,
                e.bytes_after,
                e.tokens_before,
                e.tokens_after,
                e.saved_at,
                e.count,
            )
            for e in data.edits
            if e.kind in ("masked", "summarized", "cut", "omitted")
        ),
    )


def generation_record(
    generation: ConversationGeneration,
    *,
    before: Sequence[Message] = (),
    reset: bool = False,
) -> GenerationRecord:
    """A ``generation`` record holding the whole generation.

    Args:
        generation: the generation.
        before: the messages of the generation the log held before this one; those kept are
            written as their index there.
        reset: the record starts the lineage over.
    """
    index = {id(message): position for position, message in enumerate(before)}
    messages: list[MessageData | int] = []
    for message in generation.messages:
        position = index.get(id(message))
        if position is not None and before[position] is message:
            messages.append(position)
        else:
            messages.append(message_data(message))
    outcome = generation.outcome
    return GenerationRecord(
        id=generation.id,
        reset=reset,
        summary=generation.summary,
        backend_state=generation.backend_state,
        created_at=generation.created_at,
        outcome=None if outcome is None else _outcome_data(outcome, generation.summary),
        messages=tuple(messages),
    )


def generation_of(
    record: GenerationRecord, before: Sequence[Message] = ()
) -> ConversationGeneration:
    """The generation ``record`` holds.

    Args:
        record: a ``generation`` record.
        before: the messages of the generation active before it (indices point there).

    Raises:
        ValueError: an index points past ``before``, or a message has an unknown role.
    """
    messages: list[Message] = []
    for item in record.messages:
        if isinstance(item, int):
            if not 0 <= item < len(before):
                raise ValueError(f"kept message {item} is not in the generation before")
            messages.append(before[item])
        else:
            messages.append(message_of(item))
    return ConversationGeneration(
        id=record.id,
        messages=tuple(messages),
        summary=record.summary,
        backend_state=record.backend_state,
        outcome=None if record.outcome is None else _outcome_of(record.outcome, record.summary),
        created_at=record.created_at,
    )


# -- requests and the last main request ----------------------------------------------------


def shared_prefix(previous: Sequence[str], hashes: Sequence[str]) -> int:
    """How many leading entries ``hashes`` shares with ``previous``.

    The common case (the request extends the previous one) is one slice comparison; otherwise
    a binary search over slice comparisons, both done in C.
    """
    limit = min(len(previous), len(hashes))
    if tuple(previous[:limit]) == tuple(hashes[:limit]):
        return limit
    low, high = 0, limit  # previous[:low] matches; previous[:high] does not
    while high - low > 1:
        middle = (low + high) // 2
        if tuple(previous[:middle]) == tuple(hashes[:middle]):
            low = middle
        else:
            high = middle
    return low


def request_entry(snapshot: RequestSnapshot, previous: Sequence[str] = ()) -> RequestEntry:
    """A ``request`` record: the snapshot's metadata, hashes relative to ``previous``.

    Args:
        snapshot: the request snapshot.
        previous: the message hashes of the previous request record in the log.
    """
    hashes = snapshot.message_hashes
    shared = shared_prefix(previous, hashes)
    return RequestEntry(
        index=snapshot.index,
        request_id=snapshot.request_id,
        model=snapshot.model,
        provider=snapshot.provider,
        time=snapshot.time,
        shared=shared,
        hashes=tuple(hashes[shared:]),
        block_message_count=snapshot.block_message_count,
        prompt_bytes=snapshot.prompt_bytes,
        blocks_bytes=snapshot.blocks_bytes,
        tools_bytes=snapshot.tools_bytes,
        max_tokens=snapshot.max_tokens,
        estimated_prompt_tokens=snapshot.estimated_prompt_tokens,
        raw_prompt_tokens=snapshot.raw_prompt_tokens,
        estimate_strategy=snapshot.estimate_strategy,
        compaction=snapshot.compaction,
        generation=snapshot.generation_id,
    )


def last_main_request_record(last: LastMainRequest) -> LastMainRequestRecord:
    """A ``last_main_request`` record."""
    return LastMainRequestRecord(
        alias=last.provider_alias,
        model=last.backend_model,
        prompt_cache_key=last.prompt_cache_key,
        at=last.at,
    )


def last_main_request_of(record: LastMainRequestRecord) -> LastMainRequest:
    """The LastMainRequest ``record`` holds."""
    return LastMainRequest(record.alias, record.model, record.prompt_cache_key, record.at)
