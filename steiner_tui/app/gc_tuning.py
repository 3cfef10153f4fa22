"""Garbage-collector settings for the interactive app: short pauses, the long one when idle.

Textual allocates many short-lived objects per frame (strips, segments, their caches), some of
them cycles that only a collection frees (a strip that caches a list holding itself; the ring of
a box-model cache). Unmounted entry widgets are not among them (``widgets/removal.py``). With
CPython's default thresholds a full (generation 2) collection runs every few hundred frames;
with a long conversation loaded its pause is a visible hitch on a key press.

Three settings keep pauses off key presses:

- Freezing what exists once start-up is over (modules, classes, a resumed conversation) takes
  it out of every later collection.
- Small young and middle thresholds keep each of those collections short: a collection's pause
  grows with the objects it examines (``benchmarks/bench_ui.py`` prints the pauses on its GC
  line; docs/ARCHITECTURE.md, "Key press to frame", gives the figures).
- A full collection still has to run now and then (it frees those cycles). At most one
  per 2 million net allocations runs by itself; ``IdleCollector`` runs it earlier, once nobody
  has pressed a key or moved the mouse for a while and no reply is streaming, so the one that
  would have fallen on a key press rarely comes due.

Only the app command asks for this, once its start-up is over (session open, panels filled), and
the UI benchmark, to measure what users run; tests keep the defaults.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

__all__ = ["IDLE_AFTER", "IDLE_PENDING", "UI_GC_THRESHOLDS", "IdleCollector", "tune_gc_for_ui"]

UI_GC_THRESHOLDS = (2_000, 10, 100)
"""Generation thresholds while the UI runs (CPython's defaults are 700, 10, 10)."""
IDLE_AFTER = 2.0
"""Seconds without input after which a full collection may run."""
IDLE_PENDING = 20
"""Middle collections since the last full one that make an idle full collection worth its
pause (one per 400,000 net allocations with the thresholds above)."""


def tune_gc_for_ui() -> None:
    """Freeze the objects alive now, set the collection thresholds, turn the collector on.

    The app command turns the collector off for its start-up; this turns it back on.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*UI_GC_THRESHOLDS)
    gc.enable()


class IdleCollector:
    """Runs the full collection while the user is idle, so it rarely falls on a key press."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        collect: Callable[[int], object] = gc.collect,
        counts: Callable[[], tuple[int, int, int]] = gc.get_count,
        idle_after: float = IDLE_AFTER,
        pending: int = IDLE_PENDING,
    ) -> None:
        self._clock = clock
        self._collect = collect
        self._counts = counts
        self._idle_after = idle_after
        self._pending = pending
        self._last_input = clock()

    def input_seen(self) -> None:
        """A key or a mouse event arrived: the user is not idle."""
        self._last_input = self._clock()

    def tick(self, *, busy: bool) -> bool:
        """Collect fully if the user is idle, nothing is ``busy``, and enough is pending.

        Returns whether it collected.
        """
        if busy or self._clock() - self._last_input < self._idle_after:
            return False
        if self._counts()[2] < self._pending:  # middle collections since the last full one
            return False
        self._collect(2)
        return True
