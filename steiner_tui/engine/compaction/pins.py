"""Pins: messages that every compaction stage keeps verbatim.

A person pins a message (an instruction, a tool result, a decision in a reply) so that no
compaction summarizes, masks or cuts it. A pin is a **key** naming one message in every
generation that holds it (``pin_key``):

* a tool result: ``<turn>:tool:<call id>`` (its call id is unique within a turn);
* any other message: ``<turn>:<role>:<hash>``, the message hash of the message with its leading
  skill envelopes stripped, which is the form every retained copy of it has (compaction strips
  the envelopes of the messages it keeps, section 11).

A pinned message never stands alone where the providers' protocol needs company: a pinned tool
result keeps the assistant message that made its call, and a pinned assistant message with tool
calls keeps their results (``pinned_indexes``); the other results of such a call message are
kept too, masked when large. The pins ride on the lineage (``ConversationLineage.pins``), so
they survive compaction, resume and fork.

When the pinned messages alone (with the static prefix, the completion reserve and room for an
emergency summary) cannot fit the window, compaction raises ``PinsTooLarge`` naming each pin and
its size: the person unpins some, or the run stops with that message (docs/design.md, "8.
Compaction: turns, stages and the summary").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import strip_skill_blocks
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.errors import CompactionError

__all__ = [
    "PINNABLE_ROLES",
    "PinSize",
    "PinsTooLarge",
    "is_pinned_by",
    "pin_key",
    "pin_label",
    "pinned_indexes",
]

PINNABLE_ROLES = ("user", "assistant", "tool")
"""Roles a person can pin (a summary is rewritten by every compaction: it cannot be)."""

_PREVIEW_CHARS = 48


def pin_key(message: Message) -> str:
    """The key that names ``message`` in every generation that keeps it (module docstring)."""
    if message.role == "tool" and message.tool_call_id:
        return f"{message.turn}:tool:{message.tool_call_id}"
    base = message
    if message.role == "user":
        stripped = strip_skill_blocks(message.content)
        if stripped != message.content:
            base = message.with_content(stripped)
    return f"{message.turn}:{message.role}:{base.digest()}"


def is_pinned_by(pins: Sequence[str]) -> Callable[[Message], bool]:
    """A predicate: is a message pinned by one of ``pins``?"""
    keys = frozenset(pins)
    if not keys:
        return lambda message: False
    return lambda message: message.role in PINNABLE_ROLES and pin_key(message) in keys


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW_CHARS else flat[: _PREVIEW_CHARS - 3] + "..."


def pin_label(message: Message, context: Sequence[Message] = ()) -> str:
    """How a pinned message is named to the person: ``read path=a.py (turn 3)``,
    ``user (turn 2): "keep the API stable"``, ``reply (turn 4): "we use..."``."""
    turn = f"turn {message.turn}"
    if message.role == "tool":
        for other in reversed(context):
            for call in other.tool_calls:
                if call.id == message.tool_call_id:
                    return f"{summarize_tool_call(call)} ({turn})"
        return f"{message.name or 'tool'} result ({turn})"
    role = "reply" if message.role == "assistant" else message.role
    text = strip_skill_blocks(message.content) if message.role == "user" else message.content
    if not text and message.tool_calls:
        text = ", ".join(call.name for call in message.tool_calls)
    return f'{role} ({turn}): "{_preview(text)}"'


def _results_of(messages: Sequence[Message], carrier: int) -> list[int]:
    ids = {call.id for call in messages[carrier].tool_calls}
    found: list[int] = []
    for index in range(carrier + 1, len(messages)):
        message = messages[index]
        if message.role != "tool":
            break
        if message.tool_call_id in ids:
            found.append(index)
    return found


def _carrier_of(messages: Sequence[Message], result: int) -> int | None:
    call_id = messages[result].tool_call_id
    for index in range(result - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant":
            return index if any(call.id == call_id for call in message.tool_calls) else None
        if message.role != "tool":
            return None
    return None


def pinned_indexes(
    messages: Sequence[Message], is_pinned: Callable[[Message], bool]
) -> tuple[frozenset[int], frozenset[int]]:
    """Which messages pins keep, as ``(pinned, companions)`` index sets.

    ``pinned`` holds the pinned messages and the assistant messages whose calls a pinned
    result answers; ``companions`` holds the other results of those call messages (and the
    results of a pinned assistant message's calls), which are kept so every call keeps its
    result, and may be masked.
    """
    pinned: set[int] = set()
    companions: set[int] = set()
    for index, message in enumerate(messages):
        if not is_pinned(message):
            continue
        pinned.add(index)
        carrier = index
        if message.role == "tool":
            found = _carrier_of(messages, index)
            if found is None:
                continue
            carrier = found
            pinned.add(carrier)
        if messages[carrier].tool_calls:
            companions.update(_results_of(messages, carrier))
    companions -= pinned
    return frozenset(pinned), frozenset(companions)


class PinSize(msgspec.Struct, frozen=True):
    """One pin as compaction reports it: its key, its label and its estimated tokens."""

    key: str
    label: str
    tokens: int


class PinsTooLarge(CompactionError):
    """The pinned messages alone cannot fit the window; some must be unpinned.

    Args:
        pins: each pin kept in the conversation, largest first.
        pinned_tokens: the estimated tokens of a request holding only the static prefix and
            the pinned messages.
        limit: the most such a request may take (the window less the completion reserve, the
            safety margin and an emergency summary's cap).
    """

    def __init__(self, pins: Sequence[PinSize], pinned_tokens: int, limit: int) -> None:
        self.pins = tuple(pins)
        self.pinned_tokens = pinned_tokens
        self.limit = limit
        super().__init__(pins_too_large_message(self.pins, pinned_tokens, limit))


def pins_too_large_message(pins: Sequence[PinSize], pinned_tokens: int, limit: int) -> str:
    """``pinned messages alone do not fit the window (~N tokens with the prefix, at most M):
    unpin some: read path=a.py (turn 3) ~40,000 tokens; ...``"""
    listed = "; ".join(f"{pin.label} ~{pin.tokens:,} tokens" for pin in pins)
    return (
        f"pinned messages alone do not fit the window (~{pinned_tokens:,} tokens with the "
        f"static prefix, at most {limit:,} leave room for a summary and the reply): "
        f"unpin some: {listed}"
    )
