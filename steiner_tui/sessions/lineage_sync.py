"""Bringing a session log up to its runner's lineage: what it has written, what is missing.

The log follows the runner's lineage rather than trusting events alone: on each structural event
it compares the lineage with what it has written (generation count, active id, message count and
the identity of the last written message) and writes exactly what is missing. Appended messages
become ``message`` records, compaction a ``generation`` record with the new generation's whole
conversation (retained messages by index), and anything else (a cleared or replaced
conversation) a ``reset``. Kept apart from ``writer`` so its sink says only when to write.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import msgspec

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.record_values import generation_record, message_line
from steiner_tui.sessions.records import BackendStateRecord, PinRecord, Record
from steiner_tui.sessions.request_trail import RequestTrail
from steiner_tui.sessions.text_file import TextFile

__all__ = ["Written", "write_missing"]


class Written(msgspec.Struct):
    """What the log holds: generations, active id, active messages, backend state."""

    generations: int = 1
    active_id: int = 0
    messages: Chain[Message] = Chain()
    backend: str | None = None

    @classmethod
    def of(cls, lineage: ConversationLineage) -> Written:
        active = lineage.active
        return cls(len(lineage.generations), active.id, active.messages, active.backend_state)

    @classmethod
    def resumed(cls, loaded: LoadedSession) -> Written:
        active = loaded.lineage.active
        return cls(
            len(loaded.lineage.generations),
            # A repair in the middle of the conversation: rewrite the lineage (a reset).
            -1 if loaded.rewritten else active.id,
            Chain.of(loaded.as_logged),
            active.backend_state,
        )

    @property
    def count(self) -> int:
        return len(self.messages)

    @property
    def last(self) -> Message | None:
        return self.messages[-1] if self.messages else None


def write_missing(
    written: Written,
    lineage: ConversationLineage,
    *,
    write: Callable[[Record], None],
    texts: TextFile,
    trail: RequestTrail,
    status: Callable[[Message], str],
    clock: Callable[[], datetime],
) -> None:
    """Write what ``lineage`` holds that ``written`` does not: the new messages and generations
    when what was written is intact, else the whole lineage from a ``reset`` (and its pins).

    ``status`` says how a tool result's call ended; ``trail`` learns the messages written.
    """
    generations = lineage.generations
    known = written.generations
    if len(generations) >= known and generations[known - 1].id == written.active_id:
        previous = generations[known - 1]
        messages = previous.messages
        count = written.count
        # Grown from what was written (one identity check), or ending in its last message.
        intact = messages.extends(written.messages) or (
            len(messages) >= count and (count == 0 or messages[count - 1] is written.last)
        )
        if intact:
            start = max(count - 1, 0)  # the new messages, after the one before them
            window = messages[start:]
            for position in range(count - start, len(window)):
                message = window[position]
                write(message_line(window, position, status(message), texts))
                trail.since.append(message)
            if previous.backend_state != written.backend:
                write(BackendStateRecord(gen=previous.id, state=previous.backend_state))
            before = messages
            for generation in generations[known:]:
                write(generation_record(generation, before=before, texts=texts))
                trail.since = []
                before = generation.messages
            return
    before = written.messages
    for index, generation in enumerate(generations):
        write(generation_record(generation, before=before, reset=index == 0, texts=texts))
        before = generation.messages
    trail.since = []
    for key in lineage.pins:  # a reset clears the pins: write those still held
        write(PinRecord(key=key, at=clock()))
