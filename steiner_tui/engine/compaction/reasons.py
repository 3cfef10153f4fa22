"""The fallback status reasons recorded in a compaction outcome, byte for byte.

``no recent request`` when no main request was recorded; ``idle 12m > 10m`` with both durations
rounded to the nearest whole minute (halves away from zero); and, when rounding makes the two
equal, the exact durations in compact unit form (``idle 5m20s > 5m10s``, see
``go_duration_string``) so the reason still reads as "greater than". A fallback that failed is
recorded as ``context too large for <alias>/<model>`` or ``fallback failed: <error>``.
"""

from __future__ import annotations

from datetime import timedelta

__all__ = [
    "fallback_failed_reason",
    "fallback_not_fit_reason",
    "format_fallback_reason",
    "go_duration_string",
]

NO_RECENT_REQUEST = "no recent request"

_NS_PER_US = 1_000
_NS_PER_MS = 1_000_000
_NS_PER_S = 1_000_000_000
_US_PER_MINUTE = 60_000_000


def _nanoseconds(value: timedelta) -> int:
    return (value // timedelta(microseconds=1)) * _NS_PER_US


def _round_minutes(value: timedelta) -> int:
    micros = value // timedelta(microseconds=1)
    whole = (abs(micros) + _US_PER_MINUTE // 2) // _US_PER_MINUTE
    return -whole if micros < 0 else whole


def _fraction(value: int, digits: int) -> str:
    text = f"{value:0{digits}d}".rstrip("0")
    return f".{text}" if text else ""


def go_duration_string(value: timedelta) -> str:
    """Format ``value`` in compact units: ``1h2m3s``, ``1.5s``, ``500ms``, ``2µs``.

    Hours, minutes and seconds with the seconds' fraction when the duration is a second or more
    (trailing zeros dropped); otherwise the largest of ``ms``, ``µs``, ``ns`` that keeps an
    integer part; a negative duration starts with ``-``.

    Args:
        value: any duration; Python keeps microseconds, so ``ns`` never appears except for 0.

    Returns:
        The compact form; zero is ``0s``.
    """
    ns = _nanoseconds(value)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < _NS_PER_S:
        if u < _NS_PER_US:
            return f"{sign}{u}ns"
        if u < _NS_PER_MS:
            whole, frac = divmod(u, _NS_PER_US)
            return f"{sign}{whole}{_fraction(frac, 3)}µs"
        whole, frac = divmod(u, _NS_PER_MS)
        return f"{sign}{whole}{_fraction(frac, 6)}ms"
    seconds, frac = divmod(u, _NS_PER_S)
    text = f"{seconds % 60}{_fraction(frac, 9)}s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        hours = minutes // 60
        if hours:
            text = f"{hours}h{text}"
    return sign + text


def format_fallback_reason(idle: timedelta | None, after: timedelta) -> str:
    """The reason a cold cache sent the summary to the fallback model.

    Args:
        idle: time since the last main request, or None when none was recorded.
        after: the configured idle threshold.

    Returns:
        ``no recent request``, ``idle <m>m > <n>m``, or with exact durations when the rounded
        minutes are equal.
    """
    if idle is None:
        return NO_RECENT_REQUEST
    idle_minutes, after_minutes = _round_minutes(idle), _round_minutes(after)
    if idle_minutes != after_minutes:
        return f"idle {idle_minutes}m > {after_minutes}m"
    return f"idle {go_duration_string(idle)} > {go_duration_string(after)}"


def fallback_not_fit_reason(target_ref: str) -> str:
    """``context too large for <alias>/<model>``: the plan did not fit the fallback model."""
    return f"context too large for {target_ref}"


def fallback_failed_reason(error: BaseException) -> str:
    """``fallback failed: <error>``: any other failure of the fallback attempt."""
    return f"fallback failed: {error}"
