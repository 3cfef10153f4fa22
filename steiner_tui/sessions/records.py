"""The records of ``session.jsonl``: one msgspec ``Struct`` per line, tagged by ``type``.

Records hold the engine's own values where it has them; what the log adds keeps every record
independent of the conversation's length: a message line leaves out what the messages before it
imply, a request record what the one before it says (``request_values``), a generation record
names the messages it keeps from the one before by index. A log of another ``LOG_VERSION`` is
refused. Lines are compact UTF-8 JSON; text holding lone surrogates is written with ASCII
escapes, and such a line or a bad one is read again with the standard library's reader, which
accepts the escapes and says what is wrong.
"""

# Not ``from __future__ import annotations``: msgspec would resolve every field's annotation
# from a string when the decoder is built at a resume (about 150 of them: 1.7 of its 3.2 ms).
import json
from datetime import datetime
from functools import cache
from typing import Any, Literal

import msgspec

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import CacheExplanation, CompactionOutcome, PermissionAnswered
from steiner_tui.engine.messages import Image, Message, ToolCall

__all__ = [
    "EMPTY_JSON",
    "LINE_OF_ROLE",
    "LOG_FILE_NAME",
    "LOG_VERSION",
    "META_FILE_NAME",
    "AnyMessageLine",
    "BackendStateRecord",
    "CompactionChoice",
    "ErrorRecord",
    "GenerationRecord",
    "HeaderRecord",
    "LastMainRequestRecord",
    "MessageLine",
    "ModeRecord",
    "ModelRecord",
    "PartialRecord",
    "PermissionRecord",
    "PinRecord",
    "Record",
    "RequestEntry",
    "ResumedRecord",
    "SkillRecord",
    "TimedRecord",
    "UsageRecord",
    "WarningRecord",
    "decode_record",
    "decode_records",
    "encode_record",
]

LOG_VERSION = 8
"""8: message texts of 1 KB and more in ``session.text`` (``text_file``), later with their
message's digest and CRC-32 (``MessageLine.digest``: a line without is read as before); a
request record's estimate left out when its usage's prompt tokens say it. Earlier versions
were development versions."""
LOG_FILE_NAME = "session.jsonl"
META_FILE_NAME = "meta.json"


class _Record(msgspec.Struct, frozen=True, omit_defaults=True, kw_only=True, tag_field="type"):
    """A line of the log."""


class TimedRecord(_Record, frozen=True):
    """A line that says when it happened."""

    at: datetime | None = None


class HeaderRecord(_Record, frozen=True, tag="header"):
    version: int
    session_id: str = ""
    project_root: str = ""
    created: datetime | None = None
    alias: str = ""
    model: str = ""
    prompt_cache_key: str = ""
    forked_from: str = ""


EMPTY_JSON = msgspec.Raw(b"")
"""A message line's ``json`` when its content is written as a string."""


class MessageLine(_Record, frozen=True):
    """A message appended to the active generation; its role is the record's type. Left out:
    ``turn`` is the previous message's (a user line always says its own, so a lost line never
    shifts later turns); ``driver`` (leading characters of a user message the driver composed)
    is 0. A content of ``text_file.TEXT_MIN_BYTES`` or more is in ``session.text`` at
    ``text`` (``[offset, length]`` in bytes); else a tool result that is one line of JSON is
    written as JSON (``json``). ``status``: how a tool call ended (``done``, ``failed``,
    ``rejected``) when its text does not say."""

    content: str = ""
    json: msgspec.Raw = EMPTY_JSON
    text: tuple[int, int] | None = None
    digest: str = ""
    """With ``text``: the message's hash (``message_hash``) as written, which a loader takes
    instead of hashing the text again (a log written before has none: it is hashed)."""
    crc: int | None = None
    """With ``digest``: the CRC-32 of the text's bytes, checked before the digest is taken."""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    images: tuple[Image, ...] = ()
    name: str = ""
    tool_call_id: str = ""
    source: str = ""
    incomplete: bool = False
    turn: int | None = None
    driver: int | None = None
    status: str = ""


class UserLine(MessageLine, frozen=True, tag="user"): ...


class AssistantLine(MessageLine, frozen=True, tag="assistant"): ...


class ToolLine(MessageLine, frozen=True, tag="tool"): ...


class SystemLine(MessageLine, frozen=True, tag="system"): ...


class SummaryLine(MessageLine, frozen=True, tag="summary"): ...


AnyMessageLine = UserLine | AssistantLine | ToolLine | SystemLine | SummaryLine

LINE_OF_ROLE: dict[str, type[AnyMessageLine]] = {
    str(line.__struct_config__.tag): line
    for line in (UserLine, AssistantLine, ToolLine, SystemLine, SummaryLine)
}


class PartialRecord(_Record, frozen=True, tag="partial"):
    """Text of the reply streaming now (``session.partial``; inline in logs written before
    it); ``log``, on the first record of ``session.partial``: the log's size when it was
    written, where a loader reads the records (``partial_reply.read_partials``)."""

    gen: int | None = None
    turn: int = 0
    text: str = ""
    reasoning: str = ""
    log: int | None = None


class RequestEntry(_Record, frozen=True, tag="request", gc=False):
    """A request snapshot's metadata; an absent field is implied by the request record before
    (``request_values``). ``hashes`` are the request's after the ``shared`` ones; ``elapsed``
    the seconds since the previous record's time; ``usage`` the reply's (as ``usage_values``)
    when it came before any other record, reported at ``usage_at`` (absent: ``time``); an
    absent ``estimated_prompt_tokens`` is the usage's prompt tokens when it has a usage;
    ``stopped``, when no usage will come: "" cancelled (Esc), else the provider error's words,
    ``streamed`` the reply's characters that had arrived (absent: not stopped); ``cache`` the
    usage's cache explanation where the records do not imply it.

    Not tracked by the cyclic collector (``gc=False``): its fields are strings, numbers, times
    and tuples of them, and a resumed log keeps thousands of them."""

    index: int | None = None
    request_id: str | None = None
    time: datetime | None = None
    model: str | None = None
    provider: str | None = None
    generation_id: str | None = msgspec.field(default=None, name="generation")
    compaction: bool | None = None
    estimated_prompt_tokens: int | None = None
    raw_prompt_tokens: int | None = None
    estimate_strategy: str | None = None
    max_tokens: int | None = None
    prompt_bytes: int | None = None
    blocks_bytes: int | None = None
    tools_bytes: int | None = None
    block_message_count: int | None = None
    shared: int | None = None
    hashes: tuple[str, ...] | None = None
    elapsed: float | None = None
    usage: tuple[int, ...] = ()
    usage_at: datetime | None = None
    stopped: str | None = None
    streamed: int = 0
    cache: CacheExplanation | None = None
    """With ``usage``: why the cache reused what it did, when the records do not imply it
    (``earlier_requests.logged_cause``: another tool list, context block or request fields)."""


class GenerationRecord(_Record, frozen=True, tag="generation"):
    id: int
    reset: bool = False
    summary: str = ""
    backend_state: str | None = None
    created_at: datetime | None = None
    outcome: CompactionOutcome | None = None
    messages: tuple[Message | int, ...] = ()
    """Each message, or its index in the generation before (a retained message)."""
    texts: dict[int, tuple[int, int]] = {}
    """Where the content of a message (by its position in ``messages``, written with an
    empty content) is in ``session.text``, as ``MessageLine.text``."""
    statuses: dict[str, str] = {}
    """A fork's: tool calls' statuses by call id, as ``MessageLine.status``."""


class BackendStateRecord(_Record, frozen=True, tag="backend_state"):
    gen: int | None = None
    state: str | None = None


class LastMainRequestRecord(_Record, frozen=True, tag="last_main_request"):
    """Written only when it differs from the one a usage implies (``implied_last_main``)."""

    request: LastMainRequest


class PinRecord(TimedRecord, frozen=True, kw_only=True, tag="pin"):
    """A message pinned (or unpinned); a ``reset`` generation record clears the pins."""

    key: str
    pinned: bool = True
    label: str = ""


class UsageRecord(TimedRecord, frozen=True, tag="usage"):
    """A reply's token usage (as ``RequestEntry.usage``, with its ``cache``), or why none will
    come (``stopped``, ``streamed``: as ``RequestEntry``'s), when it could not be folded into its
    request record."""

    model: str = ""
    usage: tuple[int, ...] = ()
    stopped: str | None = None
    streamed: int = 0
    cache: CacheExplanation | None = None


class PermissionRecord(TimedRecord, frozen=True, kw_only=True, tag="permission"):
    """How a permission request of a tool call of the session's model was answered, written
    as the answer is given, before the call's result."""

    answer: PermissionAnswered


class ModeRecord(TimedRecord, frozen=True, kw_only=True, tag="mode"):
    mode: Literal["build", "plan"]


CompactionChoice = Literal["", "auto", "ask", "off"]
"""A compaction mode set live, or "" (none set)."""


class ModelRecord(TimedRecord, frozen=True, kw_only=True, tag="model"):
    """A choice of how the session's model is used, kept on resume: a ``/model`` switch
    (``ref``, the model that answers from the next request on) or a compaction mode set live
    (``compaction``: F4, ``/compaction``); "" leaves the other as it was."""

    ref: str = ""
    compaction: CompactionChoice = ""


class SkillRecord(TimedRecord, frozen=True, kw_only=True, tag="skill"):
    name: str
    enabled: bool = False


class ResumedRecord(TimedRecord, frozen=True, tag="resumed"):
    version: int | None = None
    """The version of the records after this one (a log resumed by a newer app)."""


class WarningRecord(TimedRecord, frozen=True, tag="warning"):
    code: str = ""
    message: str = ""


class ErrorRecord(TimedRecord, frozen=True, tag="error"):
    code: str = ""
    message: str = ""
    remedies: tuple[Any, ...] = ()
    """``engine.provider.Remedy`` values (one whose action this version does not know is
    left out when read)."""


Record = (
    HeaderRecord
    | AnyMessageLine
    | PartialRecord
    | RequestEntry
    | GenerationRecord
    | BackendStateRecord
    | LastMainRequestRecord
    | PinRecord
    | PermissionRecord
    | UsageRecord
    | ModeRecord
    | ModelRecord
    | SkillRecord
    | ResumedRecord
    | WarningRecord
    | ErrorRecord
)


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


def decode_records(data: bytes) -> list[Record] | None:
    """Every line's record, in one call to the decoder, when each line of ``data`` is one
    valid record (the common case: a whole log of 15,000 lines in four fifths of the time of
    a call a line); None when one may not be, and each line is then read on its own
    (``decode_record``: the same records, and what is wrong with a bad one).

    The decoder reads a stream of values with any whitespace between them, so the lines are
    checked to be values one each: every line starts with ``{`` and ends with ``}``, where no
    value of several lines can end (a ``{`` cannot follow a ``}`` inside an object or array),
    and the values are as many as the lines.
    """
    lines = data.count(b"\n")
    if not (data.startswith(b"{") and data.endswith(b"}\n")) or data.count(b"}\n{") != lines - 1:
        return None
    if not data.isascii():  # the typed decoder skips unknown keys without checking them
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        records: list[Record] = _decoder().decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None  # lone surrogate escapes, or a bad line
    return records if len(records) == lines else None


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
