"""Resume: tell the UI which skill envelopes a stored conversation already carries.

When a session is resumed, every leading envelope of every user message is reported in order as
a ``SkillStateEvent`` (name, state, ``N``), so the skills panel and the transcript can show the
same markers they showed live. Folding them (``effective_skills``) gives the state in force.
"""

from __future__ import annotations

from collections.abc import Iterable

from steiner_tui.engine.events import EventSink, SkillStateEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import split_skill_blocks

__all__ = ["replay_skill_states"]


def replay_skill_states(messages: Iterable[Message], sink: EventSink) -> list[SkillStateEvent]:
    """Emit one ``SkillStateEvent`` per leading envelope of each user-role message, in order.

    Args:
        messages: the stored conversation, oldest first.
        sink: receives the events as they are found.

    Returns:
        The emitted events, in order.
    """
    events: list[SkillStateEvent] = []
    for message in messages:
        if message.role != "user":
            continue
        for block in split_skill_blocks(message.content)[1]:
            event = SkillStateEvent(block.name, block.state, block.size_bytes)
            sink.emit(event)
            events.append(event)
    return events
