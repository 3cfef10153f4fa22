"""Pausing the cyclic garbage collector while a burst of long-lived objects is made.

Importing the workbench or loading a long session log makes tens of thousands of objects that
outlive the burst, and no reference cycles worth collecting. Collecting meanwhile frees nothing
and walks the same objects again at every full collection: a tenth to a quarter of the burst's
time. One context manager does it for every such burst, and puts the collector back as it was
(a collector the embedding program disabled stays disabled).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off inside the block; on again after it (also when it raises)
    only when it was on before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
