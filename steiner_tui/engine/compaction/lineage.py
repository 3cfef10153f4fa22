"""Conversation generations and the lineage that keeps all of them.

Each compaction that applies ends the active generation and starts a new one whose conversation
begins with the summary. The lineage never drops a generation, so every compaction stays
explainable afterwards: a generation records the ``CompactionOutcome`` that created it (stages,
token counts before and after, summary model, fallback status and reason, health, time). The
latest generation is the active one.

Everything here is immutable; each change returns a new lineage. Only the latest generation
carries live backend state (a stateful provider's transcript id); clearing it never renumbers
generations.

The lineage also holds the conversation's **pins**: the pin keys (``pins.pin_key``) of the
messages every compaction stage keeps verbatim. They belong to the conversation, not to one
generation: a pinned message keeps its key in every generation that retains it, so the pins
travel with the lineage through compaction, resume and fork (docs/design.md, "8. Compaction:
turns, stages and the summary").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message

__all__ = ["ConversationGeneration", "ConversationLineage"]


class ConversationGeneration(msgspec.Struct, frozen=True):
    """One generation: its conversation, the summary it starts from, and how it came to be.

    The conversation is a ``Chain``: appending shares the messages before, not a copy of them.
    """

    id: int
    messages: Chain[Message] = Chain()
    summary: str = ""
    """The summary text that opens this generation (``""`` for the first)."""
    backend_state: str | None = None
    outcome: CompactionOutcome | None = None
    created_at: datetime | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.messages, Chain):
            msgspec.structs.force_setattr(self, "messages", Chain(self.messages))


class ConversationLineage(msgspec.Struct, frozen=True):
    """Every generation of a conversation, oldest first; the last one is active."""

    generations: tuple[ConversationGeneration, ...] = (ConversationGeneration(0),)
    pins: tuple[str, ...] = ()
    """Pin keys, in the order they were pinned (no duplicates)."""

    def __post_init__(self) -> None:
        if not isinstance(self.generations, tuple):
            msgspec.structs.force_setattr(self, "generations", tuple(self.generations))
        if not isinstance(self.pins, tuple):
            msgspec.structs.force_setattr(self, "pins", tuple(self.pins))
        if not self.generations:
            raise ValueError("a conversation lineage needs at least one generation")

    @classmethod
    def start(
        cls,
        messages: Sequence[Message] = (),
        *,
        backend_state: str | None = None,
        at: datetime | None = None,
        pins: Sequence[str] = (),
    ) -> ConversationLineage:
        """A lineage with one generation (id 0) holding ``messages``."""
        generation = ConversationGeneration(0, Chain.of(messages), "", backend_state, None, at)
        return cls((generation,), tuple(dict.fromkeys(pins)))

    @property
    def active(self) -> ConversationGeneration:
        """The latest generation."""
        return self.generations[-1]

    def _with_active(self, generation: ConversationGeneration) -> ConversationLineage:
        return ConversationLineage((*self.generations[:-1], generation), self.pins)

    def advance(
        self,
        new_messages: Sequence[Message],
        summary: str,
        outcome: CompactionOutcome | None,
        at: datetime | None,
    ) -> ConversationLineage:
        """Start a new generation after a compaction; earlier generations are kept unchanged.

        The new generation starts without backend state: its transcript does not exist yet.
        """
        generation = ConversationGeneration(
            self.active.id + 1, Chain.of(new_messages), summary, None, outcome, at
        )
        return ConversationLineage((*self.generations, generation), self.pins)

    def with_active_messages(self, messages: Sequence[Message]) -> ConversationLineage:
        """The same lineage with the active generation's conversation replaced."""
        chain = Chain.of(messages)
        return self._with_active(msgspec.structs.replace(self.active, messages=chain))

    def append(self, *messages: Message) -> ConversationLineage:
        """The same lineage with ``messages`` added to the active conversation."""
        return self.with_active_messages(self.active.messages.plus(messages))

    def with_backend_state(self, state: str | None) -> ConversationLineage:
        """The same lineage with the active generation's backend state set."""
        return self._with_active(msgspec.structs.replace(self.active, backend_state=state))

    def clear_backend_state(self) -> ConversationLineage:
        """Drop only the latest generation's backend state; ids and messages are unchanged."""
        if self.active.backend_state is None:
            return self
        return self.with_backend_state(None)

    def pin(self, key: str) -> ConversationLineage:
        """The same lineage with ``key`` pinned (last in order; no change if it already is)."""
        return self if key in self.pins else msgspec.structs.replace(self, pins=(*self.pins, key))

    def unpin(self, key: str) -> ConversationLineage:
        """The same lineage without the pin ``key``."""
        if key not in self.pins:
            return self
        return msgspec.structs.replace(self, pins=tuple(k for k in self.pins if k != key))
