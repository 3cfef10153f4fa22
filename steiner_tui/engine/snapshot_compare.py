"""Comparing two request snapshots: how much of the earlier message prefix the later one repeats.

The provider's prompt cache helps only up to the first message whose hash differs, so the context
report and the request inspector show where that is and which source changed there. Only they
need it: ``snapshots`` re-exports these names lazily (PEP 562), so that the snapshot store,
built at start-up, does not create this dataclass (about a millisecond each).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from steiner_tui.engine.prompt.blocks import block_message_indexes
from steiner_tui.engine.prompt.sources import ContextSource

if TYPE_CHECKING:
    from steiner_tui.engine.events import RequestSnapshot

__all__ = ["PrefixStability", "prefix_stability"]


@dataclass(frozen=True, slots=True)
class PrefixStability:
    """How much of request ``a``'s message prefix survives in a later request ``b``.

    ``matching`` leading hashes are equal; ``first_broken`` is the first index of ``a`` that
    ``b`` does not repeat (None when ``b`` keeps all of ``a``), and ``broken_source`` names what
    changed there: a block source when the message came from blocks, else ``conversation``.
    """

    matching: int
    first_broken: int | None
    broken_source: str = ""

    @property
    def stable(self) -> bool:
        return self.first_broken is None


def _message_source(snapshot: RequestSnapshot, other: RequestSnapshot, index: int) -> str:
    if index >= snapshot.block_message_count:
        return str(ContextSource.CONVERSATION)
    placed = block_message_indexes(snapshot.blocks)
    candidates = [b for b, i in zip(snapshot.blocks, placed, strict=True) if i == index]
    if not candidates:
        return str(ContextSource.CONVERSATION)
    previous = {(b.source, b.path): b.content for b in other.blocks}
    for block in candidates:
        if previous.get((block.source, block.path)) != block.content:
            return block.source
    return candidates[0].source


def prefix_stability(a: RequestSnapshot, b: RequestSnapshot) -> PrefixStability:
    """Compare the message hashes of request ``a`` with a later request ``b``."""
    matching = 0
    for left, right in zip(a.message_hashes, b.message_hashes, strict=False):
        if left != right:
            break
        matching += 1
    if matching == len(a.message_hashes):
        return PrefixStability(matching, None)
    source_snapshot, other = (b, a) if matching < len(b.message_hashes) else (a, b)
    return PrefixStability(matching, matching, _message_source(source_snapshot, other, matching))
