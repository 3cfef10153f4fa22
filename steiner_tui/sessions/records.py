"""The records of ``session.jsonl``, declared once as typed structures, and their encoding.

Every line is one record: a msgspec ``Struct`` of the tagged union ``Record`` (``tag_field
"type"``). This module is the only place that turns records into bytes and back; the writer, the
parser, ``fork`` and the store all go through it. ``record_values`` maps the engine's values
(messages, generations, request snapshots) onto these structures and back.

Record types (``gen`` is a generation id; fields left at their default are not written):

* ``header``: ``version``, ``session_id``, ``project_root``, ``created``, ``alias``, ``model``,
  ``prompt_cache_key``, optional ``forked_from``. Always the first line.
* ``message``: ``gen``, ``message`` (the message exactly as stored) and, for a user message
  the driver composed, ``driver``: how many leading characters (mode notice, skill envelopes
  and their separators) the driver produced. Resume trusts envelopes only in that prefix
  (``trusted_content``); what follows is the user's own text.
* ``user``, ``assistant``, ``tool``, ``system``, ``summary`` (version 4): a message appended to
  the active generation, its role the record's type and its fields at the top level, leaving
  out what the messages before it imply (``MessageLine``). Versions 1 to 3 wrote ``message``
  records instead; both load. A ``tool`` line also says how the call ended (``status``:
  ``failed`` or ``rejected``, ``done``) when its text does not imply it (the text-based guess
  of ``engine.tool_results.default_tool_status``); a line without it, and every
  ``message`` record, reads as the guess says.
* ``partial``: ``gen``, ``turn``, ``text``, ``reasoning``: a slice of a reply still streaming.
  Consecutive partials concatenate; any later ``message``, ``request`` or ``generation``
  record supersedes them. Left over at the end of the log, they become an ``incomplete``
  assistant message.
* ``request``: a request snapshot's metadata (index, its number from 1; model, time, estimate,
  bytes, max_tokens, compaction flag) and its message hashes **relative to the previous request
  record**: ``shared`` leading hashes are the previous request's, ``hashes`` are the rest. A
  record's size so depends on what the request added, not on the conversation's length.
  (Version 1 logs wrote every hash with no ``shared``: the same rule with ``shared = 0``.)
  From version 4 on, a field left out is **the same as the previous request record's**: the
  index is one more, the id the previous one's with the new index, ``shared`` all of its
  hashes; the reply's usage is folded in (``usage``, ``usage_at``) when it arrived before any
  other record, and such a record also says what the last main request is
  (``request_values``).
* ``generation``: a whole generation (``id``, ``summary``, ``messages``, ``backend_state``,
  ``created_at``, ``outcome``); ``reset: true`` starts the lineage over with it. A message that
  the generation keeps from the one before it is written as its index there (an integer), so
  retained turns are stored once; an ``outcome`` whose summary is the generation's own leaves
  it out. Version 1 logs wrote every message and the summary twice; both read the same.
  ``statuses`` (a fork's): how the tool calls of the results it writes out ended, by call id,
  where their text does not imply it, as a ``tool`` line's ``status`` says.
* ``backend_state``: ``gen``, ``state`` (string or null).
* ``last_main_request``: ``alias``, ``model``, ``prompt_cache_key``, ``at``. From version 4 on
  it is written only when it differs from the one a usage (folded or not) implies: the last
  request's provider and model, the header's cache key, the usage's time.
* ``pin``: ``key`` (a pin key, ``engine.compaction.pins``), ``pinned`` (false: unpinned),
  ``label``, ``at``. Pins fold in order; a ``reset`` generation record clears them (the
  writer writes the pins still held after it).
* ``usage``: a reply's token usage when it could not be folded into its request record.
* ``mode``, ``skill``, ``resumed``, ``warning``, ``error``: bookkeeping.

Lines are compact UTF-8 JSON, decoded straight into their structure. Text holding lone
surrogates (which UTF-8 cannot carry) is written with ASCII escapes instead; such a line (and
any line that does not decode) is read again with the standard library's JSON reader, which
accepts those escapes and says what is wrong with a bad line, so every string round-trips.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any, Literal

import msgspec

__all__ = [
    "FIRST_DELTA_REQUESTS",
    "FIRST_NUMBERED_FROM_ONE",
    "LOG_FILE_NAME",
    "LOG_VERSION",
    "META_FILE_NAME",
    "BackendStateRecord",
    "ErrorRecord",
    "RemedyRecord",
    "GenerationRecord",
    "HeaderRecord",
    "LastMainRequestRecord",
    "EMPTY_JSON",
    "AnyMessageLine",
    "LINE_OF_ROLE",
    "MessageData",
    "MessageLine",
    "MessageRecord",
    "ModeRecord",
    "OutcomeData",
    "PartialRecord",
    "PinRecord",
    "Record",
    "RequestEntry",
    "ResumedRecord",
    "SkillRecord",
    "ToolCallLine",
    "UsageRecord",
    "WarningRecord",
    "decode_record",
    "encode_record",
]

LOG_VERSION = 4
"""4: request records leave out what the previous one says, usage folded in; 3: requests
numbered from 1; 2: relative request hashes and retained messages by index.

Version 1 and 2 logs still load: their requests were numbered from 0 and read one higher.
"""
FIRST_NUMBERED_FROM_ONE = 3
"""The first version whose ``request`` records number requests from 1."""
FIRST_DELTA_REQUESTS = 4
"""The first version whose ``request`` records leave out fields equal to the previous one's."""
LOG_FILE_NAME = "session.jsonl"
META_FILE_NAME = "meta.json"


class _Data(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True):
    """Plain data inside a record: immutable, defaults left out of the line."""


class ToolCallData(_Data, frozen=True):
    id: str
    name: str
    arguments: Any = None
    raw_arguments: str = ""


class ToolCallLine(msgspec.Struct, frozen=True, array_like=True):
    """A tool call in a version 4 message line: ``[id, name, arguments, raw_arguments]``."""

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
    trigger: str = ""
    """Why it ran (absent: not recorded, a log written before triggers were)."""
    notes: tuple[str, ...] = ()
    """What the operation says about itself (``CompactionOutcome.notes``)."""


class _Record(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True, tag_field="type"):
    """A line of the log."""


class HeaderRecord(_Record, frozen=True, tag="header"):
    version: int
    """Always written (1 to 4): which layout the rest of the log uses."""
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


EMPTY_JSON = msgspec.Raw(b"")
"""A message line's ``json`` when its content is written as a string."""


class MessageLine(_Record, frozen=True):
    """Version 4: a message appended to the active generation; its role is the record's type.

    Left out: ``turn`` is the previous message's (a user line always says its own, so a lost
    line never shifts the turns after its own turn); ``driver`` is 0 for a user message
    without a source; a tool result's ``name`` is that of the call with its ``tool_call_id``
    in the assistant message before it (``record_values.expected_name``; the id is always
    written, so a lost call can still be restored). A tool result whose content is one line
    of JSON is written as that JSON (``json``) instead of a string; tool calls are arrays.
    A tool result's ``status`` (``done``, ``failed``, ``rejected``: how the tool call ended,
    as the runner reported it) is written only when the text does not imply it
    (``record_values.status_of_line``); it is never sent to the model.
    """

    content: str = ""
    json: msgspec.Raw = EMPTY_JSON
    reasoning: str = ""
    tool_calls: tuple[ToolCallLine, ...] = ()
    images: tuple[ImageData, ...] = ()
    name: str | None = None
    tool_call_id: str = ""
    source: str = ""
    turn: int | None = None
    incomplete: bool = False
    driver: int | None = None
    status: str = ""
    """Tool results: how the call ended, when the text does not say (absent: as it says)."""


class UserLine(MessageLine, frozen=True, tag="user"):
    """A user message (version 4)."""


class AssistantLine(MessageLine, frozen=True, tag="assistant"):
    """An assistant message (version 4)."""


class ToolLine(MessageLine, frozen=True, tag="tool"):
    """A tool result (version 4)."""


class SystemLine(MessageLine, frozen=True, tag="system"):
    """A system message (version 4)."""


class SummaryLine(MessageLine, frozen=True, tag="summary"):
    """A summary message (version 4)."""


AnyMessageLine = UserLine | AssistantLine | ToolLine | SystemLine | SummaryLine
"""A version 4 message record, of any role."""

LINE_OF_ROLE: dict[str, type[AnyMessageLine]] = {
    "user": UserLine,
    "assistant": AssistantLine,
    "tool": ToolLine,
    "system": SystemLine,
    "summary": SummaryLine,
}


class PartialRecord(_Record, frozen=True, tag="partial"):
    gen: int | None = None
    turn: int = 0
    text: str = ""
    reasoning: str = ""


class RequestEntry(_Record, frozen=True, tag="request"):
    """A request snapshot's metadata with its hashes relative to the previous request.

    Every field may be absent (None). What an absent field means depends on the log's version
    (``request_values.resolve_request``): before version 4 it is the type's default; from
    version 4 on it is the previous request record's value (or one derived from it).
    """

    index: int | None = None
    request_id: str | None = None
    model: str | None = None
    provider: str | None = None
    time: datetime | None = None
    elapsed: float | None = None
    """Version 4: the time as seconds after the previous request record's."""
    shared: int | None = None
    hashes: tuple[str, ...] | None = None
    block_message_count: int | None = None
    prompt_bytes: int | None = None
    blocks_bytes: int | None = None
    tools_bytes: int | None = None
    max_tokens: int | None = None
    estimated_prompt_tokens: int | None = None
    raw_prompt_tokens: int | None = None
    estimate_strategy: str | None = None
    compaction: bool | None = None
    generation: str | None = None
    usage: tuple[int, ...] = ()
    """Version 4: the reply's usage folded in (prompt, completion, cache read, cache write
    tokens; trailing zeros left out), when it arrived before any other record."""
    usage_at: datetime | None = None
    """When the usage was reported (absent: the request's ``time``)."""


class GenerationRecord(_Record, frozen=True, tag="generation"):
    id: int
    reset: bool = False
    summary: str = ""
    backend_state: str | None = None
    created_at: datetime | None = None
    outcome: OutcomeData | None = None
    messages: tuple[MessageData | int, ...] = ()
    """Each message, or its index in the generation before (a retained message)."""
    statuses: dict[str, str] = {}
    """A fork's: tool calls' statuses by call id, as ``MessageLine.status`` (absent: none)."""


class BackendStateRecord(_Record, frozen=True, tag="backend_state"):
    gen: int | None = None
    state: str | None = None


class LastMainRequestRecord(_Record, frozen=True, tag="last_main_request"):
    alias: str = ""
    model: str = ""
    prompt_cache_key: str = ""
    at: datetime | None = None


class PinRecord(_Record, frozen=True, tag="pin"):
    """A message pinned (or unpinned): every compaction keeps it verbatim."""

    key: str
    pinned: bool = True
    label: str = ""
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


class RemedyRecord(msgspec.Struct, frozen=True):
    """One thing the user can do about an error (``engine.provider.Remedy``)."""

    action: str
    hint: str


class ErrorRecord(_Record, frozen=True, tag="error"):
    code: str = ""
    message: str = ""
    at: datetime | None = None
    remedies: tuple[RemedyRecord, ...] = ()
    """What the user can do about it (absent in logs written before remedies were kept)."""


Record = (
    HeaderRecord
    | MessageRecord
    | UserLine
    | AssistantLine
    | ToolLine
    | SystemLine
    | SummaryLine
    | PartialRecord
    | RequestEntry
    | GenerationRecord
    | BackendStateRecord
    | LastMainRequestRecord
    | PinRecord
    | UsageRecord
    | ModeRecord
    | SkillRecord
    | ResumedRecord
    | WarningRecord
    | ErrorRecord
)
"""Every record type of the log."""


# Built on first use, not at import: the tagged union's decoder is about half of this module's
# import time, and most commands that import the records never read a log.
@cache
def _encoder() -> msgspec.json.Encoder:
    return msgspec.json.Encoder()


@cache
def _decoder() -> msgspec.json.Decoder[Record]:
    return msgspec.json.Decoder(Record)


def encode_record(record: Record) -> bytes:
    """One log line: compact JSON plus ``\\n``, as UTF-8 bytes."""
    try:
        return _encoder().encode(record) + b"\n"
    except UnicodeEncodeError:
        # Lone surrogates: ASCII escapes carry them exactly.
        if isinstance(record, MessageLine) and len(record.json):
            text = bytes(record.json).decode()
            record = msgspec.structs.replace(record, json=EMPTY_JSON, content=text)
        plain = msgspec.to_builtins(record)
        return (json.dumps(plain, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def decode_record(raw: bytes) -> Record:
    """Parse one line into its record.

    Raises:
        ValueError: the line is not UTF-8, not JSON, not an object, of an unknown type, or
            malformed for its type; the message says which.
    """
    if not raw.isascii():  # the typed decoder skips unknown keys without checking them
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not valid UTF-8 (byte {exc.start + 1})") from None
    try:
        record: Record = _decoder().decode(raw)
        return record
    except (msgspec.DecodeError, msgspec.ValidationError):
        pass  # lone surrogate escapes, or a bad line: read again to say exactly what is wrong
    text = raw.decode("utf-8")
    if not text.strip():
        raise ValueError("empty line")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        at = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        raise ValueError(f"not valid JSON ({exc.msg}{at} column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    kind = data.get("type")
    try:
        record = msgspec.convert(data, Record)
    except msgspec.ValidationError as exc:
        if "`$.type`" in str(exc) or "missing required field `type`" in str(exc):
            raise ValueError(f"unknown record type {kind!r}") from None
        raise ValueError(f"malformed {kind} record: {exc}") from None
    return record
