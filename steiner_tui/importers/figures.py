"""An imported session's requests as the tokens-per-request chart's rows.

The workbench draws tokens per request with ``RequestChart`` from ``RequestSummary`` rows (the
engine's figures of each stored request). An imported transcript has, per request, its context
tokens, its cache read and its model; each compaction is a row of its own before the first
request after it (the chart marks a compaction where such a row sits, as it does for the
summary call of a session of steiner's own). The cache-read strip of the chart and the request
table show the share of each request's context the provider's cache served
(``RequestSummary.reuse``), from the cache read and creation the transcript records.

Each request row carries its cost (the config's prices for its model id, else the engine's
price table) and its cache cause
(``engine.cache_causes.explain_usage``), compared with the previous request of its model. An
import has usage only, no request bodies: a compaction before it and the time since the previous
request can be named, no source can (``USAGE_ONLY``). ``session_cost`` sums the rows into the
one line that the import screen and ``steiner-tui import`` print.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from steiner_tui.engine.cache_causes import UsageTurn, explain_usage
from steiner_tui.engine.events import CacheExplanation
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides, RequestCost
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.units import dollars

__all__ = ["chart_rows", "explained_usage", "session_cost"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_COMPACTED = ("compaction", "compaction: a new generation replaced the conversation")


def _time(value: Any) -> datetime:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return _EPOCH


def chart_rows(
    requests: Sequence[Mapping[str, Any]],
    generations: Sequence[Mapping[str, Any]],
    window: int = 0,
    prices: PriceOverrides = NO_OVERRIDES,
) -> tuple[RequestSummary, ...]:
    """The rows of an import (``ImportedSession.to_json``'s ``requests`` and ``generations``):
    one per request, oldest first, and one compaction row before the request after each
    compaction. ``window`` (0: unknown) decides which requests did not fit; ``prices``: the
    config's prices by model id."""
    before: dict[int, list[Mapping[str, Any]]] = {}
    for generation in generations:
        before.setdefault(int(generation.get("after_request") or 0), []).append(generation)
    rows: list[RequestSummary] = []
    explained = explained_usage(requests, generations, prices)

    def add(
        tokens: int,
        model: str,
        time: datetime,
        compaction: bool,
        request: int = -1,
        read: int = 0,
        write: int = 0,
    ) -> None:
        cost, cache = explained[request] if request >= 0 else (None, None)
        fits = compaction or not window or tokens <= window
        rows.append(
            RequestSummary(
                position=len(rows),
                index=number,  # a compaction row takes the number of the request after it
                time=time,
                model=model,
                compaction=compaction,
                generation_id="",
                estimated_prompt_tokens=tokens,
                max_tokens=0,
                prompt_bytes=0,
                message_count=0,
                fits=fits,
                overflow_tokens=0 if fits else tokens - window,
                reported=request >= 0,
                prompt_tokens=tokens,
                cache_read_tokens=read,
                cache_write_tokens=write,
                cost_usd=cost.total_usd if cost is not None else None,
                cache=cache,
            )
        )

    number = 1
    for index, request in enumerate(requests):
        number = index + 1
        for generation in before.pop(index, ()):
            add(int(generation.get("pre_tokens") or 0), "", _time(generation.get("time")), True)
        add(
            int(request.get("context_tokens") or 0),
            str(request.get("model") or ""),
            _time(request.get("time")),
            False,
            index,
            int(request.get("cache_read_tokens") or 0),
            int(request.get("cache_creation_tokens") or 0),
        )
    number += 1
    for generations_left in before.values():  # a compaction after the last request
        for generation in generations_left:
            add(int(generation.get("pre_tokens") or 0), "", _time(generation.get("time")), True)
    return tuple(rows)


def explained_usage(
    requests: Sequence[Mapping[str, Any]],
    generations: Sequence[Mapping[str, Any]],
    prices: PriceOverrides = NO_OVERRIDES,
) -> list[tuple[RequestCost | None, CacheExplanation]]:
    """Each request's cost and cache cause (``explain_usage``), a compaction before it named."""
    compacted_before = {int(g.get("after_request") or 0) for g in generations}
    return explain_usage(
        [
            UsageTurn(
                _time(r.get("time")),
                str(r.get("model") or ""),
                int(r.get("context_tokens") or 0),
                int(r.get("output_tokens") or 0),
                int(r.get("cache_read_tokens") or 0),
                int(r.get("cache_creation_tokens") or 0),
                str(r.get("model") or ""),
                _COMPACTED if index in compacted_before else None,
                int(r.get("cache_write_1h_tokens") or 0),
            )
            for index, r in enumerate(requests)
        ],
        bytes_known=False,
        prices=prices,
    )


def session_cost(rows: Sequence[RequestSummary]) -> str:
    """What the import's requests cost by the price table, and what its causes rest on."""
    unpriced = ", ".join(sorted({row.model for row in rows if row.cost_usd is None}))
    priced = [row.cost_usd for row in rows if row.cost_usd is not None]
    total = dollars(sum(priced))
    if not unpriced:
        cost = f"cost {total}"
    elif priced:
        cost = f"cost {total} + the requests of {unpriced} (price unknown)"
    else:
        cost = f"cost: price unknown for {unpriced}"
    return f"{cost} · cache causes: usage only, no request bodies (compactions and time named)"
