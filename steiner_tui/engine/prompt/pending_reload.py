"""A change on disk that waits for the next compaction, and what reloading it now would cost.

A static partition whose files changed is not reloaded mid-session by itself (see
``static_cache``): the new bytes would break the cached prefix of every later request. The
person sees the change as pending, with its cost, and may reload at once. The cost is the
prompt tokens the provider has cached that a reload makes it read again: everything from the
first message the changed partition contributes to (or would contribute to) up to the end of
the last request sent. AGENTS.md merges into the first system message, so changing it re-sends
the whole prompt; a project-context file re-sends from its user block on.

(docs/design.md, "1. Sources and the assembly plan")
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from types import MappingProxyType
from typing import Final

import msgspec

from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import ModelPrice, format_usd, usd
from steiner_tui.engine.prompt.blocks import block_message_indexes
from steiner_tui.engine.prompt.sources import SOURCE_PLAN, ContextSource, role_for
from steiner_tui.engine.prompt.static_cache import StaticPartition

__all__ = [
    "PendingReload",
    "partitions_label",
    "pending_reload",
    "reload_break_index",
]

PARTITION_SOURCES: Final = MappingProxyType(
    {
        StaticPartition.AGENTS: (ContextSource.GLOBAL_AGENTS_MD, ContextSource.PROJECT_AGENTS_MD),
        StaticPartition.PROJECT_CONTEXT: (ContextSource.PROJECT_CONTEXT,),
        StaticPartition.SKILLS: (ContextSource.SKILL,),
    }
)
"""The block sources each partition supplies."""

PARTITION_LABELS: Final = MappingProxyType(
    {
        StaticPartition.AGENTS: "AGENTS.md",
        StaticPartition.PROJECT_CONTEXT: "project context",
        StaticPartition.SKILLS: "skills",
    }
)
"""How a partition is named to people."""

_PLAN_ORDER = {source: step.step for step in SOURCE_PLAN for source in step.sources}


class PendingReload(msgspec.Struct, frozen=True):
    """Changed partitions waiting for the next compaction, and the cost of reloading now.

    Attributes:
        partitions: the changed partitions, in plan order.
        break_index: the first message of the last request a reload changes (None: no request
            was sent, so nothing is cached).
        resent_tokens: the cached prompt tokens a reload now would make the provider read again.
    """

    partitions: tuple[StaticPartition, ...]
    break_index: int | None = None
    resent_tokens: int = 0
    resent_usd: float | None = None
    """What writing ``resent_tokens`` to the cache again costs (None: no price known)."""
    earlier_run: bool = False
    """No request was sent in this run, but a resumed session's earlier run sent to this model:
    its prefix may still be cached, at a cost this run cannot count."""

    @property
    def cached(self) -> bool:
        """Whether reloading now may re-send a cached prefix (a request was sent, here or, to
        this model, in the resumed session's earlier run)."""
        return self.break_index is not None or self.earlier_run

    @property
    def label(self) -> str:
        """``AGENTS.md``, ``AGENTS.md and project context``..."""
        return partitions_label(self.partitions)

    @property
    def _dollars(self) -> str:
        # A free model (offline, local) and an unpriced one add nothing; the panel says which.
        return f" ≈ {format_usd(self.resent_usd)}" if self.resent_usd else ""

    @property
    def short(self) -> str:
        """The status line's form of ``notice``."""
        cost = (
            f"~{self.resent_tokens:,} tok re-sent{self._dollars}"
            if self.break_index is not None
            else "the earlier run's cache re-sent"
            if self.earlier_run
            else "free"
        )
        return f"{self.label} changed: next compaction applies it · reload now: {cost}"

    @property
    def notice(self) -> str:
        """One line saying what changed, when it applies, and the cost of applying it now."""
        cost = (
            f"reloading now re-sends ~{self.resent_tokens:,} cached tokens{self._dollars}"
            if self.break_index is not None
            else "reloading now re-sends what the resumed session's earlier run cached"
            if self.earlier_run
            else "nothing is cached yet"
        )
        return (
            f"{self.label} changed on disk: applies at the next compaction, or reload now ({cost})"
        )


def partitions_label(partitions: Iterable[StaticPartition]) -> str:
    """How some partitions are named to people, in plan order: ``AGENTS.md and project
    context``."""
    names = [PARTITION_LABELS[p] for p in sorted(partitions, key=_partition_order)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def reload_break_index(snapshot: RequestSnapshot, partitions: Iterable[StaticPartition]) -> int:
    """The first message of ``snapshot`` that reloading ``partitions`` would change.

    A partition with blocks in the request changes the message holding its first block. One
    without (a file that did not exist) would add a block where its sources come in the plan:
    into the message before it when the roles match (blocks of one role merge), otherwise into
    the message of the first later block, or at the start of the conversation.

    Args:
        snapshot: the last request sent.
        partitions: the changed partitions.

    Returns:
        The message index (``block_message_count`` when only the conversation is reached).
    """
    sources = {str(s) for p in partitions for s in PARTITION_SOURCES[StaticPartition(p)]}
    if not sources:
        return len(snapshot.messages)
    indexes = block_message_indexes(snapshot.blocks)
    placed = [
        (block, index) for block, index in zip(snapshot.blocks, indexes, strict=True) if index >= 0
    ]
    hit = [index for block, index in placed if block.source in sources]
    if hit:
        return min(hit)
    first = min(sources, key=lambda s: _PLAN_ORDER[ContextSource(s)])
    step = _PLAN_ORDER[ContextSource(first)]
    earlier = [(b, i) for b, i in placed if _PLAN_ORDER.get(ContextSource(b.source), 0) < step]
    if earlier and earlier[-1][0].role == role_for(first):
        return earlier[-1][1]  # it would merge into the message before it
    later = [i for b, i in placed if _PLAN_ORDER.get(ContextSource(b.source), 0) > step]
    return min(later) if later else snapshot.block_message_count


def pending_reload(
    partitions: Iterable[StaticPartition],
    snapshot: RequestSnapshot | None,
    count_tokens: Callable[[Sequence[Message]], int],
    price: ModelPrice | None = None,
    *,
    earlier_run: bool = False,
) -> PendingReload | None:
    """The pending change and its cost (None when nothing is pending).

    Args:
        partitions: the changed partitions not yet applied.
        snapshot: the last request sent (None: none yet).
        count_tokens: the calibrated prompt tokens of some messages on the session's model.
        price: the model's price (the re-sent tokens at its cache-write price; None: unknown).
        earlier_run: with no ``snapshot``, a resumed session's earlier run sent to this model.

    Returns:
        The pending reload, or None.
    """
    pending = tuple(sorted({StaticPartition(p) for p in partitions}, key=_partition_order))
    if not pending:
        return None
    if snapshot is None:
        return PendingReload(pending, earlier_run=earlier_run)
    index = reload_break_index(snapshot, pending)
    tail = snapshot.messages[index:]
    tokens = count_tokens(tail) if tail else 0
    return PendingReload(
        pending, index, tokens, None if price is None else usd(tokens, price.write)
    )


def _partition_order(partition: StaticPartition) -> int:
    return min(_PLAN_ORDER[s] for s in PARTITION_SOURCES[partition])
