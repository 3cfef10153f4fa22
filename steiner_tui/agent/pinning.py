"""Pinning on a running conversation: the runner's pin operations as functions of a lineage.

Pins are the lineage's (docs/design.md, "Pins"); these functions check what may be pinned and
return the new lineage with the event to tell the sinks, which the runner emits once it has
stored the lineage (a sink may read it).
"""

from __future__ import annotations

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.pins import PINNABLE_ROLES, is_pinned_by, pin_key, pin_label
from steiner_tui.engine.events import PinChanged
from steiner_tui.engine.messages import Message

__all__ = ["pin_message", "pinned_messages", "unpin_key"]


def pinned_messages(lineage: ConversationLineage) -> tuple[Message, ...]:
    """The active conversation's pinned messages, in order."""
    pinned = is_pinned_by(lineage.pins)
    return tuple(m for m in lineage.active.messages if pinned(m))


def pin_message(
    lineage: ConversationLineage, message: Message
) -> tuple[ConversationLineage, str, PinChanged | None]:
    """Pin ``message`` (of the active conversation): every compaction keeps it verbatim.

    Returns:
        The lineage with the pin, its pin key, and the event (None: it was pinned already).

    Raises:
        ValueError: the message cannot be pinned (a summary, or not in the conversation).
    """
    conversation = lineage.active.messages
    if message.role not in PINNABLE_ROLES:
        raise ValueError(f"a {message.role} message cannot be pinned")
    if message not in conversation:
        raise ValueError("only a message of the active conversation can be pinned")
    key = pin_key(message)
    if key in lineage.pins:
        return lineage, key, None
    return lineage.pin(key), key, PinChanged(key, True, pin_label(message, conversation))


def unpin_key(
    lineage: ConversationLineage, key: str
) -> tuple[ConversationLineage, PinChanged] | None:
    """The lineage without the pin ``key`` and the event; None when it was not pinned."""
    if key not in lineage.pins:
        return None
    conversation = lineage.active.messages
    named = next((m for m in conversation if pin_key(m) == key), None)
    label = pin_label(named, conversation) if named is not None else ""
    return lineage.unpin(key), PinChanged(key, False, label)
