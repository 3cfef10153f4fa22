"""Request snapshots: what exactly was sent on each model call, kept for the context report.

``build_request_snapshot`` makes the per-request event (hashes, bytes, blocks, tools, estimate)
before the call. Given a ``SourceCounter`` (the runner's, over its estimator) it also says what
each source costs (``source_tokens``): each block, each skill envelope carried in the
conversation, the rest of the conversation and the tool definitions, in bytes and raw tokens.
The counts come from the estimator's one cache (per message and per text), and the counter
remembers the conversation it counted last, so a growing conversation costs one count per new
message; the context panel only shows them.

Every value a snapshot holds is immutable (frozen dataclasses, tuples, deep-frozen JSON), so
nothing a caller still holds can reach a snapshot, and neither the event nor the store needs a
copy.

``SnapshotStore`` shares structure between snapshots: a conversation that grows by a turn per
request is stored as a chain of segments, each request adding only its new messages and hashes,
so 500 requests retain little more than the distinct messages themselves. Readers get a fresh
``RequestSnapshot`` rebuilt from the chain. ``RequestSummary`` rows (``summaries``) give the
figures of any range of requests without rebuilding one: the request inspector lists them
page by page and the context panel charts them, so neither costs more with a longer session.
Each row also says how many leading messages the request shares with the one before it: the
prefix a provider's cache can reuse.

``prefix_stability`` compares two snapshots: the provider's prompt cache helps only up to the
first message whose hash differs, so the context report and the request inspector show where
that is and which source changed there.

(docs/design.md, "5. Message hashes and request snapshots")
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from steiner_tui.engine.events import EngineEvent, RequestSnapshot, SourceTokens
from steiner_tui.engine.messages import Message, message_hash, messages_bytes
from steiner_tui.engine.prompt.blocks import ContextBlock, block_message_indexes, blocks_bytes
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.skills.envelopes import TRUNCATION_MARKER, split_skill_blocks, utf8_len
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json

__all__ = [
    "TOOLS_SOURCE",
    "EstimateLike",
    "PrefixStability",
    "RequestParts",
    "RequestSummary",
    "SnapshotStore",
    "SourceCounter",
    "TokenCounter",
    "build_request_snapshot",
    "hash_messages",
    "prefix_stability",
    "source_tokens",
]

TOOLS_SOURCE = "tools"
"""The ``SourceTokens.source`` of the tool definitions."""


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


class TokenCounter(Protocol):
    """The counts behind the per-source figures (``tokens.RequestEstimator`` has them)."""

    def message_tokens(self, model_id: str, messages: Sequence[Message]) -> Sequence[int]: ...
    def count_parts(self, model_id: str, texts: Sequence[str]) -> Sequence[int]: ...


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
    counter: SourceCounter | None = None,
) -> RequestSnapshot:
    """Build the snapshot event of one request.

    Sequences are copied into tuples, so a list the caller keeps editing cannot reach the
    event; messages, blocks and tools are immutable and shared as they are. A caller that
    keeps per-message figures (the runner's ledger) passes the hashes and prompt bytes it
    already has; they must be those of ``messages``. With ``counter`` the snapshot carries its
    per-source figures (``source_tokens``).
    """
    msgs = tuple(messages)
    blks = tuple(blocks)
    tls = tuple(tools)
    tools_text = tools_json(tls) if tls else ""  # encoded once: its bytes, then its tokens
    tools_size = len(tools_text.encode()) if tls else 0
    sources: tuple[SourceTokens, ...] = ()
    if counter is not None:
        parts = RequestParts(msgs, blks, block_message_count, tools_text, tools_size)
        sources = counter.count(model, parts, estimate.raw_tokens)
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


_Key = tuple[str, str, str]
"""A row's identity: (source, path, name)."""
_Row = tuple[int, int, bool]
"""A row's bytes, tokens and whether anything in it was cut."""
_CHECKPOINT = 64
"""The conversation's running totals are kept every this many messages."""


def _add(rows: dict[_Key, _Row], key: _Key, size: int, tokens: int, truncated: bool) -> None:
    old = rows.get(key)
    if old is None:
        rows[key] = (size, tokens, truncated)
    else:
        rows[key] = (old[0] + size, old[1] + tokens, old[2] or truncated)


@dataclass(frozen=True, slots=True)
class RequestParts:
    """What a request's sources are counted from: its messages (block messages first), the
    blocks behind the first ``block_message_count`` of them, and its tool list's JSON."""

    messages: Sequence[Message]
    blocks: Sequence[ContextBlock]
    block_message_count: int
    tools_text: str = ""
    tools_bytes: int = 0


_DRIVER_OPENINGS = ("<steiner-skill", "[execution mode:")
"""How a user message carrying skill envelopes starts (a mode notice may come first)."""


@dataclass(slots=True)
class _Tally:
    """The conversation counted last: each message's rows, with running totals."""

    model: str
    messages: list[Message] = field(default_factory=list)
    shares: list[tuple[tuple[_Key, int, int, bool], ...]] = field(default_factory=list)
    totals: list[dict[_Key, _Row]] = field(default_factory=lambda: [{}])
    """``totals[i]``: the rows of the first ``i * _CHECKPOINT`` messages."""
    current: dict[_Key, _Row] = field(default_factory=dict)
    """The rows of every message counted."""
    request: tuple[Message, ...] | None = None
    """The request messages (block messages, then ``messages``) counted last."""

    def keep(self, count: int) -> None:
        """Forget every message after the first ``count``."""
        if count == len(self.messages):
            return
        del self.messages[count:]
        del self.shares[count:]
        del self.totals[count // _CHECKPOINT + 1 :]
        current = dict(self.totals[-1])
        for share in self.shares[(count // _CHECKPOINT) * _CHECKPOINT :]:
            for key, size, tokens, truncated in share:
                _add(current, key, size, tokens, truncated)
        self.current = current

    def append(self, message: Message, share: tuple[tuple[_Key, int, int, bool], ...]) -> None:
        self.messages.append(message)
        self.shares.append(share)
        for key, size, tokens, truncated in share:
            _add(self.current, key, size, tokens, truncated)
        if len(self.shares) % _CHECKPOINT == 0:
            self.totals.append(dict(self.current))


def _shared(old: list[Message], new: Sequence[Message]) -> int:
    """How many leading messages ``new`` repeats of ``old`` (the same object, or equal).

    A conversation that repeats the one counted last and adds to it (the usual case) is found
    by one comparison, which checks each message by identity first.
    """
    held = len(old)
    if len(new) >= held and old == list(new[:held]):
        return held
    shared = 0
    for a, b in zip(old, new, strict=False):
        if a is not b and a != b:
            break
        shared += 1
    return shared


def _extended(tally: _Tally, messages: Sequence[Message], prefix: int) -> int:
    """How many of ``tally``'s messages lead ``messages[prefix:]``. A request that repeats the
    one counted last and adds to it (the usual case) is found by one comparison with that
    request, with no copy of the conversation beyond the slice compared."""
    last = tally.request or ()
    held = len(tally.messages)
    extends = bool(last) and len(last) == prefix + held and len(messages) >= len(last)
    if extends and tuple(messages[: len(last)]) == last:
        return held
    return _shared(tally.messages, messages[prefix:])


class SourceCounter:
    """Counts what each source of a request costs (``source_tokens``), remembering the
    conversation it counted last, so a request that repeats it costs one count per new message.

    Thread-safe (the app's dry run is counted in a worker thread while a run may count its own
    request).

    Args:
        counter: the estimator whose cache holds every count.
    """

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self._lock = threading.Lock()
        self._tally: _Tally | None = None
        self._prefix: tuple[str, Sequence[ContextBlock], Sequence[Message], dict[_Key, _Row]] | None
        self._prefix = None
        """The block rows counted last, with the model, blocks and block messages they are of."""

    def count(self, model: str, parts: RequestParts, raw_tokens: int) -> tuple[SourceTokens, ...]:
        """See ``source_tokens``."""
        with self._lock:
            counter, prefix = self.counter, parts.block_message_count
            rows = dict(self._block_rows(model, parts))
            tally = self._tally if self._tally is not None and self._tally.model == model else None
            if tally is None:
                tally = _Tally(model)
            tally.keep(_extended(tally, parts.messages, prefix))
            fresh = parts.messages[prefix + len(tally.messages) :]
            for message, count in zip(fresh, counter.message_tokens(model, fresh), strict=True):
                tally.append(message, self._share(model, message, count))
            tally.request = tuple(parts.messages)
            self._tally = tally
            for key, (size, tokens, truncated) in tally.current.items():
                _add(rows, key, size, tokens, truncated)
            if parts.tools_text:
                tools = counter.count_parts(model, (parts.tools_text,))[0]
                _add(rows, (TOOLS_SOURCE, "", ""), parts.tools_bytes, tools, False)
        counted = sum(tokens for _, tokens, _ in rows.values())
        sources = [
            SourceTokens(source, size, tokens, path, name, truncated)
            for (source, path, name), (size, tokens, truncated) in rows.items()
        ]
        if sources and counted != raw_tokens:  # the request's own overhead (the heuristic's)
            first = sources[0]
            sources[0] = replace(first, tokens=first.tokens + raw_tokens - counted)
        return tuple(sources)

    def _block_rows(self, model: str, parts: RequestParts) -> dict[_Key, _Row]:
        """Each block's row; a message's framing goes to its first block. The same blocks and
        block messages as last time (the static prefix, reused by identity) give the same rows."""
        block_messages = parts.messages[: parts.block_message_count]
        last = self._prefix
        if (
            last is not None
            and last[0] == model
            and last[1] is parts.blocks
            and len(last[2]) == len(block_messages)
            and all(a is b for a, b in zip(last[2], block_messages, strict=True))
        ):
            return last[3]
        rows: dict[_Key, _Row] = {}
        counts = self.counter.message_tokens(model, block_messages)
        self._blocks(rows, model, parts, counts)
        self._prefix = (model, parts.blocks, tuple(block_messages), rows)
        return rows

    def _blocks(
        self, rows: dict[_Key, _Row], model: str, parts: RequestParts, counts: Sequence[int]
    ) -> None:
        """Each block's row; a message's framing goes to its first block."""
        by_message: dict[int, list[ContextBlock]] = {}
        placed = block_message_indexes(parts.blocks)
        for block, index in zip(parts.blocks, placed, strict=True):
            if 0 <= index < len(counts):
                by_message.setdefault(index, []).append(block)
        for index, blocks in sorted(by_message.items()):
            tokens = self.counter.count_parts(model, [block.content for block in blocks])
            framing = counts[index] - sum(tokens)
            for number, (block, count) in enumerate(zip(blocks, tokens, strict=True)):
                key = (str(block.source), block.path, "")
                extra = framing if number == 0 else 0
                _add(rows, key, block.byte_size, count + extra, block.truncated)

    def _share(
        self, model: str, message: Message, count: int
    ) -> tuple[tuple[_Key, int, int, bool], ...]:
        """One conversation message's rows: its skill envelopes, then the rest of it."""
        share: list[tuple[_Key, int, int, bool]] = []
        size = message.prompt_bytes
        if message.role == "user" and message.content.startswith(_DRIVER_OPENINGS):
            envelopes = split_skill_blocks(message.content)[1]
            tokens = self.counter.count_parts(model, [envelope.text for envelope in envelopes])
            for envelope, envelope_tokens in zip(envelopes, tokens, strict=True):
                envelope_bytes = utf8_len(envelope.text)
                key = (str(ContextSource.SKILL), "", envelope.name)
                cut = TRUNCATION_MARKER in envelope.body
                share.append((key, envelope_bytes, envelope_tokens, cut))
                size -= envelope_bytes
                count -= envelope_tokens
        summary = message.role in ("system", "summary")
        source = ContextSource.CONVERSATION_SUMMARY if summary else ContextSource.CONVERSATION
        share.append(((str(source), "", ""), size, count, False))
        return tuple(share)


def source_tokens(
    counter: TokenCounter, model: str, parts: RequestParts, raw_tokens: int
) -> tuple[SourceTokens, ...]:
    """What each source of a request costs, in request order.

    Rows: one per block (a message's framing goes to its first block), one per skill carried
    in an envelope of a user message (the driver's envelopes, split out of the conversation),
    ``conversation_summary`` for a summary, ``conversation`` for the rest of the conversation,
    and ``tools`` for the tool definitions. Every message and every text is counted through
    ``counter``'s cache, so the rows add up to ``raw_tokens``; a ``SourceCounter`` (which the
    runner keeps) also remembers the conversation, so a new message costs one count.

    Args:
        counter: the estimator.
        model: the request's model (its tokenizer counts).
        parts: the request's messages, blocks and tool list.
        raw_tokens: the request's uncalibrated estimate (what the rows add up to).
    """
    return SourceCounter(counter).count(model, parts, raw_tokens)


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
class RequestSummary:
    """One stored request's figures, read without rebuilding its messages.

    ``position`` is its place in the store (0 = the first request kept); ``reused`` how many
    leading messages equal the previous request's (0 for the first): the prefix a provider's
    prompt cache can serve again.
    """

    position: int
    index: int
    time: datetime
    model: str
    compaction: bool
    generation_id: str
    estimated_prompt_tokens: int
    max_tokens: int
    prompt_bytes: int
    message_count: int
    reused: int
    fits: bool = True
    overflow_tokens: int = 0

    @property
    def reuse(self) -> float:
        """The share of the request's messages the previous request had (0.0 to 1.0)."""
        return self.reused / self.message_count if self.message_count else 0.0


@dataclass(frozen=True, slots=True)
class _StoredSnapshot:
    """One stored request: its snapshot with empty messages and hashes, the segment holding
    them (None for a request without messages), and its message count and reused prefix."""

    snapshot: RequestSnapshot
    segment: _Segment | None
    message_count: int = 0
    reused: int = 0


def _summary(position: int, stored: _StoredSnapshot) -> RequestSummary:
    s = stored.snapshot
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
        reused=stored.reused if position else 0,
        fits=s.fits,
        overflow_tokens=s.overflow_tokens,
    )


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

    def _segment_for(self, snapshot: RequestSnapshot) -> tuple[_Segment | None, int]:
        """The segment holding the snapshot's messages, and how many lead with the previous
        request's."""
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
            return parent, matching
        if not messages:
            return None, matching
        tail = messages[start:]
        return _Segment(parent, tail, snapshot.message_hashes[start:], len(messages)), matching

    def _intern_blocks(self, blocks: tuple[ContextBlock, ...]) -> tuple[ContextBlock, ...]:
        previous = self._stored[-1].snapshot.blocks if self._stored else None
        if previous is not None and previous == blocks:
            return previous
        return tuple(self._blocks.setdefault(b, b) for b in blocks)

    def store(self, snapshot: RequestSnapshot) -> None:
        """Add ``snapshot`` (the latest request)."""
        with self._lock:
            segment, reused = self._segment_for(snapshot)
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
            count = len(snapshot.messages)
            self._stored.append(_StoredSnapshot(slim, segment, count, reused))
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
            return tuple(_summary(p, stored[p]) for p in range(max(0, start), stop))

    def prefix_stability(self, a: RequestSnapshot, b: RequestSnapshot) -> PrefixStability:
        """See ``prefix_stability``."""
        return prefix_stability(a, b)
