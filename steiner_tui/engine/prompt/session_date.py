"""The session date block: captured once when a session starts, byte-stable afterwards.

The date is user role and sits after the static sources, so it never disturbs the system-zone
prefix. It is captured once per session identity so the text does not change at midnight and
break the provider's prompt cache: the session factory reads the clock when a session's context
is built, sub-agents receive the parent's value, and a resumed session gets the moment it
started, from its log's header (``sessions.resume``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Final

__all__ = [
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
