"""Prompt-cache diagnostics: the cold-start mark and each runner's cache baseline.

Each model call is reported with a ``CacheDiagnostic`` beside its snapshot: whether it is the
first main request of the process (a cold start: the provider has cached nothing of ours yet),
and whether its cacheable prefix (the block messages) repeats the previous main request's, the
runner's *cache baseline*. The cold-start mark is process-wide, so a second session or a
delegated child is not reported as a cold start again.

A compaction fallback acts for the main session without being it (docs/design.md, "9.
Compaction fallback and the last main request"): its calls report no cold start, leave the
process-wide mark where it is, and neither compare with nor move the main baseline.

The runner's diagnostics also keep each model's last main request with its reported usage, so
each call's ``UsageReported`` carries its cost, the session's total and the named cause of its
cache reuse (``engine.cache_causes``), and a dry run of the next request (or an action's
preview) is explained against the same request: the model's own last one, for a cache belongs
to one model (back on Sonnet after a Haiku question, Sonnet's cache may still be warm), else the
last one of another model (the switch is the cause). A summary call's usage is priced into
the session's total too (``summary_usage``), without a cause: it is no turn of the
conversation. A resumed session's total starts from what its log's requests cost
(``session_cost``, set by the session factory).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import msgspec

from steiner_tui.engine.cache_causes import CacheTurn, explain_cache
from steiner_tui.engine.events import (
    CacheDiagnostic,
    CacheExplanation,
    RequestSnapshot,
    UsageReported,
)
from steiner_tui.engine.jsonenc import go_json
from steiner_tui.engine.messages import cumulative_prefix_hashes
from steiner_tui.engine.prices import (
    ZERO_COST,
    ModelPrice,
    RequestCost,
    cache_ttl_seconds,
    request_cost,
)
from steiner_tui.engine.provider import StreamUsage

__all__ = ["CacheDiagnostics", "ColdStartMark", "params_key"]


class ColdStartMark:
    """Set by the first main request; ``take`` says whether this call was that one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = False

    def take(self) -> bool:
        """True exactly once: for the first caller."""
        if self._taken:  # every call after the first: it never goes back
            return False
        with self._lock:
            first = not self._taken
            self._taken = True
            return first

    @property
    def taken(self) -> bool:
        """Whether a main request was already reported."""
        return self._taken


PROCESS_COLD_START = ColdStartMark()
"""The process-wide mark (tests hand runners their own)."""


def _prefix_hash(snapshot: RequestSnapshot) -> str:
    count = snapshot.block_message_count
    if count <= 0:
        return ""
    return _chained(tuple(snapshot.message_hashes[:count]))


@functools.lru_cache(maxsize=8)  # every request's prefix is the one before it, but for edits
def _chained(hashes: tuple[str, ...]) -> str:
    return cumulative_prefix_hashes(hashes)[-1]


class CacheDiagnostics:
    """One runner's cache baseline over a (usually process-wide) cold-start mark.

    Args:
        mark: the cold-start mark (default: the process's).
    """

    def __init__(self, mark: ColdStartMark | None = None) -> None:
        self.mark = mark if mark is not None else PROCESS_COLD_START
        self.baseline = ""
        """The prefix hash of the last main request ("" before the first)."""
        self.last: CacheTurn | None = None
        """The last main request whose usage came, with that usage (None: none yet)."""
        self.last_by_model: dict[str, CacheTurn] = {}
        """Each model's last main request with its usage: what that model's cache holds."""
        self.sent: CacheTurn | None = None
        """The main request in flight, waiting for its usage."""
        self.session_cost: RequestCost | None = ZERO_COST
        """What the session's calls cost so far (None once one of them had no price)."""
        self.resumed = False
        """The session was resumed: its requests before this process are in the log only."""

    def last_of(self, model: str) -> CacheTurn | None:
        """``model``'s last main request: a cache belongs to one model, so after ``/model``
        nothing is cached for the new model until it answers, and back on the old one its
        own last request is what its cache holds."""
        return self.last_by_model.get(model)

    def base_of(self, model: str) -> CacheTurn | None:
        """What a request to ``model`` is explained against: ``model``'s last main request,
        else the last one (another model's: the switch is the cause)."""
        return self.last_by_model.get(model, self.last)

    def main(self, snapshot: RequestSnapshot) -> CacheDiagnostic:
        """The diagnostic of a main-session call (normal turn or main summary); it moves the
        baseline and takes the cold-start mark."""
        prefix = _prefix_hash(snapshot)
        stable = bool(self.baseline) and prefix == self.baseline
        self.baseline = prefix
        return CacheDiagnostic(
            snapshot.request_id,
            cold_start=self.mark.take(),
            prefix_messages=snapshot.block_message_count,
            prefix_hash=prefix,
            prefix_stable=stable,
            compaction=snapshot.compaction,
        )

    def fallback(self, snapshot: RequestSnapshot) -> CacheDiagnostic:
        """The diagnostic of a compaction fallback's call: no cold start, baseline untouched."""
        return CacheDiagnostic(
            snapshot.request_id,
            cold_start=False,
            prefix_messages=snapshot.block_message_count,
            prefix_hash=_prefix_hash(snapshot),
            prefix_stable=False,
            compaction=True,
            fallback=True,
        )

    def send(self, snapshot: RequestSnapshot, params: str = "") -> None:
        """``snapshot`` goes out as a main turn; its usage is explained against ``last``."""
        self.sent = CacheTurn(snapshot, snapshot.time, params=params)

    def usage(
        self,
        usage: StreamUsage,
        *,
        model: str,
        price: ModelPrice | None,
        estimated_prompt_tokens: int,
    ) -> UsageReported:
        """The event reporting ``usage`` of the request in flight: its cost, the session's
        total, and its cache reuse explained (the request becomes ``last``)."""
        cost, total = self._priced(usage, price)
        sent, explanation = self.sent, None
        if sent is not None:  # (a summary call's usage never consumes a main request's)
            sent = msgspec.structs.replace(
                sent,
                prompt_tokens=usage.prompt_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
            )
            explanation = explain_cache(
                self.base_of(sent.snapshot.model),
                sent,
                price=price,
                ttl_seconds=cache_ttl_seconds(sent.snapshot.model),
                provider_reason=usage.cache_miss_reason,
                resumed=self.resumed,
            )
            self.last, self.sent = sent, None
            self.last_by_model[sent.snapshot.model] = sent
        return UsageReported(
            model,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            estimated_prompt_tokens,
            request_id=sent.snapshot.request_id if sent is not None else "",
            cost_usd=None if cost is None else cost.total_usd,
            cost=cost,
            session_cost_usd=None if total is None else total.total_usd,
            session_cost=total,
            cache=explanation,
            cache_miss_reason=usage.cache_miss_reason,
        )

    def _priced(
        self, usage: StreamUsage, price: ModelPrice | None
    ) -> tuple[RequestCost | None, RequestCost | None]:
        """What ``usage`` cost, and the session's total with it added (None once unknown)."""
        cost = request_cost(
            price,
            prompt_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
        total = None if cost is None or self.session_cost is None else self.session_cost + cost
        self.session_cost = total
        return cost, total

    def summary_usage(
        self,
        usage: StreamUsage,
        snapshot: RequestSnapshot,
        *,
        price: ModelPrice | None,
    ) -> UsageReported:
        """The event reporting a compaction summary call's ``usage``: its cost, added to the
        session's total; the main request's cache baseline and the request in flight are left
        as they are."""
        cost, total = self._priced(usage, price)
        return UsageReported(
            snapshot.model,
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            snapshot.estimated_prompt_tokens,
            request_id=snapshot.request_id,
            cost_usd=None if cost is None else cost.total_usd,
            cost=cost,
            session_cost_usd=None if total is None else total.total_usd,
            session_cost=total,
            cache_miss_reason=usage.cache_miss_reason,
        )

    def preview(
        self,
        snapshot: RequestSnapshot,
        at: datetime,
        *,
        price: ModelPrice | None,
        params: str = "",
    ) -> CacheExplanation:
        """What the cache would reuse of ``snapshot`` sent at ``at`` (a dry run), estimated
        from its bytes against the request it would be explained against (``base_of``)."""
        return explain_cache(
            self.base_of(snapshot.model),
            CacheTurn(snapshot, at, params=params),
            price=price,
            ttl_seconds=cache_ttl_seconds(snapshot.model),
        )


def params_key(params: Mapping[str, Any], extra_params: Mapping[str, Any]) -> str:
    """One string for a model's request fields (a change of it rewrites the cache)."""
    return (
        go_json({"params": params, "extra_params": extra_params}) if params or extra_params else ""
    )
