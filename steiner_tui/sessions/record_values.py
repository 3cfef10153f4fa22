"""Messages and generations to session records and back, each saying only what the records
before it do not (``records``); request records have their own module (``request_values``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from steiner_tui.engine.compaction.lineage import ConversationGeneration
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import escape_user_text
from steiner_tui.engine.tool_results import default_tool_status
from steiner_tui.sessions.records import (
    EMPTY_JSON,
    LINE_OF_ROLE,
    AnyMessageLine,
    GenerationRecord,
    MessageLine,
)
from steiner_tui.sessions.text_file import LostText, Span, StoredTexts, TextFile

__all__ = [
    "DIGEST_MIN_BYTES",
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


def status_of_line(message: Message, status: str) -> str:
    """What a tool line records of ``status``: "" when the result's text implies it."""
    if not status or message.role != "tool" or status == default_tool_status(message):
        return ""
    return status


DIGEST_MIN_BYTES = 2048
"""The smallest text whose line stores its message's digest and CRC-32 (``MessageLine.digest``):
their 38 bytes are 2-4% of a text of 1-2 KB, where hashing it at load costs about 1 us
(``benchmarks/bench_session_log.py``'s chatty prose is all of that size); 98.5% of the soak's
read results are in larger texts."""

_COPIED = ("reasoning", "tool_calls", "images", "name", "tool_call_id", "source", "incomplete")
"""The fields a line and its message share as they are."""


def _json_content(message: Message) -> msgspec.Raw | None:
    """A tool result's content as raw JSON when it is one line of valid JSON (else None)."""
    content = message.content
    if message.role != "tool" or not content.startswith("{") or not content.endswith("}"):
        return None
    try:
        data = content.encode()
        msgspec.json.decode(data, type=msgspec.Raw)
    except (UnicodeEncodeError, msgspec.DecodeError):
        return None
    return None if b"\n" in data or b"\r" in data else msgspec.Raw(data)


def message_line(
    messages: Sequence[Message],
    position: int,
    status: str = "",
    texts: TextFile | None = None,
) -> AnyMessageLine:
    """The line of ``messages[position]``, after the messages before it; ``status``: how a tool
    result's call ended; ``texts``: where a large content goes (written now, before the line).

    Raises:
        OSError: the content could not be written to ``texts``.
    """
    message = messages[position]
    implied = message.role != "user" and message.turn == (
        messages[position - 1].turn if position else 0
    )
    placed = texts.put(message.content) if texts is not None else None
    raw = None if placed is not None else _json_content(message)
    checked = placed if placed is not None and len(placed.data) >= DIGEST_MIN_BYTES else None
    return LINE_OF_ROLE[message.role](
        content="" if raw is not None or placed is not None else message.content,
        json=EMPTY_JSON if raw is None else raw,
        text=None if placed is None else placed.span,
        digest="" if checked is None else message.digest(checked.data),
        crc=None if checked is None else checked.crc,
        reasoning=message.reasoning,  # ``_COPIED`` by name, as in ``message_of_line``
        tool_calls=message.tool_calls,
        images=message.images,
        name=message.name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        incomplete=message.incomplete,
        turn=None if implied else message.turn,
        driver=_driver(message) or None,
        status=status_of_line(message, status),
    )


def message_of_line(
    line: MessageLine,
    messages: Sequence[Message],
    texts: dict[str, str] | None = None,
    stored: StoredTexts | None = None,
) -> tuple[Message, int | None]:
    """The message ``line`` holds, appended after ``messages``, and its driver prefix; its
    content is the equal one in ``texts`` when there is one (else added), so a file read again
    or a command run again is held once (a text with a CRC-32: the equal one in ``stored``,
    ``session.text``; none: empty).

    Raises:
        ValueError: the line has more than one of ``content``, ``json`` and ``text``.
        LostText: its text is not in ``stored``.
    """
    role = _ROLE_OF_LINE[type(line)]
    content, text, crc = line.content, line.text, line.crc
    utf8: bytes | memoryview | None = None
    if crc is not None or line.digest:  # a text with its message's digest and CRC-32
        if crc is None or not line.digest or text is None:
            raise ValueError("a digest and a crc come together, with a text")
        if content or len(line.json):
            raise ValueError("more than one of content, json and text")
        content, size = _checked_text(line.digest, text, crc, stored), text[1]
    else:
        if text is not None or len(line.json):
            if content or (text is not None and len(line.json)):
                raise ValueError("more than one of content, json and text")
            if text is not None:
                content, utf8 = (stored or StoredTexts()).read_utf8(text)
            else:
                content, utf8 = str(line.json, "utf-8"), memoryview(line.json)
        if texts is not None:
            content = texts.setdefault(content, content)
    turn = line.turn
    if turn is None:
        turn = messages[-1].turn if messages and role != "user" else 0
    message = Message(
        role,
        content,
        reasoning=line.reasoning,  # ``_COPIED`` by name: a dict of them cost a third of this
        tool_calls=line.tool_calls,
        images=line.images,
        name=line.name,
        tool_call_id=line.tool_call_id,
        source=line.source,
        incomplete=line.incomplete,
        turn=turn,
    )
    if crc is not None:
        message.take_digest(line.digest, size)
    elif utf8 is not None:  # hashed from the bytes read: not encoded again
        message.digest_from(utf8)
    driver = line.driver
    if driver is None and role == "user" and not line.source:
        driver = 0
    return message, driver


_ROLE_OF_LINE: dict[type[MessageLine], str] = {line: role for role, line in LINE_OF_ROLE.items()}
"""A line's role by its class (its tag read from ``__struct_config__``: twice the time)."""


def _checked_text(digest: str, span: Span, crc: int, stored: StoredTexts | None) -> str:
    """The text at ``span`` of a line that stores its message's ``digest`` and the text's
    CRC-32 (``crc``).

    Raises:
        ValueError: the digest is not 8 lowercase hex digits.
        LostText: the text is not in ``stored``, or not the one written (``StoredTexts.read``).
    """
    if len(digest) != _DIGEST_LENGTH or digest.strip(_HEX):
        raise ValueError(f"digest {digest!r} is not {_DIGEST_LENGTH} lowercase hex digits")
    return (stored or StoredTexts()).read(span, crc)


_DIGEST_LENGTH = 8
_HEX = "0123456789abcdef"


def trusted_content(message: Message, driver: int | None) -> str:
    """The content of a user message with only its driver-composed prefix (``driver``
    characters) left parsable: the rest is escaped (``engine.skills.escape``) so that nothing
    the user typed counts as a skill envelope or mode notice. None: the content as it is."""
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
    texts: TextFile | None = None,
) -> GenerationRecord:
    """A ``generation`` record holding the whole generation: a message of ``before`` (the
    generation logged before) as its index there; ``reset``: the lineage starts over;
    ``statuses``: a fork's tool call statuses by call id, kept where the text does not say;
    ``texts``: where large contents go (written now, before the record).

    Raises:
        OSError: a content could not be written to ``texts``.
    """
    index = {id(message): position for position, message in enumerate(before)}
    messages: list[Message | int] = []
    spans: dict[int, tuple[int, int]] = {}
    kept: dict[str, str] = {}
    for message in generation.messages:
        position = index.get(id(message))
        if position is not None and before[position] is message:
            messages.append(position)
            continue
        placed = texts.put(message.content) if texts is not None else None
        if placed is not None:
            spans[len(messages)] = placed.span
            message = message.with_content("")
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
        texts=spans,
        statuses=kept,
    )


def kept_messages(
    record: GenerationRecord, before: Sequence[Message], stored: StoredTexts | None = None
) -> tuple[list[Message], dict[int, LostText]]:
    """The messages of a ``generation`` record, its indices read in ``before`` (the messages
    of the generation active before it), its texts in ``stored`` (``session.text``); and, by
    position, the texts that are not in ``stored``: those messages stay empty, in their place.

    Raises:
        ValueError: an index points past ``before``, or a text is not a message's.
    """
    messages: list[Message] = []
    lost: dict[int, LostText] = {}
    for item in record.messages:
        if isinstance(item, int):
            if not 0 <= item < len(before):
                raise ValueError(f"kept message {item} is not in the generation before")
            messages.append(before[item])
        else:
            messages.append(item)
    for position, span in record.texts.items():
        new = record.messages[position] if 0 <= position < len(messages) else None
        if not isinstance(new, Message) or new.content:
            raise ValueError(f"text for message {position}, which is not a new empty message")
        try:
            content, utf8 = (stored or StoredTexts()).read_utf8(span)
        except LostText as exc:
            lost[position] = exc
            continue
        messages[position] = new.with_content(content)
        messages[position].digest_from(utf8)
    return messages, lost
