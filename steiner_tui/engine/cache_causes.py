"""Why the prompt cache missed, and what the miss cost: one named cause per request.

A provider reuses the longest cached prefix of a request. After each main request the cached
prefix is what it read plus what it wrote (``prompt_tokens`` when it reports no writes); when
the next request reads less than that, the difference (up to its own prompt) was written again
("rewritten"), and this module names why, from the bytes of the two requests
(``RequestSnapshot``), in order:

- ``model``: another model (a cache belongs to one model), or ``params``: its request fields;
- ``tools``: the tool definitions (they come first in the prefix);
- ``source``: a block of the request's context: the preamble, an AGENTS.md or context file
  (named by its path), a skill block, the session date; a compaction that applied it says so;
- ``compaction``: a new generation replaced the conversation;
- ``conversation``: an earlier message changed (a masked result);
- ``idle``: the prefix is identical but more time passed than the provider keeps a cache;
- ``provider``: the prefix is identical and recent, yet the provider did not reuse it.

Otherwise the cause is ``kept`` (nothing rewritten), ``first`` (no earlier request) or
``uncached`` (a provider that reports no prompt cache). The rewritten tokens are priced at the
model's cache-write price. A provider's own diagnostic (``cache_miss_reason``) is kept beside
ours, with whether the two agree. Without reported usage (a dry run, the price of an action)
the reuse is estimated from the two requests' bytes.

Before an action, ``cache_effect`` says what it will do to the cache: what of the last
request's cached prefix the next request would write again (from the first message the action
changes) and at what price, or that it appends after the conversation and keeps the cache.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from steiner_tui.engine.events import CacheExplanation, RequestSnapshot
from steiner_tui.engine.prices import (
    NO_OVERRIDES,
    ModelPrice,
    PriceOverrides,
    RequestCost,
    cache_ttl_seconds,
    format_usd,
    price_for,
    request_cost,
    usd,
)
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.prompt.sources import spec_of
from steiner_tui.engine.snapshots import prefix_stability

__all__ = [
    "CacheEffect",
    "CacheExplanation",
    "CacheTurn",
    "FIRST_SINCE_RESUME",
    "cache_effect",
    "USAGE_ONLY",
    "UsageTurn",
    "compacted_to",
    "explain_cache",
    "explain_usage",
    "first_request",
    "minutes",
    "model_changed",
    "name_cause",
]

_PROVIDER_CATEGORIES = {
    "model": ("model",),
    "params": ("param", "reasoning", "verbosity", "format", "service_tier", "prompt_cache_key"),
    "tools": ("tool",),
    "source": ("system", "message", "input"),
    "compaction": ("message", "input", "compact", "system"),
    "conversation": ("message", "input"),
    "idle": ("ttl", "expir", "evict"),
    "provider": ("evict", "capacity"),
}
"""Which words of a provider's reason fit each of our causes (for "they disagree")."""

_NO_OPINION = ("unavailable", "not_found", "pending")
"""Provider reasons that name no cause: never a disagreement."""


class CacheTurn(msgspec.Struct, frozen=True):
    """One main request as the explanation reads it: its snapshot, when it was sent, the
    cache usage its provider reported (``None``: not reported yet, a dry run) and the
    fingerprint of its model's request fields."""

    snapshot: RequestSnapshot
    at: datetime
    prompt_tokens: int | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    params: str = ""

    @property
    def cached_after(self) -> int:
        """What the provider holds of this request after it: read plus written, else (no
        writes reported) its whole prompt."""
        cached = self.cache_read_tokens + self.cache_write_tokens
        if cached or self.prompt_tokens is None:
            return cached or self.snapshot.estimated_prompt_tokens
        return self.prompt_tokens


def minutes(seconds: float) -> str:
    """``7 min`` (seconds under two minutes: ``90 s``)."""
    return f"{round(seconds)} s" if seconds < 120 else f"{round(seconds / 60)} min"


def _changed_block(previous: RequestSnapshot, current: RequestSnapshot) -> ContextBlock | None:
    before = {(b.source, b.path): b.content for b in previous.blocks}
    after = {(b.source, b.path) for b in current.blocks}
    for block in current.blocks:
        if before.get((block.source, block.path)) != block.content:
            return block
    return next(
        (b for b in previous.blocks if (b.source, b.path) not in after),
        None,
    )


def _source_name(block: ContextBlock) -> str:
    if block.path and block.source != "skill":
        return block.path.rsplit("/", 1)[-1] if block.source.endswith("agents_md") else block.path
    spec = spec_of(block.source)
    return spec.cause_name if spec is not None and spec.cause_name else block.source


def _estimated_reuse(
    previous: CacheTurn,
    current: CacheTurn,
    bytes_cause: tuple[str, str] | None,
    ttl_seconds: int | None,
) -> int:
    """Without reported usage: all ``previous`` left when the prefix is intact, else
    ``current``'s tokens up to the first changed message (tools included), by bytes; nothing
    past the TTL or on another model."""
    if ttl_seconds is not None and (current.at - previous.at).total_seconds() > ttl_seconds:
        return 0
    if bytes_cause is None:
        return previous.cached_after
    a, b = previous.snapshot, current.snapshot
    total = b.prompt_bytes + b.tools_bytes
    if bytes_cause[0] in ("model", "params", "tools") or total <= 0:
        return 0
    matching = prefix_stability(a, b).matching
    kept = b.tools_bytes + sum(m.prompt_bytes for m in b.messages[:matching])
    return min(b.estimated_prompt_tokens * kept // total, previous.cached_after)


def model_changed(before: str, after: str) -> tuple[str, str]:
    """The ``model`` cause: ``before`` was replaced by ``after``."""
    return "model", f"model changed: {before} → {after} (a cache belongs to one model)"


def compacted_to(generation_id: str) -> tuple[str, str]:
    """The ``compaction`` cause: generation ``generation_id`` replaced the conversation."""
    return "compaction", f"compaction: generation {generation_id} replaced the conversation"


def _bytes_cause(previous: CacheTurn, current: CacheTurn) -> tuple[str, str] | None:
    """The cause the two requests' bytes show (None: the prefix is identical)."""
    a, b = previous.snapshot, current.snapshot
    if a.model != b.model or a.provider != b.provider:
        return model_changed(a.model, b.model)
    if previous.params != current.params:
        return "params", f"{b.model}'s request fields changed"
    if a.tools != b.tools:
        names_a, names_b = {t.name for t in a.tools}, {t.name for t in b.tools}
        added, removed = sorted(names_b - names_a), sorted(names_a - names_b)
        what = ", ".join([*(f"+{n}" for n in added), *(f"-{n}" for n in removed)])
        return "tools", f"tool definitions changed ({what or 'edited'})"
    stability = prefix_stability(a, b)
    compacted = bool(b.generation_id) and a.generation_id != b.generation_id
    at = f" (applied at the compaction to generation {b.generation_id})" if compacted else ""
    if stability.first_broken is not None and stability.broken_source != "conversation":
        block = _changed_block(a, b)
        name = _source_name(block) if block is not None else stability.broken_source
        if block is not None and block.source == "skill" and block.path:
            name = f"skill block {block.path.rsplit('/', 1)[-1]}"
        return "source", f"{name} changed{at}"
    if compacted:
        return compacted_to(b.generation_id)
    if stability.first_broken is not None:
        index = stability.first_broken
        role = b.messages[index].role if index < len(b.messages) else "message"
        number = index - b.block_message_count + 1
        return "conversation", f"conversation message {number} ({role}) changed"
    return None


def _agrees(cause: str, reason: str) -> bool:
    lowered = reason.lower()
    if any(word in lowered for word in _NO_OPINION):
        return True
    return any(word in lowered for word in _PROVIDER_CATEGORIES.get(cause, ()))


FIRST_SINCE_RESUME = "first request since the resume: the log keeps no blocks or tools to compare"
"""The cause of a resumed session's first request: earlier ones exist, in its log only."""


def explain_cache(
    previous: CacheTurn | None,
    current: CacheTurn,
    *,
    price: ModelPrice | None,
    ttl_seconds: int | None,
    provider_reason: str = "",
    resumed: bool = False,
) -> CacheExplanation:
    """Name why ``current`` reused less of the cache than ``previous`` left in it.

    Args:
        previous: the last main request before ``current`` (None: ``current`` is the first,
            of the session or, ``resumed``, since a resume: the log's requests keep no blocks
            or tools to compare with).
        current: the request to explain; without reported usage the figures are estimated.
        price: ``current``'s model price (rewritten tokens at its cache-write price).
        ttl_seconds: how long the provider keeps an unused prefix (None: no cache we know).
        provider_reason: the provider's own diagnostic for ``current``, if it gave one.
    """
    estimated = current.prompt_tokens is None
    if previous is None:
        return first_request(
            0 if estimated else current.cache_read_tokens, resumed, provider_reason
        )
    bytes_cause = _bytes_cause(previous, current)
    if estimated:
        reused = _estimated_reuse(previous, current, bytes_cause, ttl_seconds)
    else:
        reused = current.cache_read_tokens
    return name_cause(
        reused=reused,
        cached=previous.cache_read_tokens + previous.cache_write_tokens,
        cached_before=previous.cached_after,
        prompt_tokens=(
            current.snapshot.estimated_prompt_tokens
            if current.prompt_tokens is None
            else current.prompt_tokens
        ),
        bytes_cause=bytes_cause,
        idle_seconds=(current.at - previous.at).total_seconds(),
        ttl_seconds=ttl_seconds,
        price=price,
        provider_reason=provider_reason,
        estimated=estimated,
    )


def first_request(reused: int, resumed: bool, provider_reason: str = "") -> CacheExplanation:
    """The explanation of a session's first main request (``resumed``: the first since a
    resume), which read ``reused`` tokens from the cache."""
    detail = FIRST_SINCE_RESUME if resumed else "first request: no earlier one to compare with"
    return CacheExplanation(reused, 0, "first", detail, 0.0, provider_reason)


USAGE_ONLY = "usage only: the request's bytes are not kept, so no source can be named"
"""The detail of a shrunken reuse whose bytes are unknown (an imported transcript)."""


def name_cause(
    *,
    reused: int,
    cached_before: int,
    prompt_tokens: int,
    bytes_cause: tuple[str, str] | None,
    idle_seconds: float,
    ttl_seconds: int | None,
    price: ModelPrice | None,
    provider_reason: str = "",
    estimated: bool = False,
    bytes_known: bool = True,
    cached: int | None = None,
) -> CacheExplanation:
    """The cause of a request's reuse from its figures: what it read (``reused``) of what the
    request before it left cached (``cached_before``), of its own ``prompt_tokens`` (what
    the cache held beyond them is dropped, not written again: another conversation, a
    compaction's shorter one), what their bytes show changed
    (``bytes_cause``: the cause and its words, None: nothing), the time between them.

    Captures and imports call it with what they know; ``bytes_known`` False (an import) names
    no source: a shrunken reuse that time does not explain is ``unknown``, said with where the
    prefix broke in tokens (``USAGE_ONLY``).
    ``cached``: what the request before read and wrote: when neither it nor this one used a
    cache and the model has none we know of (no ``ttl_seconds``), the cause is ``uncached``.
    """
    if cached == 0 and ttl_seconds is None and not reused:
        detail = "the provider reports no prompt cache"
        return CacheExplanation(0, 0, "uncached", detail, 0.0, provider_reason)
    rewritten = max(min(cached_before, prompt_tokens) - reused, 0)
    if bytes_cause is not None and rewritten:
        cause, detail = bytes_cause
    elif not rewritten:
        cause, detail = "kept", "appends after the conversation: cache kept"
    elif ttl_seconds is not None and idle_seconds > ttl_seconds:
        cause, idle = "idle", minutes(idle_seconds)
        if idle == minutes(ttl_seconds):  # "idle 5 min > 5 min TTL" reads as no longer
            idle = f"{int(idle_seconds // 60)} min {int(idle_seconds % 60)} s"
        detail = f"idle {idle} > {minutes(ttl_seconds)} TTL: the cache expired"
    elif not bytes_known:  # where the prefix broke is still known, in tokens
        cause = "unknown"
        kept = min(cached_before, prompt_tokens)
        detail = (
            f"the prompt changed after its first {reused:,} of {kept:,} cached tokens; {USAGE_ONLY}"
        )
    else:
        cause, detail = "provider", "prefix identical: the provider did not reuse it"
    cost = None if price is None else usd(rewritten, price.write)
    disagrees = bool(provider_reason) and cause != "kept" and not _agrees(cause, provider_reason)
    return CacheExplanation(
        reused, rewritten, cause, detail, cost, provider_reason, disagrees, estimated
    )


class CacheEffect(msgspec.Struct, frozen=True):
    """What an action will do to the provider's cache: the cached tokens the next request
    writes again and their price (``None``: unknown price); ``expired``: nothing is cached
    any more; ``kept``: the action appends after the conversation."""

    rewritten_tokens: int = 0
    cost_usd: float | None = 0.0
    kept: bool = False
    expired: bool = False

    @property
    def text(self) -> str:
        """``rewrites ~41,800 cached tokens ≈ $0.16``, ``appends after the conversation:
        cache kept``, ``the cache has expired: nothing to rewrite``."""
        if self.expired:
            return "the cache has expired: nothing to rewrite"
        if self.kept or not self.rewritten_tokens:
            return "appends after the conversation: cache kept"
        cost = format_usd(self.cost_usd)
        return f"rewrites ~{self.rewritten_tokens:,} cached tokens ≈ {cost}"


def cache_effect(
    last: CacheTurn | None,
    *,
    at: datetime,
    ttl_seconds: int | None,
    price: ModelPrice | None,
    from_message: int | None,
) -> CacheEffect:
    """What changing the request from message ``from_message`` on does to the cache.

    Args:
        last: the last main request with its usage (None: nothing is cached).
        at: now.
        ttl_seconds: how long the provider keeps an unused prefix (None: unknown).
        price: the price of the model that will write the tokens again.
        from_message: the first message of ``last``'s request the action changes (0: all of
            it, as another model does; None: nothing, the action appends).
    """
    if last is None:
        return CacheEffect(kept=True)
    if ttl_seconds is not None and (at - last.at).total_seconds() > ttl_seconds:
        return CacheEffect(expired=True)
    if from_message is None:
        return CacheEffect(kept=True)
    snapshot = last.snapshot
    cached = last.cached_after
    total = snapshot.prompt_bytes + snapshot.tools_bytes
    before = 0
    if from_message > 0 and total > 0:
        kept = snapshot.tools_bytes + sum(m.prompt_bytes for m in snapshot.messages[:from_message])
        before = min(cached, cached * kept // total)
    rewritten = cached - before
    return CacheEffect(rewritten, None if price is None else usd(rewritten, price.write))


class UsageTurn(msgspec.Struct, frozen=True):
    """One request of another agent as a capture or an import knows it: when, which model,
    its reported usage (``prompt_tokens`` with the cached part), the request it is compared
    with (``thread``: requests of one thread share a cache), and what its bytes show changed
    since that one (``bytes_cause``; None: nothing, or the bytes are not known)."""

    at: datetime
    model: str
    prompt_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    thread: str = ""
    bytes_cause: tuple[str, str] | None = None
    cache_write_1h_tokens: int = 0
    """The part of ``cache_write_tokens`` written with a 1-hour TTL (Claude Code's breakpoints)."""
    after: int = -1
    """The index of the turn it is compared with (-1: the last of its thread): a capture's
    request may follow an earlier one than its thread's last (a session resumed after another)."""


def explain_usage(
    turns: Sequence[UsageTurn], *, bytes_known: bool, prices: PriceOverrides = NO_OVERRIDES
) -> list[tuple[RequestCost | None, CacheExplanation]]:
    """Each request's cost (``price_for`` its model, the config's ``prices`` first; None: no
    price) and its cache reuse explained against the request before it in its thread
    (``name_cause``)."""
    out: list[tuple[RequestCost | None, CacheExplanation]] = []
    last: dict[str, UsageTurn] = {}
    one_hour: dict[str, bool] = {}
    """Whether the thread's last write was for an hour: its prefix outlives five idle minutes."""
    for turn in turns:
        price = price_for(turn.model, overrides=prices)
        cost = request_cost(
            price,
            prompt_tokens=turn.prompt_tokens,
            output_tokens=turn.output_tokens,
            cache_read_tokens=turn.cache_read_tokens,
            cache_write_tokens=turn.cache_write_tokens,
            cache_write_1h_tokens=turn.cache_write_1h_tokens,
        )
        previous = turns[turn.after] if turn.after >= 0 else last.get(turn.thread)
        last[turn.thread] = turn
        ttl = 3600 if one_hour.get(turn.thread) else cache_ttl_seconds(turn.model)
        if turn.cache_write_tokens:
            one_hour[turn.thread] = turn.cache_write_1h_tokens > 0
        if price is not None and one_hour.get(turn.thread):
            price = msgspec.structs.replace(price, cache_write=price.write_1h)
        if previous is None:
            detail = "first request of its thread: no earlier one to compare with"
            out.append((cost, CacheExplanation(turn.cache_read_tokens, 0, "first", detail, 0.0)))
            continue
        cached = previous.cache_read_tokens + previous.cache_write_tokens
        explanation = name_cause(
            reused=turn.cache_read_tokens,
            cached_before=cached or previous.prompt_tokens,
            prompt_tokens=turn.prompt_tokens,
            bytes_cause=turn.bytes_cause,
            idle_seconds=(turn.at - previous.at).total_seconds(),
            ttl_seconds=ttl,
            price=price,
            bytes_known=bytes_known,
        )
        out.append((cost, explanation))
    return out
