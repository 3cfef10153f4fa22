"""Garbage-collector settings for the interactive app: fewer, shorter pauses while it runs.

Textual allocates many short-lived objects per frame (strips, segments, their caches), so the
default thresholds run a full (generation 2) collection every few hundred frames. With a long
conversation loaded that pause reaches 100-150 ms, a visible hitch on a key press. Freezing
what exists at start-up (modules, classes, the loaded conversation) takes it out of every later
collection, and the thresholds below make full collections rare (one per 4 million net
allocations at most; CPython also waits until a quarter of the long-lived objects are new).

The first threshold stays small on purpose: a young collection's pause grows with the objects it
examines. Measured by ``benchmarks/bench_ui.py`` (its GC line) over its key presses: with
(20000, 50, 100) young collections paused 7.5 ms at the median and up to 18 ms, a frame's worth,
and a middle one 170-270 ms; with these, 0.5-0.8 ms and up to 3 ms, middle ones 4-6 ms and up to
20 ms, for the same total time. Only the app command asks for this, once its start-up is over
(session open, panels filled), and the UI benchmark, to measure what users run; tests keep the
defaults.
"""

from __future__ import annotations

import gc

__all__ = ["UI_GC_THRESHOLDS", "tune_gc_for_ui"]

UI_GC_THRESHOLDS = (2_000, 20, 100)
"""Generation thresholds while the UI runs (CPython's defaults are 700, 10, 10)."""


def tune_gc_for_ui() -> None:
    """Freeze the objects alive now, raise the collection thresholds, turn the collector on.

    The app command turns the collector off for its start-up; this turns it back on.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*UI_GC_THRESHOLDS)
    gc.enable()
