"""The session date block: captured once when a session starts, byte-stable afterwards.

The date is user role and sits after the static sources, so it never disturbs the system-zone
prefix. It is captured once per session identity (sub-agents receive the parent's value) so the
text does not change at midnight and break the provider's prompt cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final

__all__ = [
    "SessionDateCache",
    "is_zero_date",
    "render_session_date",
    "session_date_text",
]

_OFFSET_LIKE: Final = re.compile(r"^(?:UTC|GMT)?[+-]\d{1,2}(?::?\d{2})?(?::?\d{2})?$")
"""Zone names that are really offsets (``+05``, ``UTC+05:30``), i.e. no abbreviation."""


def _split_offset(offset: timedelta) -> tuple[str, int, int]:
    seconds = int(offset.total_seconds())
    sign = "-" if seconds < 0 else "+"
    hours, minutes = divmod(abs(seconds) // 60, 60)
    return sign, hours, minutes


def render_session_date(moment: datetime) -> str:
    """The session date line for an aware datetime, e.g.
    ``Current date: 2026-09-13 (BST, UTC+01:00), recorded when this session started.``

    A zone without an abbreviation (``tzname()`` is None or looks like an offset) is written as
    its offset without a colon, e.g. ``+0530``.

    Raises:
        ValueError: when ``moment`` is naive.
    """
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError("session date needs an aware datetime (with a time zone)")
    sign, hours, minutes = _split_offset(offset)
    name = moment.tzname()
    if not name or _OFFSET_LIKE.match(name):
        name = f"{sign}{hours:02d}{minutes:02d}"
    return (
        f"Current date: {moment:%Y-%m-%d} ({name}, UTC{sign}{hours:02d}:{minutes:02d}), "
        "recorded when this session started."
    )


def is_zero_date(moment: datetime | None) -> bool:
    """Whether ``moment`` is the zero date (None or ``datetime.min``), which adds no block."""
    return moment is None or moment.replace(tzinfo=None) == datetime.min


def session_date_text(moment: datetime | None) -> str:
    """The block text for ``moment``; ``""`` for the zero date."""
    if moment is None or is_zero_date(moment):
        return ""
    return render_session_date(moment)


class SessionDateCache:
    """Captures the session date once per session identity.

    The runner asks for the date on every turn; only the first call for a session id reads the
    clock. Delegated children are seeded with their parent's value.
    """

    def __init__(self) -> None:
        self._dates: dict[str, datetime | None] = {}

    def session_date_for(
        self, session_id: str, clock: Callable[[], datetime | None]
    ) -> datetime | None:
        """The date captured for ``session_id``, reading ``clock`` only the first time.

        Returns:
            The captured datetime, or None for a zero date (no block).
        """
        if session_id not in self._dates:
            moment = clock()
            self._dates[session_id] = None if is_zero_date(moment) else moment
        return self._dates[session_id]

    def seed(self, session_id: str, moment: datetime | None) -> None:
        """Record ``moment`` for ``session_id`` (a child inherits its parent's date; a resumed
        session keeps the date it started with)."""
        self._dates[session_id] = None if is_zero_date(moment) else moment

    def forget(self, session_id: str) -> None:
        """Drop a session's date (the session was deleted or replaced)."""
        self._dates.pop(session_id, None)
