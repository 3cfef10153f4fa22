"""The context-budget panel's figures, read from one request snapshot.

Everything comes from the snapshot (its per-source figures, estimate, reserve) and from what the
engine reported (usage, calibration, health, lineage); nothing about the request is counted or
split here. The engine computed each source's bytes and raw tokens when it built the snapshot
(``engine.source_counts.SourceCounter``: blocks, the skill envelopes carried in the conversation,
the rest of the conversation, the tool definitions); this module names them and merges the
rows that share a name. Row tokens are raw tokenizer counts and add up to the raw estimate; the
calibrated estimate is shown beside them.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from steiner_tui.capture.figures import source_name
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.cache_causes import CacheEffect
from steiner_tui.engine.compaction.stateful import ParentUsage
from steiner_tui.engine.costs import CostItem, PinnedShare
from steiner_tui.engine.events import (
    CacheExplanation,
    HealthEvent,
    RequestSnapshot,
    SourceTokens,
    UsageReported,
)
from steiner_tui.engine.prompt.sources import ContextSource, label_of, spec_of
from steiner_tui.engine.snapshots import PrefixStability, RequestSummary
from steiner_tui.engine.window_doctor import WindowDoctor
from steiner_tui.sessions.earlier_requests import InspectedRequest, request_stability

__all__ = [
    "BudgetView",
    "MoneyFigures",
    "DriftFigures",
    "SourceRow",
    "WindowFigures",
    "build_budget_view",
    "source_label",
    "sources_label",
]


class SourceRow(msgspec.Struct, frozen=True):
    """One source of the request: bytes, raw tokens, share of all rows' tokens."""

    label: str
    source: str
    bytes: int
    tokens: int
    share: float = 0.0
    truncated: bool = False


class WindowFigures(msgspec.Struct, frozen=True):
    """The model window against this request."""

    context_size: int
    used: int
    reserve: int
    soft_threshold: int
    hard_limit: int
    known: bool = True
    """Whether the window is the model's (False: a capture's or an import's model that is not
    in the model table; the figures are then the largest request seen, a scale only, and no
    soft or hard line is drawn)."""
    guessed: bool = False
    """The window is the default guess: no configuration, server or model table says it (a
    local server that does not report its window, a model not in the table)."""
    stateful: bool = False
    """A stateful provider: ``used`` is the usage it reported for the last parent response and
    ``soft_threshold`` the trigger that usage is compared with (the floor's when armed)."""
    floor: int = 0
    """A stateful provider's armed floor (0: not armed)."""
    cap: int = 0
    """A stateful provider's cap (90% of the window): reaching it stops the next run."""


class DriftFigures(msgspec.Struct, frozen=True):
    """The estimate against what the provider reported for request ``request_index``."""

    request_index: int
    estimated: int
    reported: int

    @property
    def percent(self) -> float:
        """How far the estimate was from the reported count (positive: over)."""
        return (self.estimated - self.reported) * 100 / self.reported if self.reported else 0.0


class MoneyFigures(msgspec.Struct, frozen=True):
    """What the session's requests cost and what the provider's cache holds of them.

    ``usage`` is the latest reported usage (its cost, the session's total, its cache cause;
    ``request_index`` the request it belongs to); ``next_cache`` what the next request would
    do to the cache (the dry run, estimated from its bytes); ``cache_left_seconds`` how long
    the cached prefix lives on if nothing is sent (negative: expired that long ago; None: no
    request yet or no TTL known); ``priced`` whether the model has a price, ``free`` whether
    that price is nothing (a local server: its cache is shown, costs are not).
    """

    model: str
    priced: bool
    request_index: int = 0
    usage: UsageReported | None = None
    next_cache: CacheExplanation | None = None
    cache_left_seconds: float | None = None
    ttl_seconds: int | None = None
    actions: tuple[tuple[str, CacheEffect], ...] = ()
    """What each action would do to the cache now, before it is taken (``/compact``...)."""
    free: bool = False


class BudgetView(msgspec.Struct, frozen=True):
    """Everything the panel shows for one request."""

    heading: str
    preview: bool
    rows: tuple[SourceRow, ...]
    window: WindowFigures
    estimate_tokens: int
    strategy: str
    confidence: str
    calibration_samples: int = 0
    calibration_factor: float = 1.0
    tokenizer: str = ""
    """The encoding the estimate counts with (``ctok-v4.8``, ``o200k_base``...; empty: unknown)."""
    drift: DriftFigures | None = None
    prefix: PrefixStability | None = None
    prefix_total: int = 0
    compactions: int = 0
    health: HealthEvent | None = None
    window_origin: str = ""
    """Where the window figure came from (``config``, ``llama.cpp server``, ``registry``...)."""
    window_doctor: WindowDoctor | None = None
    """Every window figure of the model and whether the soft trigger can be reached."""
    tools_ignored: bool = False
    """The model's server drops tool definitions, so none are sent or counted."""
    compaction_mode: str = "auto"
    """Whether compaction runs by itself (``auto``), asks first (``ask``) or not (``off``)."""
    top: tuple[CostItem, ...] = ()
    """What the request holds, largest first (the engine's ``rank_request``)."""
    project_root: Path | None = None
    """The project (the ranking shows paths under it relative to it)."""
    fits: bool = True
    """Whether the request fits the window (the engine's hard fit; False: over the window)."""
    overflow_tokens: int = 0
    """Tokens over the window when it does not fit."""
    history: tuple[RequestSummary, ...] = ()
    """The session's latest requests, oldest first (the panel's chart), as the store has them."""
    money: MoneyFigures | None = None
    """Costs and the cache's state (None: a free model, local or offline: nothing to say)."""

    def row(self, label: str) -> SourceRow | None:
        """The row called ``label``, if present."""
        return next((r for r in self.rows if r.label == label), None)


def source_label(row: SourceTokens, root: Path) -> str:
    """The panel's name for a source: ``preamble``, ``context · NOTES.md``, ``skill · name``..."""
    if row.source == ContextSource.PROJECT_CONTEXT:
        path = Path(row.path)
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        return f"context · {name}"
    if row.source == ContextSource.SKILL and (row.name or row.path):
        return f"skill · {row.name or Path(row.path).parent.name}"
    return label_of(row.source)


def sources_label(source: str) -> str:
    """How a block's or message's ``source`` reads to a person: the panel's label of each
    source merged into it (``preamble+project_agents_md``: ``preamble + project AGENTS.md``),
    a captured request's sources as its panel names them."""
    return " + ".join(
        spec.label if (spec := spec_of(part)) is not None else source_name(part)
        for part in source.split("+")
    )


PINNED_SOURCE = "pinned"
"""The source of the panel's row for the pinned messages (carved out of the conversation)."""


def _carve_pinned(rows: _Rows, pinned: PinnedShare) -> None:
    """Move the pinned messages out of the conversation row into a row of their own."""
    conversation = rows.rows.get(label_of(ContextSource.CONVERSATION))
    if not pinned.count or conversation is None:
        return
    moved_bytes = min(pinned.bytes, conversation.bytes)
    moved_tokens = min(pinned.tokens, conversation.tokens)
    conversation.bytes -= moved_bytes
    conversation.tokens -= moved_tokens
    rows.add(f"pinned ({pinned.count})", PINNED_SOURCE, moved_bytes, moved_tokens, False)


class _Acc(msgspec.Struct):
    source: str
    bytes: int = 0
    tokens: int = 0
    truncated: bool = False


class _Rows:
    """Rows merged by label, in first-seen order."""

    def __init__(self) -> None:
        self.rows: dict[str, _Acc] = {}

    def add(self, label: str, source: str, size: int, tokens: int, truncated: bool) -> None:
        acc = self.rows.setdefault(label, _Acc(str(source)))
        acc.bytes += size
        acc.tokens += tokens
        acc.truncated = acc.truncated or truncated

    def build(self) -> tuple[SourceRow, ...]:
        total = sum(acc.tokens for acc in self.rows.values()) or 1
        return tuple(
            SourceRow(label, a.source, a.bytes, a.tokens, a.tokens / total, a.truncated)
            for label, a in self.rows.items()
        )


def build_budget_view(
    snapshot: RequestSnapshot,
    *,
    budget: ModelTokenBudget,
    project_root: Path,
    preview: bool = False,
    previous: InspectedRequest | None = None,
    usage: tuple[int, UsageReported] | None = None,
    calibration: tuple[int, float] = (0, 1.0),
    tokenizer: str = "",
    compactions: int = 0,
    health: HealthEvent | None = None,
    window_origin: str = "",
    window_doctor: WindowDoctor | None = None,
    tools_ignored: bool = False,
    pinned: PinnedShare | None = None,
    compaction_mode: str = "auto",
    top: tuple[CostItem, ...] = (),
    history: tuple[RequestSummary, ...] = (),
    stateful: ParentUsage | None = None,
    money: MoneyFigures | None = None,
) -> BudgetView:
    """The panel's figures for ``snapshot`` (the dry run of the next request when
    ``preview``). The arguments named as a ``BudgetView`` field are that field; besides them:

    Args:
        budget: the main model's budget (window, soft threshold, hard limit).
        previous: the request before it, for cache-prefix stability (a resumed session's
            first request after the resume: the log's last main request).
        usage: ``(request index, usage)`` of the latest reported usage.
        calibration: ``(samples, factor)`` of the estimator's calibration for the model.
        pinned: what the pinned messages take (the engine's ``pinned_share``): their own row.
        stateful: a stateful provider's parent usage: what decides compaction there is its
            reported usage against its trigger (floor + 10% when armed), not the estimate.
    """
    rows = _Rows()
    for source in snapshot.sources:
        label = source_label(source, project_root)
        rows.add(label, source.source, source.bytes, source.tokens, source.truncated)
    if pinned is not None:
        _carve_pinned(rows, pinned)
    drift = None
    if usage is not None:
        index, reported = usage
        drift = DriftFigures(index, reported.estimated_prompt_tokens, reported.prompt_tokens)
    stability = request_stability(previous, snapshot) if previous is not None else None
    return BudgetView(
        heading="next request · dry run" if preview else f"request #{snapshot.index}",
        preview=preview,
        rows=rows.build(),
        window=_window(snapshot, budget, stateful, guessed=window_origin == "default"),
        estimate_tokens=snapshot.estimated_prompt_tokens,
        strategy=snapshot.estimate_strategy,
        confidence=snapshot.estimate_confidence,
        calibration_samples=calibration[0],
        calibration_factor=calibration[1],
        tokenizer=tokenizer,
        drift=drift,
        prefix=stability,
        prefix_total=len(previous.message_hashes) if previous is not None else 0,
        compactions=compactions,
        health=health,
        window_origin=window_origin,
        window_doctor=window_doctor,
        tools_ignored=tools_ignored,
        compaction_mode=compaction_mode,
        top=top,
        project_root=project_root,
        fits=snapshot.fits,
        overflow_tokens=snapshot.overflow_tokens,
        history=history,
        money=money,
    )


def _window(
    snapshot: RequestSnapshot,
    budget: ModelTokenBudget,
    stateful: ParentUsage | None,
    *,
    guessed: bool,
) -> WindowFigures:
    if stateful is None:
        return WindowFigures(
            budget.context_size,
            snapshot.estimated_prompt_tokens,
            snapshot.max_tokens,
            budget.soft_threshold,
            budget.hard_limit,
            guessed=guessed,
        )
    return WindowFigures(
        budget.context_size,
        stateful.prompt_tokens,
        snapshot.max_tokens,
        stateful.soft_trigger,
        budget.hard_limit,
        guessed=guessed,
        stateful=True,
        floor=stateful.floor,
        cap=stateful.cap_tokens,
    )
