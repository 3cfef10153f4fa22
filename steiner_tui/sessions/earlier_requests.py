"""A resumed session's earlier requests, as its log holds them, beside the ones made since.

The snapshot store holds only the requests a process made; a resumed session's earlier ones
are its log's request records: figures, message hashes and usage, not what ``NOT_RECORDED``
lists. ``LoggedRequests`` reads them when asked (the records when one is first shown, the lookup
by hash then too; the session's cost and the lookup by number from the records' heads only);
``SessionRequests`` lists the log's, then the store's.

Each earlier request's cache explanation is the one the live session reported: named again
from the records (``logged_cause``: models, times, usage, hashes, generations), or, where they
do not imply it (another tool list, context block or request fields, a provider's reason),
as the log wrote it beside the usage.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import zip_longest
from operator import add, sub
from typing import Generic, TypeVar

import msgspec

from steiner_tui.engine.cache_causes import compacted_to, first_request, model_changed, name_cause
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CacheExplanation, RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import (
    ZERO_COST,
    ModelPrice,
    RequestCost,
    cache_ttl_seconds,
    cost_without_usage,
    request_cost,
)
from steiner_tui.engine.prompt.sources import ContextSource
from steiner_tui.engine.snapshots import (
    PrefixStability,
    RequestSummary,
    SnapshotStore,
    message_source,
    prefix_stability,
)
from steiner_tui.sessions.request_values import LoggedRecords, RequestRecord, shared_prefix

__all__ = [
    "BLOCKS_SOURCE",
    "NOT_RECORDED",
    "CacheBases",
    "InspectedRequest",
    "LoggedRequest",
    "LoggedRequests",
    "SessionRequests",
    "logged_cause",
    "request_sources",
    "request_stability",
]

BLOCKS_SOURCE = "blocks"
"""The source of a logged request's leading messages: the log does not say which block."""
NOT_RECORDED = (
    "context blocks",
    "tool definitions",
    "tokens per source",
    "estimate confidence",
    "block messages' text",
    "whether it fit the window",
)
"""What a request read from the log does not have (the inspector says so)."""
_SUMMARY = (
    "index", "time", "model", "compaction", "generation_id", "estimated_prompt_tokens",
    "max_tokens", "prompt_bytes", "cancelled", "error", "streamed_chars",
)  # fmt: skip
"""The fields a logged request's summary takes as they are."""

LoggedRequest = RequestRecord
"""One earlier request of a resumed session, as its log holds it (see the module doc)."""

InspectedRequest = RequestSnapshot | LoggedRequest
"""A request the inspector shows: made by this process, or read from the log."""


def request_sources(request: InspectedRequest) -> tuple[str, ...]:
    """Per message of a logged request, where it came from: ``blocks`` for the leading block
    messages (the log does not say which block), else ``conversation``."""
    conversation = str(ContextSource.CONVERSATION)
    count = len(request.message_hashes)
    blocks = min(request.block_message_count, count)
    return (BLOCKS_SOURCE,) * blocks + (conversation,) * (count - blocks)


def request_stability(a: InspectedRequest, b: InspectedRequest) -> PrefixStability:
    """How much of request ``a``'s message prefix a later request ``b`` repeats (the engine's
    ``prefix_stability`` for two snapshots; for a logged request, from its hashes, its
    leading messages' source being ``blocks``)."""
    if isinstance(a, RequestSnapshot) and isinstance(b, RequestSnapshot):
        return prefix_stability(a, b)
    matching = shared_prefix(a.message_hashes, b.message_hashes)
    if matching == len(a.message_hashes):
        return PrefixStability(matching, None)
    side, other = (b, a) if matching < len(b.message_hashes) else (a, b)
    if isinstance(side, RequestSnapshot):
        snapshot = other if isinstance(other, RequestSnapshot) else None
        return PrefixStability(matching, matching, message_source(side, snapshot, matching))
    return PrefixStability(matching, matching, request_sources(side)[matching])


def _padded(usage: tuple[int, ...]) -> tuple[int, int, int, int]:
    """A logged usage's prompt, output, cache read and write tokens (trailing zeros left out)."""
    prompt, output, read, write = (*usage, 0, 0, 0, 0)[:4]
    return prompt, output, read, write


B = TypeVar("B")


class CacheBases(Generic[B]):
    """The main requests (with usage) a logged request's cache cause is read against, as the
    live session chose them (``CacheDiagnostics.base_of``): the last one to its model, else
    the last one. ``B`` is what the caller keeps of a request (a record, with its hashes)."""

    def __init__(self) -> None:
        self.last: B | None = None
        self.by_model: dict[str, B] = {}

    def of(self, model: str) -> B | None:
        """The request a request to ``model`` is explained against (None: the first)."""
        return self.by_model.get(model, self.last)

    def moved(self, model: str, base: B) -> None:
        """``base`` (a main request to ``model``, with usage) is the last one, and its
        model's."""
        self.last = self.by_model[model] = base


def logged_cause(
    before: RequestRecord | None,
    after: RequestRecord,
    matching: int,
    *,
    resumed: bool,
    price: ModelPrice | None,
) -> CacheExplanation:
    """Why the cache reused what it did of ``after`` (a main request with its usage), as its
    records imply, after ``before``: the main request with usage it is read against
    (``CacheBases``; None: none since the log started, or since a resume when ``resumed``), of
    whose hashes ``after`` repeats the first ``matching``. What the records cannot name (which
    block, which tool, a message's role, request fields) is said in general words: the log
    writes the live words where they differ.
    """
    prompt, _, read, _ = _padded(after.usage)
    if before is None:
        return first_request(read, resumed)
    before_prompt, _, before_read, before_write = _padded(before.usage)
    cached = before_read + before_write
    idle = 0.0
    if after.time is not None and before.time is not None:
        idle = (after.time - before.time).total_seconds()
    return name_cause(
        reused=read,
        cached=cached,
        cached_before=cached or before_prompt,
        prompt_tokens=prompt,
        bytes_cause=_bytes_cause(before, after, matching),
        idle_seconds=idle,
        ttl_seconds=cache_ttl_seconds(after.model),
        price=price,
    )


def _bytes_cause(a: RequestRecord, b: RequestRecord, matching: int) -> tuple[str, str] | None:
    """``cache_causes``'s cause from two requests' bytes, as far as their records say it."""
    if a.model != b.model or a.provider != b.provider:
        return model_changed(a.model, b.model)
    if a.tools_bytes != b.tools_bytes:
        return "tools", "tool definitions changed"
    side = b if matching < b.hash_count else a
    broken = matching < a.hash_count
    if broken and matching < side.block_message_count:
        return "source", "a context block changed"
    if b.generation_id and a.generation_id != b.generation_id:
        return compacted_to(b.generation_id)
    if broken:
        number = matching - b.block_message_count + 1
        return "conversation", f"conversation message {number} changed"
    return None


class LoggedRequests:
    """The request records of a resumed session's log, read when asked (see the module doc)."""

    def __init__(
        self,
        requests: LoggedRecords,
        lineage: ConversationLineage,
        price_of: Callable[[str], ModelPrice | None] = lambda model: None,
    ) -> None:
        self.records = requests
        """The log's request records, oldest first (their ``messages`` not filled; each read
        when first asked for, ``LoggedRecords``)."""
        self._lineage = lineage
        self._price_of = price_of
        self._prices: dict[str, ModelPrice | None] = {}  # a long session asks the same few
        self._by_hash: dict[str, Message] | None = None
        self._by_index: dict[int, int] | None = None
        self._last: tuple[int, LoggedRequest] | None = None
        """The position and request ``at`` read last (the context panel asks again)."""
        self._causes: list[CacheExplanation | None] | None = None

    def __len__(self) -> int:
        return len(self.records)

    def summaries(self, start: int = 0, stop: int | None = None) -> tuple[RequestSummary, ...]:
        """The figures of the requests at positions ``start`` to ``stop`` (oldest first)."""
        count = len(self.records)
        stop = count if stop is None else min(stop, count)
        return tuple(self._summary(p) for p in range(max(0, start), stop))

    def _summary(self, position: int) -> RequestSummary:
        record = self.records[position]
        usage = _padded(record.usage)
        total = None
        if record.usage:
            cost = self._priced(record.model, usage)
            total = cost.total_usd if cost is not None else None
        elif record.cancelled or record.error:  # no usage will come: known on a free model
            total = cost_without_usage(self._price(record.model))
        prompt, _, read, write = usage
        return RequestSummary(
            position,
            **{f: getattr(record, f) for f in _SUMMARY},
            message_count=record.hash_count,
            logged=True,
            reported=bool(record.usage),
            prompt_tokens=prompt,
            cache_read_tokens=read,
            cache_write_tokens=write,
            cost_usd=total,
            cache=self.causes()[position],
        )

    def causes(self) -> list[CacheExplanation | None]:
        """Each request's cache explanation (None: a summary request, or no usage logged): as
        the log wrote it, else ``logged_cause`` (read once, in order)."""
        if self._causes is None:
            causes: list[CacheExplanation | None] = []
            bases = CacheBases[RequestRecord]()
            resumed = False
            records = self.records
            for position, record in enumerate(records):
                if position in records.resumed:
                    bases, resumed = CacheBases[RequestRecord](), True
                if record.compaction or not record.usage:
                    causes.append(None)
                    continue
                cause = record.cache
                before = bases.of(record.model)
                if cause is None:
                    matching = 0
                    if before is not None:  # almost always the request before: its shared
                        matching = (
                            record.shared
                            if record.previous is before
                            else shared_prefix(before.message_hashes, record.message_hashes)
                        )
                    price = self._price(record.model)
                    cause = logged_cause(before, record, matching, resumed=resumed, price=price)
                causes.append(cause)
                bases.moved(record.model, record)
            self._causes = causes
        return self._causes

    def _price(self, model: str) -> ModelPrice | None:
        if model not in self._prices:
            self._prices[model] = self._price_of(model)
        return self._prices[model]

    def position_of(self, index: int) -> int | None:
        """The position of the (latest) request numbered ``index``, or None."""
        if self._by_index is None:
            self._by_index = {r.index: p for p, r in enumerate(self.records.heads)}
        return self._by_index.get(index)

    def _priced(self, model: str, usage: tuple[int, ...]) -> RequestCost | None:
        """What ``usage`` (prompt, output, cache read and write tokens) cost at ``model``'s
        price (None: no price)."""
        prompt, output, read, write = usage
        return request_cost(
            self._price(model),
            prompt_tokens=prompt,
            output_tokens=output,
            cache_read_tokens=read,
            cache_write_tokens=write,
        )

    def cost(self) -> RequestCost | None:
        """What the requests whose usage the log holds cost (summary calls included), priced
        by ``price_of`` their model: each model's tokens summed, then priced once (the
        uncached prompt tokens clamped per request, as ``request_cost`` does); None when one
        of them has no price."""
        usages: dict[str, list[tuple[int, ...]]] = {}
        for head in self.records.heads:
            if head.usage:
                usages.setdefault(head.model, []).append(head.usage)
        total = ZERO_COST
        for model, group in usages.items():
            # Summed by column, in C (a usage leaves out trailing zeros): 5,000 in 1.1 ms, not 2.6.
            padding = ((0,) * len(group),) * 4
            prompt, output, read, write = (*zip_longest(*group, fillvalue=0), *padding)[:4]
            left = list(map(sub, prompt, map(add, read, write)))  # each one's uncached tokens
            uncached = sum(left) if min(left) >= 0 else sum([n for n in left if n > 0])
            priced = (uncached + sum(read) + sum(write), sum(output), sum(read), sum(write))
            cost = self._priced(model, priced)
            if cost is None:
                return None
            total += cost
        return total

    def at(self, position: int) -> LoggedRequest:
        """The request at ``position``, with the messages the log holds.

        Raises:
            IndexError: no request at ``position``.
        """
        last = self._last
        if last is not None and last[0] == position:
            return last[1]
        record = self.records[position]
        hashes = record.message_hashes
        if self._by_hash is None:
            generations = self._lineage.generations
            self._by_hash = {m.digest(): m for g in generations for m in g.messages}
        known = self._by_hash
        request = msgspec.structs.replace(
            record,
            shared=0,
            hashes=hashes,
            previous=None,
            messages=tuple(
                None if i < record.block_message_count else known.get(digest)
                for i, digest in enumerate(hashes)
            ),
        )
        self._last = (position, request)
        return request


class SessionRequests:
    """A session's requests: the log's earlier ones (``earlier``), then the store's, at
    positions ``0`` to ``len(self) - 1`` (the store's from ``len(earlier)``)."""

    def __init__(self, store: SnapshotStore, earlier: LoggedRequests | None = None) -> None:
        self.store = store
        self.earlier = earlier

    @property
    def logged(self) -> int:
        """How many requests come from the log."""
        return len(self.earlier) if self.earlier is not None else 0

    def __len__(self) -> int:
        return self.logged + len(self.store)

    def summaries(self, start: int = 0, stop: int | None = None) -> tuple[RequestSummary, ...]:
        """The figures of the requests at positions ``start`` to ``stop`` (oldest first)."""
        logged = self.logged
        stop = len(self) if stop is None else min(stop, len(self))
        start = max(0, start)
        rows: list[RequestSummary] = []
        if self.earlier is not None and start < logged:
            rows.extend(self.earlier.summaries(start, min(stop, logged)))
        if stop > logged:
            for row in self.store.summaries(max(0, start - logged), stop - logged):
                shifted = msgspec.structs.replace(row, position=row.position + logged)
                rows.append(shifted if logged else row)
        return tuple(rows)

    def at(self, position: int) -> InspectedRequest:
        """The request at ``position``: read from the log, or rebuilt from the store.

        Raises:
            IndexError: no request at ``position``.
        """
        logged = self.logged
        if position < 0:
            raise IndexError(position)
        if self.earlier is not None and position < logged:
            return self.earlier.at(position)
        return self.store.at(position - logged)

    def logged_main_before(self, index: int, lookback: int) -> LoggedRequest | None:
        """The latest request read from the log numbered ``index - lookback`` to ``index - 1``
        that is not a compaction request (its hashes are what the next request's cache prefix
        is measured against), or None."""
        earlier = self.earlier
        if earlier is None:
            return None
        for number in range(index - 1, index - 1 - lookback, -1):
            position = earlier.position_of(number)
            if position is not None and not earlier.records.heads[position].compaction:
                return earlier.at(position)
        return None

    def position_of(self, index: int) -> int | None:
        """The position of the (latest) request numbered ``index``, or None."""
        found = self.store.position_of(index)
        if found is not None:
            return found + self.logged
        return self.earlier.position_of(index) if self.earlier is not None else None
