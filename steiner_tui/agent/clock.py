"""The injected clock: LastMainRequest times, fallback idle checks and the session date use it.

Tests pass a ``ManualClock`` instead of patching ``datetime``.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

import msgspec

__all__ = ["Clock", "ManualClock", "SystemClock"]


class Clock(Protocol):
    """Tells the time as an aware datetime."""

    def now(self) -> datetime: ...


class SystemClock:
    """The real clock, in the local time zone (so the session date shows the user's zone)."""

    def now(self) -> datetime:
        return datetime.now().astimezone()


class ManualClock(msgspec.Struct):
    """A clock that moves only when told to."""

    current: datetime = msgspec.field(
        default_factory=lambda: datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    )

    def now(self) -> datetime:
        return self.current

    def advance(self, delta: timedelta) -> None:
        self.current += delta
