"""Request snapshots: what exactly was sent on each model call, kept for the context report.

``build_request_snapshot`` makes the per-request event (hashes, bytes, blocks, tools, estimate)
before the call. Every value it holds is immutable (frozen dataclasses, tuples, deep-frozen
JSON), so nothing a caller still holds can reach a snapshot, and neither the event nor the store
needs a copy.

``SnapshotStore`` shares structure between snapshots: a conversation that grows by a turn per
request is stored as a chain of segments, each request adding only its new messages and hashes,
so 500 requests retain little more than the distinct messages themselves. Readers get a fresh
``RequestSnapshot`` rebuilt from the chain.

``prefix_stability`` compares two snapshots: the provider's prompt cache helps only up to the
first message whose hash differs, so the context report and the request inspector show where
that is and which source changed there.

(docs/design.md, "5. Message hashes and request snapshots")
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from steiner_tui.engine.events import EngineEvent, RequestSnapshot
from steiner_tui.engine.messages import Message, message_hash, messages_bytes
from steiner_tui.engine.prompt.blocks import ContextBlock, block_message_indexes, blocks_bytes
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.tooldefs import ToolDefinition, tools_bytes

__all__ = [
    "EstimateLike",
    "PrefixStability",
    "SnapshotStore",
    "build_request_snapshot",
    "hash_messages",
    "prefix_stability",
]


class EstimateLike(Protocol):
    """The four figures of a token estimate (``tokens.TokenEstimate`` has them)."""

    @property
    def tokens(self) -> int: ...
    @property
    def raw_tokens(self) -> int: ...
    @property
    def strategy(self) -> str: ...
    @property
    def confidence(self) -> str: ...


def hash_messages(messages: Iterable[Message]) -> tuple[str, ...]:
    """Each message's hash, in order.

    Not memoized here (each message caches its own hash): a process-wide memo would keep large
    tool outputs alive after their session is gone.
    """
    return tuple(message_hash(message) for message in messages)


def build_request_snapshot(
    *,
    request_id: str,
    index: int,
    model: str,
    provider: str,
    time: datetime,
    messages: Sequence[Message],
    blocks: Sequence[ContextBlock],
    block_message_count: int,
    tools: Sequence[ToolDefinition],
    max_tokens: int,
    estimate: EstimateLike,
    compaction: bool = False,
    generation_id: str = "",
    fits: bool = True,
    overflow_tokens: int = 0,
    message_hashes: tuple[str, ...] | None = None,
    prompt_bytes: int | None = None,
) -> RequestSnapshot:
    """Build the snapshot event of one request.

    Sequences are copied into tuples, so a list the caller keeps editing cannot reach the
    event; messages, blocks and tools are immutable and shared as they are. A caller that
    keeps per-message figures (the runner's ledger) passes the hashes and prompt bytes it
    already has; they must be those of ``messages``.
    """
    msgs = tuple(messages)
    blks = tuple(blocks)
    tls = tuple(tools)
    return RequestSnapshot(
        request_id=request_id,
        index=index,
        model=model,
        provider=provider,
        time=time,
        message_hashes=message_hashes if message_hashes is not None else hash_messages(msgs),
        messages=msgs,
        blocks=blks,
        block_message_count=block_message_count,
        prompt_bytes=prompt_bytes if prompt_bytes is not None else messages_bytes(msgs),
        blocks_bytes=blocks_bytes(blks),
        tools=tls,
        tools_bytes=tools_bytes(tls),
        max_tokens=max_tokens,
        estimated_prompt_tokens=estimate.tokens,
        raw_prompt_tokens=estimate.raw_tokens,
        estimate_strategy=estimate.strategy,
        estimate_confidence=estimate.confidence,
        compaction=compaction,
        generation_id=generation_id,
        fits=fits,
        overflow_tokens=overflow_tokens,
    )


# -- comparing two requests ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrefixStability:
    """How much of request ``a``'s message prefix survives in a later request ``b``.

    ``matching`` leading hashes are equal; ``first_broken`` is the first index of ``a`` that
    ``b`` does not repeat (None when ``b`` keeps all of ``a``), and ``broken_source`` names what
    changed there: a block source when the message came from blocks, else ``conversation``.
    """

    matching: int
    first_broken: int | None
    broken_source: str = ""

    @property
    def stable(self) -> bool:
        return self.first_broken is None


def _message_source(snapshot: RequestSnapshot, other: RequestSnapshot, index: int) -> str:
    if index >= snapshot.block_message_count:
        return str(ContextSource.CONVERSATION)
    placed = block_message_indexes(snapshot.blocks)
    candidates = [b for b, i in zip(snapshot.blocks, placed, strict=True) if i == index]
    if not candidates:
        return str(ContextSource.CONVERSATION)
    previous = {(b.source, b.path): b.content for b in other.blocks}
    for block in candidates:
        if previous.get((block.source, block.path)) != block.content:
            return block.source
    return candidates[0].source


def prefix_stability(a: RequestSnapshot, b: RequestSnapshot) -> PrefixStability:
    """Compare the message hashes of request ``a`` with a later request ``b``."""
    matching = 0
    for left, right in zip(a.message_hashes, b.message_hashes, strict=False):
        if left != right:
            break
        matching += 1
    if matching == len(a.message_hashes):
        return PrefixStability(matching, None)
    source_snapshot, other = (b, a) if matching < len(b.message_hashes) else (a, b)
    return PrefixStability(matching, matching, _message_source(source_snapshot, other, matching))


# -- the store ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Segment:
    """A run of messages appended after ``parent``'s; ``length`` counts the whole chain."""

    parent: _Segment | None
    messages: tuple[Message, ...]
    hashes: tuple[str, ...]
    length: int

    def materialize(self) -> tuple[tuple[Message, ...], tuple[str, ...]]:
        chain: list[_Segment] = []
        node: _Segment | None = self
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
class _StoredSnapshot:
    """One stored request: its snapshot with empty messages and hashes, and the segment holding
    them (None for a request without messages)."""

    snapshot: RequestSnapshot
    segment: _Segment | None


class SnapshotStore:
    """Keeps every request snapshot of a session, sharing structure between them.

    It is also an ``EventSink``: ``emit`` stores ``RequestSnapshot`` events and ignores others.
    Stored values are immutable, so readers get them without defensive copies.
    """

    def __init__(self) -> None:
        self._stored: list[_StoredSnapshot] = []
        self._by_index: dict[int, int] = {}
        self._blocks: dict[ContextBlock, ContextBlock] = {}
        # The latest request's messages, to find how much of its chain the next one shares.
        self._tip_messages: tuple[Message, ...] = ()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._stored)

    def emit(self, event: EngineEvent) -> None:
        """Store request snapshots; ignore every other event."""
        if isinstance(event, RequestSnapshot):
            self.store(event)

    def _segment_for(self, snapshot: RequestSnapshot) -> _Segment | None:
        messages = snapshot.messages
        # Messages are compared by value, not by hash: the hash leaves out fields such as
        # tool_call_id, and a stored snapshot must show exactly what was sent. A request that
        # repeats the previous one and adds to it (the usual case) is found by one tuple
        # comparison, which checks each shared message by identity first.
        tip = self._tip_messages
        if len(messages) >= len(tip) and messages[: len(tip)] == tip:
            matching = len(tip)
        else:
            matching = 0
            for old, new in zip(tip, messages, strict=False):
                if old is not new and old != new:
                    break
                matching += 1
        parent = self._stored[-1].segment if self._stored else None
        while parent is not None and parent.length > matching:
            parent = parent.parent
        start = parent.length if parent is not None else 0
        if parent is not None and start == len(messages):
            return parent
        if not messages:
            return None
        tail = messages[start:]
        return _Segment(parent, tail, snapshot.message_hashes[start:], len(messages))

    def _intern_blocks(self, blocks: tuple[ContextBlock, ...]) -> tuple[ContextBlock, ...]:
        previous = self._stored[-1].snapshot.blocks if self._stored else None
        if previous is not None and previous == blocks:
            return previous
        return tuple(self._blocks.setdefault(b, b) for b in blocks)

    def store(self, snapshot: RequestSnapshot) -> None:
        """Add ``snapshot`` (the latest request)."""
        with self._lock:
            segment = self._segment_for(snapshot)
            previous = self._stored[-1].snapshot if self._stored else None
            tools = snapshot.tools
            if previous is not None and previous.tools == tools:
                tools = previous.tools
            slim = replace(
                snapshot,
                messages=(),
                message_hashes=(),
                blocks=self._intern_blocks(snapshot.blocks),
                tools=tools,
            )
            self._by_index[snapshot.index] = len(self._stored)
            self._stored.append(_StoredSnapshot(slim, segment))
            self._tip_messages = snapshot.messages

    @staticmethod
    def _rebuild(stored: _StoredSnapshot) -> RequestSnapshot:
        if stored.segment is None:
            return stored.snapshot
        messages, hashes = stored.segment.materialize()
        return replace(stored.snapshot, messages=messages, message_hashes=hashes)

    def snapshot(self, index: int) -> RequestSnapshot | None:
        """The snapshot whose request ``index`` is ``index`` (the latest such), or None."""
        with self._lock:
            position = self._by_index.get(index)
            return None if position is None else self._rebuild(self._stored[position])

    def latest(self) -> RequestSnapshot | None:
        """The most recent snapshot, or None."""
        with self._lock:
            return self._rebuild(self._stored[-1]) if self._stored else None

    def parent_snapshot(self) -> RequestSnapshot | None:
        """The last non-compaction request (manual ``/compact`` takes its tools), or None."""
        with self._lock:
            for stored in reversed(self._stored):
                if not stored.snapshot.compaction:
                    return self._rebuild(stored)
            return None

    def all(self) -> tuple[RequestSnapshot, ...]:
        """Every snapshot, oldest first."""
        with self._lock:
            return tuple(self._rebuild(s) for s in self._stored)

    def prefix_stability(self, a: RequestSnapshot, b: RequestSnapshot) -> PrefixStability:
        """See ``prefix_stability``."""
        return prefix_stability(a, b)
