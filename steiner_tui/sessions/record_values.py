"""Messages and generations to session records and back, each saying only what the records
before it do not (``records``); request records have their own module (``request_values``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.tool_results import default_tool_status
from steiner_tui.sessions.records import (
    LINE_OF_ROLE,
    AnyMessageLine,
    GenerationRecord,
    MessageLine,
)

__all__ = [
    "expected_name",
    "generation_record",
    "kept_messages",
    "message_line",
    "message_of_line",
    "status_of_line",
    "trusted_content",
]


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


def status_of_line(message: Message, status: str) -> str:
    """What a tool line records of ``status``: "" when the result's text implies it."""
    if not status or message.role != "tool" or status == default_tool_status(message):
        return ""
    return status


def message_line(messages: Sequence[Message], position: int, status: str = "") -> AnyMessageLine:
    """The line of ``messages[position]``, after the messages before it.

    ``status``: how a tool result's call ended (the runner's), kept when the text does not
    imply it.
    """
    message = messages[position]
    name: str | None = message.name
    if name == expected_name(messages, position, message.role, message.tool_call_id):
        name = None
    turn = message.turn
    driver = _driver(message)
    return LINE_OF_ROLE[message.role](
        content=message.content,
        reasoning=message.reasoning,
        tool_calls=message.tool_calls,
        images=message.images,
        name=name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        turn=None if turn == _expected_turn(messages, position, message.role) else turn,
        incomplete=message.incomplete,
        driver=driver or None,
        status=status_of_line(message, status),
    )


def message_of_line(line: MessageLine, messages: Sequence[Message]) -> tuple[Message, int | None]:
    """The message ``line`` holds, appended after ``messages``, and its driver prefix."""
    role = str(type(line).__struct_config__.tag)
    end = len(messages)
    call = answered_call(messages, end, role, line.tool_call_id)
    # The call's own strings: a resumed session holds each name and id once.
    call_id = call.id if call is not None else line.tool_call_id
    name = line.name
    if name is None:
        name = call.name if call is not None else ""
    turn = line.turn if line.turn is not None else _expected_turn(messages, end, role)
    message = Message(
        role,
        line.content,
        reasoning=line.reasoning,
        tool_calls=line.tool_calls,
        images=line.images,
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
    notice. ``None`` (a message of a generation record) keeps the content as it is.
    """
    if driver is None or driver >= len(message.content):
        return message.content
    return message.content[:driver] + escape_user_text(message.content[driver:])


# -- generations ---------------------------------------------------------------------------


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
    messages: list[Message | int] = []
    kept: dict[str, str] = {}
    for message in generation.messages:
        position = index.get(id(message))
        if position is not None and before[position] is message:
            messages.append(position)
            continue
        messages.append(message)
        status = status_of_line(message, (statuses or {}).get(message.tool_call_id, ""))
        if status:
            kept[message.tool_call_id] = status
    return GenerationRecord(
        id=generation.id,
        reset=reset,
        summary=generation.summary,
        backend_state=generation.backend_state,
        created_at=generation.created_at,
        outcome=generation.outcome,
        messages=tuple(messages),
        statuses=kept,
    )


def kept_messages(record: GenerationRecord, before: Sequence[Message]) -> list[Message]:
    """The messages of a ``generation`` record, its indices read in ``before`` (the messages
    of the generation active before it).

    Raises:
        ValueError: an index points past ``before``.
    """
    messages: list[Message] = []
    for item in record.messages:
        if isinstance(item, int):
            if not 0 <= item < len(before):
                raise ValueError(f"kept message {item} is not in the generation before")
            messages.append(before[item])
        else:
            messages.append(item)
    return messages
