"""The conversation's immutable data: messages, tool calls, images, and their hashes.

Messages are frozen and deep-frozen (see ``frozen.py``), so a snapshot can share them with the
live conversation instead of deep-copying. The hash input (role, content, reasoning, each tool
call's name, arguments as compact JSON and raw arguments, each image's media type and data) is
streamed into one ``hashlib`` object field by field; the concatenated string is never built
(docs/design.md, "5. Message hashes and request snapshots").
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from steiner_tui.engine.jsonenc import frozen_json
from steiner_tui.engine.utf8 import utf8, utf8_len

__all__ = [
    "SUB_AGENT_RESULT_SOURCE",
    "INTERRUPTION_NOTE",
    "Image",
    "Message",
    "ToolCall",
    "cumulative_prefix_hashes",
    "is_real_user_message",
    "message_hash",
    "short_hash",
    "to_provider_message",
]

ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool", "summary")

SUB_AGENT_RESULT_SOURCE = "sub_agent_result"
"""``Message.source`` of a user-role message that carries sub-agent output, not user input."""

INTERRUPTION_NOTE = (
    "\n\n[This response was interrupted before it finished. "
    "The text above is everything that was streamed.]"
)
"""Appended to an ``incomplete`` assistant message when it is projected to a provider."""


_ROLE_BYTES = {role: role.encode() for role in ROLES}
_set = msgspec.structs.force_setattr


class _EncodedArguments:
    """The slot where a tool call keeps its encoded arguments: outside its fields, so outside
    ``__init__``, equality, hash and repr."""

    __slots__ = ("arguments_json",)
    arguments_json: str


class ToolCall(msgspec.Struct, _EncodedArguments, frozen=True, array_like=True, gc=False):
    """A tool call made by the model. ``arguments`` is a JSON object or ``None``; encoded as
    ``[id, name, arguments, raw_arguments]`` (a session log's lines, a third fewer bytes).

    The compact JSON of the arguments (``arguments_json``, ``null`` for none) is written once,
    when the call is made: hashes, token counts and requests reuse it. Arguments with no JSON
    form (NaN, an infinity, a number beyond the float range) are kept only as
    ``raw_arguments``, as the reference's decoder would reject them: ``arguments`` is then None
    and the tool reports the malformed call to the model instead of a turn crashing on it later.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] | None
    raw_arguments: str = ""

    def __post_init__(self) -> None:
        frozen, encoded = frozen_json(self.arguments)
        msgspec.structs.force_setattr(self, "arguments", frozen)
        msgspec.structs.force_setattr(self, "arguments_json", encoded)


class Image(msgspec.Struct, frozen=True, gc=False):
    """An attached image: its media type and base64 data."""

    media_type: str
    data: str


class _Memo:
    """The slots where a message keeps what it computed once: outside its fields, so outside
    ``__init__``, equality, hash and repr, and a copy with another content starts without."""

    __slots__ = ("_content_bytes", "_digest")
    _digest: str | None
    _content_bytes: int


class _MessageHead(msgspec.Struct, _Memo, frozen=True, gc=False):
    """The two fields a message takes by position (``Message("user", "hello")``).

    No message is collected as garbage (``gc=False``): its fields are strings, numbers and
    tuples of tool calls and images, whose arguments are frozen JSON values, so it cannot be
    part of a reference cycle; tens of thousands of them live as long as a session.
    """

    role: str
    content: str = ""


class Message(_MessageHead, frozen=True, kw_only=True, cache_hash=True):
    """One conversation message; immutable and equal by value, its hash computed once."""

    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    images: tuple[Image, ...] = ()
    name: str = ""
    tool_call_id: str = ""
    source: str = ""
    turn: int = 0
    incomplete: bool = False

    @property
    def prompt_bytes(self) -> int:
        """UTF-8 bytes of role plus content (this message's share of a request's prompt bytes)."""
        content = self.content  # roles are ASCII; ``isascii`` reads a flag (``utf8_len``)
        if content.isascii():
            return len(self.role) + len(content)
        try:
            return len(self.role) + self._content_bytes
        except AttributeError:
            size = utf8_len(content)
            msgspec.structs.force_setattr(self, "_content_bytes", size)
            return len(self.role) + size

    def digest(self, content: bytes | None = None) -> str:
        """The message's hash (``message_hash``), computed once; ``content``: its content's
        UTF-8 when the caller has it (not encoded again)."""
        try:
            known = self._digest
        except AttributeError:  # a ``copy.copy``, which skips ``__post_init__``
            known = None
        if known is not None:
            return known
        if content is None:
            try:  # ``utf8`` without its call: the preview of a resume asks 7,500 messages
                content = self.content.encode()
            except UnicodeEncodeError:
                content = utf8(self.content)
        return self.digest_from(content)

    def digest_from(self, content: bytes | memoryview) -> str:
        """The message's hash with ``content`` as its content's UTF-8 (``utf8``), which a
        reader of raw bytes has in hand: the content is not encoded again. Kept, with the
        content's size, as the message's."""
        role = _ROLE_BYTES[self.role]
        if self.reasoning or self.tool_calls or self.images:
            # The hash input as one buffer: an update per field cost as much as the hash.
            texts = [self.reasoning]
            for call in self.tool_calls:
                texts += (call.name, call.arguments_json, call.raw_arguments)
            for image in self.images:
                texts += (image.media_type, image.data)
            try:  # one encode when no text holds a surrogate (each is then its own UTF-8)
                rest = "".join(texts).encode()
            except UnicodeEncodeError:
                rest = b"".join([utf8(text) for text in texts])
            h = hashlib.sha256(b"".join((role, content, rest)))
        elif len(content) < 4096:  # one buffer: a message of a few words hashed in a third
            h = hashlib.sha256(role + content)
        else:
            h = hashlib.sha256(role)
            h.update(content)
        digest = h.hexdigest()[:8]
        _set(self, "_digest", digest)
        _set(self, "_content_bytes", len(content))
        return digest

    def take_digest(self, digest: str, content_bytes: int) -> None:
        """Keep ``digest`` as the message's hash and ``content_bytes`` as its content's UTF-8
        size without computing them: a session log stores them for a large text."""
        msgspec.structs.force_setattr(self, "_digest", digest)
        msgspec.structs.force_setattr(self, "_content_bytes", content_bytes)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown message role {self.role!r}; expected one of {ROLES}")
        msgspec.structs.force_setattr(self, "_digest", None)
        if not isinstance(self.tool_calls, tuple):
            msgspec.structs.force_setattr(self, "tool_calls", tuple(self.tool_calls))
        if not isinstance(self.images, tuple):
            msgspec.structs.force_setattr(self, "images", tuple(self.images))

    def with_content(self, content: str) -> Message:
        """A copy with other content (everything else kept)."""
        return msgspec.structs.replace(self, content=content)


def is_real_user_message(message: Message) -> bool:
    """User role and not a sub-agent result (the retention anchor's definition)."""
    return message.role == "user" and message.source != SUB_AGENT_RESULT_SOURCE


def message_hash(message: Message) -> str:
    """The message's 8-hex-digit hash: first 4 bytes of SHA-256 over the hash input."""
    return message.digest()


def short_hash(text: str) -> str:
    """First 4 bytes of SHA-256 of ``text`` as hex (``""`` gives ``e3b0c442``)."""
    return hashlib.sha256(utf8(text)).digest()[:4].hex()


def cumulative_prefix_hashes(hashes: Iterable[str]) -> list[str]:
    """The prefix chain for cache diagnostics: ``cum = short_hash(cum + h)`` per hash."""
    out: list[str] = []
    cum = ""
    for h in hashes:
        cum = short_hash(cum + h)
        out.append(cum)
    return out


def to_provider_message(message: Message) -> Message:
    """Project a stored message for a provider.

    ``summary`` becomes ``system``; an ``incomplete`` assistant message gains the interruption
    note. The stored message is never changed.
    """
    if message.role == "summary":
        return msgspec.structs.replace(message, role="system")
    if message.role == "assistant" and message.incomplete:
        content = message.content + INTERRUPTION_NOTE
        return msgspec.structs.replace(message, content=content, incomplete=False)
    return message


def messages_bytes(messages: Sequence[Message]) -> int:
    """A request's prompt bytes: the sum of each message's role and content in UTF-8 bytes."""
    return sum(m.prompt_bytes for m in messages)
