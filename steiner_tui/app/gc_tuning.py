"""Garbage-collector settings for the interactive app: fewer, shorter pauses while it runs.

Textual allocates many short-lived objects per frame (strips, segments, their caches), so the
default thresholds run a full (generation 2) collection every few hundred frames. With a long
conversation loaded that pause reaches 100-150 ms, a visible hitch on a key press. Freezing
what exists at start-up (modules, classes, the loaded conversation) takes it out of every later
collection, and a higher first threshold makes collections rarer. Only the app command asks for
this, once its start-up is over (session open, panels filled), and the UI benchmark, to measure
what users run; tests keep the defaults.
"""

from __future__ import annotations

import gc

__all__ = ["UI_GC_THRESHOLDS", "tune_gc_for_ui"]

UI_GC_THRESHOLDS = (20_000, 50, 100)
"""Generation thresholds while the UI runs (CPython's defaults are 700, 10, 10)."""


def tune_gc_for_ui() -> None:
    """Freeze the objects alive now, raise the collection thresholds, turn the collector on.

    The app command turns the collector off for its start-up; this turns it back on.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*UI_GC_THRESHOLDS)
    gc.enable()
