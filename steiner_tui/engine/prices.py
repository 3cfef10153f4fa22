"""What a request costs in dollars: the dated list-price table and the one cost function.

Every surface that shows money (the context panel, the inspector, ``exec``'s request lines,
``--events``, captures and imports) prices a request's usage with ``request_cost`` over the
``ModelPrice`` that ``price_for`` finds, so one request costs the same everywhere.

Prices are the vendors' published list prices in dollars per million tokens, as of
``PRICES_AS_OF``. Ids are matched like the model registry's (``engine.models``): lower-cased,
a routing prefix dropped, the longest prefix wins. A ``[models."<ref>"] price`` table in the
config wins over the table (for captures and imports, which know a model id but no ref, the
config's prices by model id: ``PriceOverrides``); a model on a local server costs 0; any other
model nobody priced has no price (``None``), which every surface says instead of showing $0.

Usage is priced in four parts. ``prompt_tokens`` as the providers report it includes the tokens
read from and written to the cache (``StreamUsage``), so the uncached input is what is left.
Anthropic writes cost 1.25x input for the 5-minute TTL (2x for 1 hour), reads 0.1x; OpenAI
charges no write surcharge on these models (a write is billed as input) and reads at its cached
input price.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

import msgspec

from steiner_tui.engine.models import model_key

__all__ = [
    "FREE",
    "PRICES_AS_OF",
    "PRICE_TABLE",
    "ModelPrice",
    "NO_OVERRIDES",
    "PriceOverrides",
    "ZERO_COST",
    "RequestCost",
    "cache_ttl_seconds",
    "cost_without_usage",
    "format_usd",
    "price_for",
    "request_cost",
    "usd",
]

PRICES_AS_OF = "2025-11-30"
"""The date the built-in list prices were taken from the vendors' pricing pages (two entries
are later or have another source, said beside them)."""

PER_MILLION = 1_000_000


class ModelPrice(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One model's prices in dollars per million tokens (the ``price`` table of a model).

    ``cache_read`` and ``cache_write`` default to ``input`` (no cache discount or surcharge);
    ``cache_write_1h`` is Anthropic's 1-hour TTL write, ``None`` where the vendor has none.
    """

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_1h: float | None = None

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"price {name} must not be negative (got {value})")

    @property
    def read(self) -> float:
        """Cache read, $/M tokens."""
        return self.input if self.cache_read is None else self.cache_read

    @property
    def write(self) -> float:
        """Cache write (the default TTL), $/M tokens."""
        return self.input if self.cache_write is None else self.cache_write

    @property
    def write_1h(self) -> float:
        """Cache write with a 1-hour TTL, $/M tokens (the default write where none is set)."""
        return self.write if self.cache_write_1h is None else self.cache_write_1h

    @property
    def free(self) -> bool:
        """Every token costs nothing (a local server): any request's cost is known, $0."""
        return not (self.input or self.output or self.read or self.write or self.write_1h)


FREE = ModelPrice(input=0.0, output=0.0, cache_read=0.0, cache_write=0.0)
"""A model on a local server."""


def _anthropic(input_: float, output: float) -> ModelPrice:
    return ModelPrice(
        input=input_,
        output=output,
        cache_read=round(input_ * 0.1, 6),
        cache_write=round(input_ * 1.25, 6),
        cache_write_1h=round(input_ * 2, 6),
    )


def _openai(input_: float, output: float, cached: float | None = None) -> ModelPrice:
    return ModelPrice(input=input_, output=output, cache_read=cached, cache_write=input_)


PRICE_TABLE = MappingProxyType(
    {
        # Anthropic: writes 1.25x input (5 min) or 2x (1 h), reads 0.1x.
        "claude-opus-4-5": _anthropic(5.0, 25.0),
        # Opus 4.6 (the real Claude Code transcripts' model): after the table's date, from its
        # own vendor page (platform.claude.com, models/opus-4-6: $5 in, $25 out; Anthropic's
        # cache rates are the same multiples for every model).
        "claude-opus-4-6": _anthropic(5.0, 25.0),
        # Opus 4 and 4.1 (ids claude-opus-4-0, -4-1, -4-20250514); Opus 4.7 and later are unpriced.
        "claude-opus-4-0": _anthropic(15.0, 75.0),
        "claude-opus-4-1": _anthropic(15.0, 75.0),
        "claude-opus-4-2025": _anthropic(15.0, 75.0),
        "claude-sonnet-4": _anthropic(3.0, 15.0),
        "claude-haiku-4": _anthropic(1.0, 5.0),
        "claude-3-7-sonnet": _anthropic(3.0, 15.0),
        "claude-3-5-sonnet": _anthropic(3.0, 15.0),
        "claude-3-5-haiku": _anthropic(0.8, 4.0),
        "claude-3-opus": _anthropic(15.0, 75.0),
        "claude-3-haiku": _anthropic(0.25, 1.25),
        # Claude Code's default model: no vendor page was at hand, so its price is Claude Code
        # 2.1.328's own (its baked model catalog, @anthropic-ai/claude-code on npm, tier
        # "tier_4_20_cache_read_0_20"); reads are 0.05x input there.
        "claude-opus-5-5": ModelPrice(
            input=4.0, output=20.0, cache_read=0.2, cache_write=5.0, cache_write_1h=8.0
        ),
        # OpenAI: input, output, cached input (no write surcharge).
        "gpt-5": _openai(1.25, 10.0, 0.125),
        "gpt-5-chat": _openai(1.25, 10.0, 0.125),
        "gpt-5-mini": _openai(0.25, 2.0, 0.025),
        "gpt-5-nano": _openai(0.05, 0.40, 0.005),
        "gpt-4.1": _openai(2.0, 8.0, 0.5),
        "gpt-4.1-mini": _openai(0.4, 1.6, 0.1),
        "gpt-4.1-nano": _openai(0.1, 0.4, 0.025),
        "gpt-4o": _openai(2.5, 10.0, 1.25),
        "gpt-4o-mini": _openai(0.15, 0.6, 0.075),
        "o1": _openai(15.0, 60.0, 7.5),
        "o1-mini": _openai(1.1, 4.4, 0.55),
        "o3": _openai(2.0, 8.0, 0.5),
        "o3-mini": _openai(1.1, 4.4, 0.55),
        "o4-mini": _openai(1.1, 4.4, 0.275),
        "gpt-4-turbo": _openai(10.0, 30.0),
        "gpt-4": _openai(30.0, 60.0),
        "gpt-3.5-turbo": _openai(0.5, 1.5),
        # The built-in offline model.
        "offline": FREE,
    }
)
"""Id prefix -> list price, as of ``PRICES_AS_OF``. The longest matching prefix wins."""

_PREFIXES = sorted(PRICE_TABLE, key=len, reverse=True)

_TTL_SECONDS = {"claude": 300, "gpt": 300, "o1": 300, "o3": 300, "o4": 300}


PriceOverrides = Mapping[str, ModelPrice]
"""The config's prices by model id, lower-cased without a routing prefix
(``Config.price_overrides``): what a capture or an import, which knows no model ref, is priced
with before the table."""

NO_OVERRIDES: PriceOverrides = MappingProxyType({})


def price_for(
    model_id: str,
    *,
    override: ModelPrice | None = None,
    local: bool = False,
    overrides: PriceOverrides = NO_OVERRIDES,
) -> ModelPrice | None:
    """The price of a model: the config's ``override`` (or its price for the model's id in
    ``overrides``), else free on a ``local`` server, else the table's longest matching prefix,
    else ``None`` (unknown, never $0)."""
    if override is None:
        override = overrides.get(model_key(model_id))
    if override is not None:
        return override
    if local:
        return FREE
    key = model_key(model_id)
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return PRICE_TABLE[prefix]
    return None


@functools.lru_cache(maxsize=64)  # asked at every main request's usage
def cache_ttl_seconds(model_id: str) -> int | None:
    """How long the vendor keeps an unused cached prefix: Anthropic's default (ephemeral)
    breakpoints 5 minutes, OpenAI's in-memory retention 5 minutes at least; ``None`` for a
    model whose provider keeps no such cache that we know of."""
    key = model_key(model_id)
    for prefix, seconds in _TTL_SECONDS.items():
        if key.startswith(prefix):
            return seconds
    return None


class RequestCost(msgspec.Struct, frozen=True):
    """One request's cost in dollars, in its four parts."""

    input_usd: float
    cache_read_usd: float
    cache_write_usd: float
    output_usd: float

    @property
    def total_usd(self) -> float:
        """The four parts together."""
        return self.input_usd + self.cache_read_usd + self.cache_write_usd + self.output_usd

    def __add__(self, other: RequestCost) -> RequestCost:
        return RequestCost(
            self.input_usd + other.input_usd,
            self.cache_read_usd + other.cache_read_usd,
            self.cache_write_usd + other.cache_write_usd,
            self.output_usd + other.output_usd,
        )


ZERO_COST = RequestCost(0.0, 0.0, 0.0, 0.0)


def format_usd(value: float | None) -> str:
    """A cost: ``$0.16``, ``$0.0042`` under a cent, ``<$0.0001`` under that (a few tokens
    cost something: never ``$0.0000``), ``$0`` for nothing, ``price unknown`` for ``None``
    (never shown as $0)."""
    if value is None:
        return "price unknown"
    if value == 0:
        return "$0"
    if value < 0.00005:  # what would round to $0.0000
        return "<$0.0001"
    return f"${value:,.2f}" if value >= 0.01 else f"${value:.4f}"


def cost_without_usage(price: ModelPrice | None) -> float | None:
    """What a request that ended before its usage came cost: $0 on a free model, else None
    (unknown: the provider may bill the prompt it read)."""
    return 0.0 if price is not None and price.free else None


def usd(tokens: int, per_million: float) -> float:
    """``tokens`` at ``per_million`` dollars per million tokens."""
    return tokens * per_million / PER_MILLION


def request_cost(
    price: ModelPrice | None,
    *,
    prompt_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_write_tokens: int = 0,
    cache_write_1h_tokens: int = 0,
) -> RequestCost | None:
    """What one request's reported usage costs (``None`` when the price is unknown).

    Args:
        price: the model's price (``price_for``).
        prompt_tokens: every prompt token, cached ones included (as ``StreamUsage`` reports).
        output_tokens: the completion's tokens (reasoning included).
        cache_read_tokens: prompt tokens read from the cache.
        cache_write_tokens: prompt tokens written to the cache.
        cache_write_1h_tokens: the part of them written with a 1-hour TTL (Claude Code's).
    """
    if price is None:
        return None
    uncached = max(prompt_tokens - cache_read_tokens - cache_write_tokens, 0)
    return RequestCost(
        usd(uncached, price.input),
        usd(cache_read_tokens, price.read),
        usd(cache_write_tokens - cache_write_1h_tokens, price.write)
        + usd(cache_write_1h_tokens, price.write_1h),
        usd(output_tokens, price.output),
    )
