"""The snapshot store's shared structure: the requests' messages as a chain of segments.

A conversation that grows by a turn per request is stored as a chain: each request adds a
``Segment`` holding only the messages after the prefix it shares with the previous request.
``SnapshotStore`` (``snapshots``) imports this module when it stores its first request: the
store is built at start-up, and each dataclass costs about a millisecond to create.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steiner_tui.engine.events import RequestSnapshot
    from steiner_tui.engine.messages import Message

__all__ = ["Segment", "StoredSnapshot"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of messages appended after ``parent``'s; ``length`` counts the whole chain."""

    parent: Segment | None
    messages: tuple[Message, ...]
    hashes: tuple[str, ...]
    length: int

    def materialize(self) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        chain: list[Segment] = []
        node: Segment | None = self
        while node is not None:
            chain.append(node)
            node = node.parent
        messages: list[Message] = []
        hashes: list[str] = []
        for segment in reversed(chain):
            messages.extend(segment.messages)
            hashes.extend(segment.hashes)
        return tuple(messages), tuple(hashes)


@dataclass(frozen=True, slots=True)
class StoredSnapshot:
    """One stored request: its snapshot with empty messages and hashes, and the segment holding
    them (None for a request without messages)."""

    snapshot: RequestSnapshot
    segment: Segment | None
