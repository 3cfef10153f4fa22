"""The reply being streamed, kept as ``partial`` records while it comes.

A killed process must not lose what the model had already said, so ``SessionLog`` writes the
streamed text (and reasoning) as ``partial`` records: once ``every_bytes`` of it is buffered, or
once ``every_seconds`` passed since the last one, and when a provider error ends the turn. The
appended reply makes them obsolete. ``PartialReply`` is that buffer and its schedule; the log
decides when to write what it gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from steiner_tui.sessions.records import PartialRecord

__all__ = ["PARTIAL_INTERVAL", "PartialReply"]

PARTIAL_INTERVAL = 1.0
"""Seconds between ``partial`` records while a reply streams. Each record stays in the log
(about 45 bytes besides its text) after the reply it anticipated is written whole: at a tenth
of a second, a local model's reply streamed at 17 tokens a second left 932 records for two
replies, a log 8.8 times their text, and as many lines for every resume to parse. A kill loses
at most the last second of a reply that was cut off anyway."""


class PartialReply:
    """Streamed text and reasoning not yet written, and when the next record is due."""

    __slots__ = ("_at", "_buffered", "_reasoning", "_text", "clock", "every_bytes", "every_seconds")

    def __init__(
        self,
        *,
        every_bytes: int = 2048,
        every_seconds: float = PARTIAL_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.every_bytes = every_bytes
        """A record is due once this much streamed text is buffered..."""
        self.every_seconds = every_seconds
        """... or once this many seconds passed since the last one (0: on every delta)."""
        self.clock = clock
        """The interval clock."""
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._buffered = 0
        self._at = 0.0

    def add(self, *, text: str = "", reasoning: str = "") -> bool:
        """Buffer a delta; whether a record is due now (the interval starts again if so)."""
        self._text.append(text)
        self._reasoning.append(reasoning)
        self._buffered += len(text) + len(reasoning)
        now = self.clock()
        if self._buffered >= self.every_bytes or now - self._at >= self.every_seconds:
            self._at = now
            return True
        return False

    def restart(self) -> None:
        """A request went out: nothing buffered, the interval counted from now."""
        self.drop()
        self._at = self.clock()

    def take(self, gen: int | None, turn: int) -> PartialRecord | None:
        """The buffered text as a record of generation ``gen``'s ``turn``, emptying the
        buffer (None: nothing is buffered)."""
        if not self._buffered:
            return None
        record = PartialRecord(
            gen=gen, turn=turn, text="".join(self._text), reasoning="".join(self._reasoning)
        )
        self.drop()
        return record

    def drop(self) -> None:
        """Forget what is buffered (the reply was appended whole)."""
        self._text.clear()
        self._reasoning.clear()
        self._buffered = 0
