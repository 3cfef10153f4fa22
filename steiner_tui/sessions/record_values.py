"""Engine values to session records and back: messages, generations, request snapshots.

``records`` declares what a line of ``session.jsonl`` holds; this module maps the engine's
immutable values onto those structures (the writer and ``fork`` call the ``*_record`` side,
the parser and the loader the ``*_of`` side), so the engine never knows about the log and the
record types never import the engine's behaviour. Request records have their own module
(``request_values``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, cast

import msgspec

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.events import (
    CompactionOutcome,
    EditKind,
    HealthEvent,
    RoomEdit,
)
from steiner_tui.engine.frozen import freeze, thaw
from steiner_tui.engine.messages import Image, Message, ToolCall
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.tool_results import default_tool_status
from steiner_tui.sessions.records import (
    EMPTY_JSON,
    LINE_OF_ROLE,
    AnyMessageLine,
    EditData,
    GenerationRecord,
    HealthData,
    ImageData,
    LastMainRequestRecord,
    MessageData,
    MessageLine,
    MessageRecord,
    OutcomeData,
    ToolCallData,
    ToolCallLine,
)

__all__ = [
    "Interned",
    "generation_of",
    "generation_record",
    "last_main_request_of",
    "last_main_request_record",
    "expected_name",
    "message_data",
    "message_line",
    "message_of",
    "message_of_line",
    "message_record",
    "status_of_line",
    "trusted_content",
]


# -- messages ------------------------------------------------------------------------------


class Interned(msgspec.Struct):
    """The values read so far that a log repeats, so that each is held once: message texts
    (a command run again, a reply said again) and tool call arguments (a file read again).

    The parser keeps one while it reads a log and drops it at the end.
    """

    texts: dict[str, str] = msgspec.field(default_factory=dict)
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    """Frozen arguments by their ``repr``: equal as values and of the same types (``1``,
    ``1.0`` and ``True`` stay apart, and so do ``None`` and a NaN the lenient reader let in)."""

    def text(self, text: str) -> str:
        """``text``, or the equal string read before it."""
        return self.texts.setdefault(text, text)

    def call_arguments(self, arguments: Any) -> Any:
        """``arguments`` frozen, or the equal frozen arguments read before them."""
        if arguments is None:
            return None
        key = repr(arguments)
        frozen = self.arguments.get(key)
        if frozen is None:
            frozen = self.arguments[key] = freeze(arguments)
        return frozen


def _text(interned: Interned | None, text: str) -> str:
    return text if interned is None else interned.text(text)


def _arguments(interned: Interned | None, arguments: Any) -> Any:
    return arguments if interned is None else interned.call_arguments(arguments)


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


def message_of(data: MessageData, interned: Interned | None = None) -> Message:
    """The message ``data`` stores, its texts and arguments those ``interned`` holds when
    equal (added there when new).

    Raises:
        ValueError: the role is unknown.
    """
    return Message(
        data.role,
        _text(interned, data.content),
        reasoning=_text(interned, data.reasoning),
        tool_calls=tuple(
            ToolCall(call.id, call.name, _arguments(interned, call.arguments), call.raw_arguments)
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
    return MessageRecord(gen=gen, message=message_data(message), driver=_driver(message))


def _driver(message: Message) -> int | None:
    """How many leading characters of a user message the driver composed (None: not one the
    driver composes, such as a sub-agent result)."""
    if message.role != "user" or message.source:
        return None
    return len(message.content) - len(split_skill_blocks(message.content)[2])


def _calls_before(messages: Sequence[Message], end: int) -> tuple[ToolCall, ...]:
    """The calls of the assistant message before the tool results that precede ``end``."""
    position = end - 1
    while position >= 0 and messages[position].role == "tool":
        position -= 1
    if position < 0 or messages[position].role != "assistant":
        return ()
    return messages[position].tool_calls


def answered_call(
    messages: Sequence[Message], end: int, role: str, call_id: str
) -> ToolCall | None:
    """The call a tool result at ``end`` answers: the one with its id in the assistant message
    before it (None: not a tool result, or no such call)."""
    if role != "tool":
        return None
    return next((c for c in _calls_before(messages, end) if c.id == call_id), None)


def expected_name(messages: Sequence[Message], end: int, role: str, call_id: str) -> str:
    """The name a line at ``end`` leaves out: a tool result's, that of the call it answers,
    else empty."""
    call = answered_call(messages, end, role, call_id)
    return call.name if call is not None else ""


def _expected_turn(messages: Sequence[Message], end: int, role: str) -> int | None:
    """The turn a line leaves out: the previous message's (a user line always says its own)."""
    if role == "user":
        return None
    return messages[end - 1].turn if end else 0


def _json_content(message: Message) -> msgspec.Raw | None:
    """A tool result's content as raw JSON when it is one line of valid JSON (else None)."""
    content = message.content
    if message.role != "tool" or not content.startswith("{") or not content.endswith("}"):
        return None
    try:
        data = content.encode()
    except UnicodeEncodeError:
        return None
    if b"\n" in data or b"\r" in data:
        return None
    try:
        msgspec.json.decode(data, type=msgspec.Raw)
    except msgspec.DecodeError:
        return None
    return msgspec.Raw(data)


def status_of_line(message: Message, status: str) -> str:
    """What a tool line records of ``status``: "" when the result's text implies it."""
    if not status or message.role != "tool" or status == default_tool_status(message):
        return ""
    return status


def message_line(messages: Sequence[Message], position: int, status: str = "") -> AnyMessageLine:
    """The version 4 line of ``messages[position]``, after the messages before it.

    ``status``: how a tool result's call ended (the runner's), kept when the text does not
    imply it.
    """
    message = messages[position]
    data = message_data(message)
    raw = _json_content(message)
    name: str | None = message.name
    if name == expected_name(messages, position, message.role, message.tool_call_id):
        name = None
    turn = message.turn
    driver = _driver(message)
    return LINE_OF_ROLE[message.role](
        content="" if raw is not None else message.content,
        json=EMPTY_JSON if raw is None else raw,
        reasoning=data.reasoning,
        tool_calls=tuple(
            ToolCallLine(c.id, c.name, c.arguments, c.raw_arguments) for c in data.tool_calls
        ),
        images=data.images,
        name=name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        turn=None if turn == _expected_turn(messages, position, message.role) else turn,
        incomplete=message.incomplete,
        driver=driver or None,
        status=status_of_line(message, status),
    )


def message_of_line(
    line: MessageLine, messages: Sequence[Message], interned: Interned | None = None
) -> tuple[Message, int | None]:
    """The message ``line`` holds, appended after ``messages``, and its driver prefix; its
    texts and arguments are those ``interned`` holds when equal (``message_of``).

    Raises:
        ValueError: the line has both ``content`` and ``json``.
    """
    role = str(type(line).__struct_config__.tag)
    end = len(messages)
    content = line.content
    if len(line.json):
        if content:
            raise ValueError("both content and json")
        content = str(line.json, "utf-8")
    call = answered_call(messages, end, role, line.tool_call_id)
    # The call's own strings: a resumed session holds each name and id once.
    call_id = call.id if call is not None else line.tool_call_id
    name = line.name
    if name is None:
        name = call.name if call is not None else ""
    turn = line.turn if line.turn is not None else _expected_turn(messages, end, role)
    message = Message(
        role,
        _text(interned, content),
        reasoning=_text(interned, line.reasoning),
        tool_calls=tuple(
            ToolCall(c.id, sys.intern(c.name), _arguments(interned, c.arguments), c.raw_arguments)
            for c in line.tool_calls
        ),
        images=tuple(Image(image.media_type, image.data) for image in line.images),
        name=name,
        tool_call_id=call_id,
        source=line.source,
        turn=turn or 0,
        incomplete=line.incomplete,
    )
    driver = line.driver
    if driver is None and role == "user" and not line.source:
        driver = 0
    return message, driver


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
        trigger=outcome.trigger,
        notes=outcome.notes,
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
        trigger=data.trigger,
        notes=data.notes,
    )


def generation_record(
    generation: ConversationGeneration,
    *,
    before: Sequence[Message] = (),
    reset: bool = False,
    statuses: Mapping[str, str] | None = None,
) -> GenerationRecord:
    """A ``generation`` record holding the whole generation.

    Args:
        generation: the generation.
        before: the messages of the generation the log held before this one; those kept are
            written as their index there.
        reset: the record starts the lineage over.
        statuses: how tool calls ended, by call id (a fork's, from the source log); those of
            the results written out in full are kept, where their text does not imply them.
    """
    index = {id(message): position for position, message in enumerate(before)}
    messages: list[MessageData | int] = []
    kept: dict[str, str] = {}
    for message in generation.messages:
        position = index.get(id(message))
        if position is not None and before[position] is message:
            messages.append(position)
            continue
        messages.append(message_data(message))
        status = status_of_line(message, (statuses or {}).get(message.tool_call_id, ""))
        if status:
            kept[message.tool_call_id] = status
    outcome = generation.outcome
    return GenerationRecord(
        id=generation.id,
        reset=reset,
        summary=generation.summary,
        backend_state=generation.backend_state,
        created_at=generation.created_at,
        outcome=None if outcome is None else _outcome_data(outcome, generation.summary),
        messages=tuple(messages),
        statuses=kept,
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
        messages=Chain(messages),
        summary=record.summary,
        backend_state=record.backend_state,
        outcome=None if record.outcome is None else _outcome_of(record.outcome, record.summary),
        created_at=record.created_at,
    )


# -- the last main request ----------------------------------------------------


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
