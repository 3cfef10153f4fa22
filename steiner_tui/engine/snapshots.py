"""Request snapshots: what exactly was sent on each model call, kept for the context report.

``build_request_snapshot`` makes the per-request event (hashes, bytes, blocks, tools, estimate)
before the call. Given a ``SourceCounter`` (``source_counts``; the runner's, over its
estimator) it also says what each source costs (``SourceCounter.count``): each block, each skill
envelope carried in the conversation, the rest of the conversation and the tool definitions,
in bytes and raw tokens.
The counts come from the estimator's one cache (per message and per text), and the counter
remembers the conversation it counted last, so a growing conversation costs one count per new
message; the context panel only shows them.

Every value a snapshot holds is immutable (frozen structs and dataclasses, tuples, deep-frozen
JSON), so nothing a caller still holds can reach a snapshot, and neither the event nor the store
needs a copy.

``SnapshotStore`` shares structure between snapshots: a conversation that grows by a turn per
request is stored as a chain of segments, each request adding only its new messages and hashes,
so 500 requests retain little more than the distinct messages themselves. Readers get a fresh
``RequestSnapshot`` rebuilt from the chain. The runner's requests carry their conversation and
its hashes as ``Chain``s already (each growing from the one before): those are kept as they are.
``RequestSummary`` rows (``summaries``) give the figures of any range of requests without
rebuilding one: the request inspector lists them page by page and the context panel charts
them, so neither costs more with a longer session.
Each row also says what share of its prompt the provider's cache served (``RequestSummary.reuse``),
where its usage says it.

``prefix_stability`` compares two snapshots: the provider's prompt cache helps only up to the
first message whose hash differs, so the context report and the request inspector show where
that is and which source changed there.

(docs/design.md, "5. Message hashes and request snapshots")
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from steiner_tui.engine.chain import Chain, shared_prefix
from steiner_tui.engine.events import (
    CacheExplanation,
    EngineEvent,
    RequestSnapshot,
    RequestStopped,
    SourceTokens,
    UsageReported,
)
from steiner_tui.engine.messages import Message, messages_bytes
from steiner_tui.engine.prices import cache_ttl_seconds
from steiner_tui.engine.prompt.blocks import ContextBlock, block_message_indexes, blocks_bytes
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.source_counts import (
    TOOL_RESULTS_SOURCE,
    TOOLS_SOURCE,
    CountedSources,
    RequestParts,
    SourceCounter,
    TokenCounter,
)
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json
from steiner_tui.engine.utf8 import utf8_len

__all__ = [
    "TOOLS_SOURCE",
    "TOOL_RESULTS_SOURCE",
    "EstimateLike",
    "PrefixStability",
    "RequestParts",
    "RequestSummary",
    "SnapshotStore",
    "SourceCounter",
    "TokenCounter",
    "build_request_snapshot",
    "hash_messages",
    "message_source",
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
    return tuple([message.digest() for message in messages])  # ``message_hash``, no call each


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
    message_hashes: Sequence[str] | None = None,
    prompt_bytes: int | None = None,
    counter: SourceCounter | None = None,
) -> RequestSnapshot:
    """Build the snapshot event of one request.

    Sequences are copied into tuples, so a list the caller keeps editing cannot reach the
    event (a ``Chain`` of messages or hashes is immutable and kept as it is); messages, blocks
    and tools are immutable and shared as they are. A caller that
    keeps per-message figures (the runner's ledger) passes the hashes and prompt bytes it
    already has; they must be those of ``messages``. With ``counter`` the snapshot carries its
    per-source figures (``SourceCounter.count``).
    """
    msgs = messages if isinstance(messages, Chain) else tuple(messages)
    blks = tuple(blocks)
    tls = tuple(tools)
    tools_text = tools_json(tls) if tls else ""  # encoded once: its bytes, then its tokens
    tools_size = utf8_len(tools_text) if tls else 0
    sources: Sequence[SourceTokens] = ()
    if counter is not None:
        parts = RequestParts(msgs, blks, block_message_count, tools_text, tools_size)
        sources = CountedSources(counter, model, parts, estimate.raw_tokens)
    return RequestSnapshot(
        request_id=request_id,
        index=index,
        model=model,
        provider=provider,
        time=time,
        message_hashes=hash_messages(msgs) if message_hashes is None else message_hashes,
        messages=msgs,
        blocks=blks,
        block_message_count=block_message_count,
        prompt_bytes=prompt_bytes if prompt_bytes is not None else messages_bytes(msgs),
        blocks_bytes=blocks_bytes(blks),
        tools=tls,
        tools_bytes=tools_size,
        max_tokens=max_tokens,
        estimated_prompt_tokens=estimate.tokens,
        raw_prompt_tokens=estimate.raw_tokens,
        estimate_strategy=estimate.strategy,
        estimate_confidence=estimate.confidence,
        compaction=compaction,
        generation_id=generation_id,
        fits=fits,
        overflow_tokens=overflow_tokens,
        sources=sources,
    )


# -- what each source costs -----------------------------------------------------------------


# -- comparing two requests ---------------------------------------------------------------


class PrefixStability(msgspec.Struct, frozen=True):
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


def message_source(snapshot: RequestSnapshot, other: RequestSnapshot | None, index: int) -> str:
    """What message ``index`` of ``snapshot`` came from: the block source merged there (the
    first whose content differs from ``other``'s block of the same source and path, when
    ``other`` is given), else ``conversation``."""
    if index >= snapshot.block_message_count:
        return str(ContextSource.CONVERSATION)
    placed = block_message_indexes(snapshot.blocks)
    candidates = [b for b, i in zip(snapshot.blocks, placed, strict=True) if i == index]
    if not candidates:
        return str(ContextSource.CONVERSATION)
    previous = {(b.source, b.path): b.content for b in other.blocks} if other is not None else {}
    for block in candidates:
        if previous.get((block.source, block.path)) != block.content:
            return block.source
    return candidates[0].source


def prefix_stability(a: RequestSnapshot, b: RequestSnapshot) -> PrefixStability:
    """Compare the message hashes of request ``a`` with a later request ``b``."""
    matching = shared_prefix(a.message_hashes, b.message_hashes)
    if matching == len(a.message_hashes):
        return PrefixStability(matching, None)
    source_snapshot, other = (b, a) if matching < len(b.message_hashes) else (a, b)
    return PrefixStability(matching, matching, message_source(source_snapshot, other, matching))


# -- the store ------------------------------------------------------------------------------


class _Segment(msgspec.Struct, frozen=True):
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


class RequestSummary(msgspec.Struct, frozen=True):
    """One stored request's figures, read without rebuilding its messages.

    ``position`` is its place in the store (0 = the first request kept).
    """

    position: int
    index: int
    time: datetime | None
    """When it was sent (None: a log of an old version that kept no time)."""
    model: str
    compaction: bool
    generation_id: str
    estimated_prompt_tokens: int
    max_tokens: int
    prompt_bytes: int
    message_count: int
    fits: bool = True
    overflow_tokens: int = 0
    logged: bool = False
    """Read back from a saved session's log (a resumed session's earlier requests): the log
    keeps these figures, not the request's blocks, tools or per-source counts."""
    reported: bool = False
    """The provider reported the request's usage (its cost and cache figures below)."""
    prompt_tokens: int = 0
    """The reported prompt: input + cache read + cache creation (docs/costs.md)."""
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None
    """What the request cost (None: not reported, or the model has no price; a request that
    ended before its usage came: $0 on a free model, else None)."""
    cache: CacheExplanation | None = None
    """Why the cache reused what it did of the request (``engine.cache_causes``)."""
    cancelled: bool = False
    """Cancelled (Esc) before its usage came: its cost and cache figures will not come."""
    error: str = ""
    """Ended in a provider error before its usage came: the error's words."""
    streamed_chars: int = 0
    """A cancelled or failed request's: the characters of its reply that had arrived."""

    @property
    def reuse(self) -> float | None:
        """The share of the request's prompt the provider read from its cache (0.0 to 1.0);
        None where the usage does not say it: not reported (yet, or never: cancelled, failed),
        or a provider that reports no prompt cache (it read and wrote nothing, and its model
        has no cache we know of, as the offline model)."""
        if not self.reported or self.prompt_tokens <= 0:
            return None
        if not self.cache_read_tokens + self.cache_write_tokens and (
            cache_ttl_seconds(self.model) is None
        ):
            return None
        return min(self.cache_read_tokens / self.prompt_tokens, 1.0)


class _StoredSnapshot(msgspec.Struct, frozen=True):
    """One stored request: its snapshot with empty messages and hashes, the segment holding
    them (None: the snapshot is whole, its messages a chain or none), and its message count."""

    snapshot: RequestSnapshot
    segment: _Segment | None
    message_count: int = 0


def _summary(
    position: int,
    stored: _StoredSnapshot,
    usages: Mapping[str, UsageReported],
    ends: Mapping[str, RequestStopped],
) -> RequestSummary:
    s = stored.snapshot
    usage, end = usages.get(s.request_id), ends.get(s.request_id)
    return RequestSummary(
        position=position,
        index=s.index,
        time=s.time,
        model=s.model,
        compaction=s.compaction,
        generation_id=s.generation_id,
        estimated_prompt_tokens=s.estimated_prompt_tokens,
        max_tokens=s.max_tokens,
        prompt_bytes=s.prompt_bytes,
        message_count=stored.message_count,
        fits=s.fits,
        overflow_tokens=s.overflow_tokens,
        reported=usage is not None,
        prompt_tokens=usage.prompt_tokens if usage is not None else 0,
        cache_read_tokens=usage.cache_read_tokens if usage is not None else 0,
        cache_write_tokens=usage.cache_write_tokens if usage is not None else 0,
        cost_usd=usage.cost_usd if usage is not None else end.cost_usd if end else None,
        cache=usage.cache if usage is not None else None,
        cancelled=end is not None and not end.error,
        error=end.error if end is not None else "",
        streamed_chars=end.streamed_chars if end is not None else 0,
    )


class SnapshotStore:
    """Keeps every request snapshot of a session, sharing structure between them.

    It is also an ``EventSink``: ``emit`` stores ``RequestSnapshot`` events, and keeps each
    ``UsageReported`` beside its request (its cost and cache cause, in ``summaries``), and each
    ``RequestStopped`` (why those never came).
    Stored values are immutable, so readers get them without defensive copies.
    """

    accepts = (RequestSnapshot, UsageReported, RequestStopped)

    def __init__(self) -> None:
        self._stored: list[_StoredSnapshot] = []
        self._by_index: dict[int, int] = {}
        self._blocks: dict[ContextBlock, ContextBlock] = {}
        # The latest request's messages, to find how much of its chain the next one shares.
        self._tip_messages: Sequence[Message] = ()
        self._usage: dict[str, UsageReported] = {}
        self._ended: dict[str, RequestStopped] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._stored)

    def clear(self) -> None:
        """Forget every request: a new session numbers its requests from 1 again, and the old
        numbers would be taken for its own (the saved session's stay in its log)."""
        with self._lock:
            self._stored.clear()
            self._by_index.clear()
            self._blocks.clear()
            self._tip_messages = ()
            self._usage.clear()
            self._ended.clear()

    def emit(self, event: EngineEvent) -> None:
        """Store request snapshots, their usage and why it never came; ignore every other event."""
        if isinstance(event, RequestSnapshot):
            self.store(event)
        elif isinstance(event, UsageReported) and event.request_id:
            with self._lock:
                self._usage[event.request_id] = event
        elif isinstance(event, RequestStopped):
            with self._lock:
                self._ended[event.request_id] = event

    def _segment_for(self, snapshot: RequestSnapshot) -> _Segment | None:
        """The segment holding the snapshot's messages (sharing those that lead with the
        previous request's)."""
        messages = snapshot.messages
        # Messages are compared by value, not by hash: the hash leaves out fields such as
        # tool_call_id, and a stored snapshot must show exactly what was sent.
        matching = shared_prefix(self._tip_messages, messages)
        parent = self._stored[-1].segment if self._stored else None
        while parent is not None and parent.length > matching:
            parent = parent.parent
        start = parent.length if parent is not None else 0
        if parent is not None and start == len(messages):
            return parent
        if not messages:
            return None
        tail = messages[start:]
        hashes = tuple(snapshot.message_hashes[start:])
        return _Segment(parent, tuple(tail), hashes, len(messages))

    def _intern_blocks(self, blocks: tuple[ContextBlock, ...]) -> tuple[ContextBlock, ...]:
        previous = self._stored[-1].snapshot.blocks if self._stored else None
        if previous is not None and previous == blocks:
            return previous
        return tuple(self._blocks.setdefault(b, b) for b in blocks)

    def store(self, snapshot: RequestSnapshot) -> None:
        """Add ``snapshot`` (the latest request)."""
        with self._lock:
            previous = self._stored[-1].snapshot if self._stored else None
            tools = snapshot.tools
            if previous is not None and previous.tools == tools:
                tools = previous.tools
            blocks = self._intern_blocks(snapshot.blocks)
            if isinstance(snapshot.messages, Chain) and isinstance(snapshot.message_hashes, Chain):
                # Sharing what the requests before hold already (the runner's).
                segment = None
                slim = msgspec.structs.replace(snapshot, blocks=blocks, tools=tools)
            else:
                segment = self._segment_for(snapshot)
                slim = msgspec.structs.replace(
                    snapshot, messages=(), message_hashes=(), blocks=blocks, tools=tools
                )
            self._by_index[snapshot.index] = len(self._stored)
            count = len(snapshot.messages)
            self._stored.append(_StoredSnapshot(slim, segment, count))
            self._tip_messages = snapshot.messages

    @staticmethod
    def _rebuild(stored: _StoredSnapshot) -> RequestSnapshot:
        if stored.segment is None:
            return stored.snapshot
        messages, hashes = stored.segment.materialize()
        return msgspec.structs.replace(stored.snapshot, messages=messages, message_hashes=hashes)

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
        """Every snapshot, oldest first (rebuilds each: ``summaries`` and ``at`` are cheap)."""
        with self._lock:
            return tuple(self._rebuild(s) for s in self._stored)

    def at(self, position: int) -> RequestSnapshot:
        """The snapshot at ``position`` in the store (0: the first kept), rebuilt.

        Raises:
            IndexError: no request at ``position``.
        """
        with self._lock:
            if not 0 <= position < len(self._stored):
                raise IndexError(position)
            return self._rebuild(self._stored[position])

    def position_of(self, index: int) -> int | None:
        """The store position of the (latest) request numbered ``index``, or None."""
        with self._lock:
            return self._by_index.get(index)

    def summaries(self, start: int = 0, stop: int | None = None) -> tuple[RequestSummary, ...]:
        """The figures of the requests at positions ``start`` to ``stop`` (oldest first),
        without rebuilding their messages: the cost is that of the range, not of the store."""
        with self._lock:
            stored = self._stored
            stop = len(stored) if stop is None else min(stop, len(stored))
            return tuple(
                _summary(p, stored[p], self._usage, self._ended) for p in range(max(0, start), stop)
            )
