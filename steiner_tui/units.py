"""How every screen and command writes sizes and token counts: one style, written once.

Counts are exact, with a comma between thousands (``2,467``); a unit follows when the column
or sentence does not already name it: ``2,467 B`` for bytes (UTF-8, never kilobytes: the same
size reads the same in the skill sidebar, the context panel, the inspector, the sessions list and
``steiner-tui context``), ``3,779 tok`` for tokens.
"""

from __future__ import annotations

from datetime import datetime

from steiner_tui.engine.events import CacheExplanation
from steiner_tui.engine.prices import RequestCost, format_usd

__all__ = [
    "byte_count",
    "cache_summary",
    "clock",
    "cost_parts",
    "count",
    "counted",
    "dollars",
    "local_minute",
    "run_time",
    "token_count",
]

PRICE_UNKNOWN = format_usd(None)
"""What a cost reads when the model has no price (never $0)."""


def count(value: int) -> str:
    """An exact count with thousands separators: ``12,345``."""
    return f"{value:,}"


def counted(value: int, noun: str) -> str:
    """A count and what it counts, plural but for one: ``1 request``, ``2,467 requests``."""
    return f"{value:,} {noun}{'' if value == 1 else 's'}"


def byte_count(value: int) -> str:
    """A size in bytes: ``2,467 B``."""
    return f"{value:,} B"


def token_count(value: int) -> str:
    """A number of tokens: ``3,779 tok``."""
    return f"{value:,} tok"


def dollars(value: float | None) -> str:
    """A cost: ``$0.16``, ``$0.0042`` under a cent, ``<$0.0001`` under that, ``$0`` for
    nothing, ``price unknown`` for ``None`` (``engine.prices.format_usd``)."""
    return format_usd(value)


def cost_parts(cost: RequestCost | None) -> str:
    """``input $0.0001 · cache read $0.0120 · cache write $0.16 · output $0.0002``."""
    if cost is None:
        return PRICE_UNKNOWN
    parts = (
        ("input", cost.input_usd),
        ("cache read", cost.cache_read_usd),
        ("cache write", cost.cache_write_usd),
        ("output", cost.output_usd),
    )
    return " · ".join(f"{name} {dollars(value)}" for name, value in parts)


def cache_summary(cache: CacheExplanation) -> str:
    """One line on a request's cache reuse: the cause's words, the tokens rewritten and their
    price, and the provider's own reason beside ours (``disagrees`` when it names another)."""
    text = cache.detail
    tokens = token_count(cache.rewritten_tokens)
    if cache.rewritten_tokens and cache.estimated:
        text += f"; rewrites ~{tokens} ≈ {dollars(cache.cost_usd)}"
    elif cache.rewritten_tokens:
        text += f"; rewrote {tokens} ≈ {dollars(cache.cost_usd)}"
    elif cache.reused_tokens:
        text += f"; {'keeps ~' if cache.estimated else 'reused '}{token_count(cache.reused_tokens)}"
    if cache.provider_reason:
        verdict = ", disagrees" if cache.disagrees else ""
        text += f" (provider: {cache.provider_reason}{verdict})"
    return text


def clock(seconds: float) -> str:
    """A running time as minutes and seconds: ``0:05``, ``1:05``, ``62:05`` (a compaction's)."""
    whole = int(max(0.0, seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def run_time(seconds: int) -> str:
    """A run's time as the status line counts it: ``12s``, ``1:05``, ``1:02:03``."""
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return clock(seconds)
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours}:{minutes:02d}:{seconds % 60:02d}"


def local_minute(value: datetime) -> str:
    """When something was, to the minute, in local time: ``2026-12-07 08:11`` (the sessions
    list, the captures list)."""
    return value.astimezone().strftime("%Y-%m-%d %H:%M")
