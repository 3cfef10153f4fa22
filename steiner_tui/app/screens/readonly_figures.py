"""The context panel's figures for a capture or an import, from what was recorded.

The context panel (``BudgetPanel``) and its tokens-per-request chart (``RequestChart``) show a
``BudgetView``. For a capture it is built like the workbench's own (``build_budget_view``) from
the latest captured request's snapshot, with the capture's chart rows (``capture.figures``) as
its history and the engine's ranking of the request's tool results, and Claude Code's own
compaction point when its requests name it (as an import's, below); for an import, which holds
no request bodies, it carries only the agent's own window and compaction point
(``importers.window``: what the transcript records, else the agent's rule, saying which) and
the chart rows (``importers.figures``).

The window is the model's (``capture.figures.model_window``). When the model is not known the
view says "window unknown" in its heading and notes, and the window figures are the largest
request seen, marked ``known=False``: the chart is drawn to that scale and no soft or hard
line claims a limit nobody knows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.app.budget_view import (
    BudgetView,
    MoneyFigures,
    WindowFigures,
    build_budget_view,
)
from steiner_tui.capture.figures import (
    is_compaction_call,
    model_window,
    request_costs,
    request_summaries,
)
from steiner_tui.capture.report import CapturedRequest
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.events import RequestSnapshot, UsageReported
from steiner_tui.engine.prices import (
    FREE,
    NO_OVERRIDES,
    ZERO_COST,
    PriceOverrides,
    RequestCost,
    price_for,
)
from steiner_tui.engine.snapshots import RequestSummary
from steiner_tui.importers.ranking import rank_results
from steiner_tui.importers.window import AgentWindow, agent_window
from steiner_tui.units import count

__all__ = [
    "capture_budget_view",
    "import_chart_view",
    "import_window",
    "latest_main",
    "usage_events",
    "window_label",
]

AGENT_COMPACTION = "the agent's own"
"""The compaction mode shown: the agent decides when it compacts, not steiner."""


def _unknown_window(used: int, largest: int) -> WindowFigures:
    scale = max(largest, used, 1)
    return WindowFigures(scale, used, 0, scale, scale, known=False)


def latest_main(requests: Sequence[CapturedRequest]) -> int:
    """The position of the latest request that is not the agent's summary call (-1: none)."""
    for position in range(len(requests) - 1, -1, -1):
        if not is_compaction_call(requests[position].decoded):
            return position
    return len(requests) - 1


def usage_events(
    requests: Sequence[CapturedRequest],
    snapshots: Sequence[RequestSnapshot],
    prices: PriceOverrides,
) -> list[UsageReported | None]:
    """Each captured request's reported usage as the workbench records a reply's (None: its
    reply has not ended): the estimate is the reported context itself, so the drift is 0;
    with its cost, the capture's total up to it and its cache cause (``request_costs``)."""
    out: list[UsageReported | None] = []
    total: RequestCost | None = ZERO_COST
    for request, snapshot, figures in zip(
        requests, snapshots, request_costs(requests, prices), strict=True
    ):
        usage = request.usage
        if usage is None or figures is None:
            out.append(None)
            continue
        cost, cache = figures
        total = None if total is None or cost is None else total + cost
        out.append(
            UsageReported(
                model=snapshot.model,
                prompt_tokens=usage.context_tokens,
                completion_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_creation_tokens,
                estimated_prompt_tokens=snapshot.estimated_prompt_tokens,
                request_id=snapshot.request_id,
                cost_usd=cost.total_usd if cost is not None else None,
                cost=cost,
                session_cost_usd=total.total_usd if total is not None else None,
                session_cost=total,
                cache=cache,
            )
        )
    return out


_CLAUDE_CODE = b"x-anthropic-billing-header: cc_version="
"""The first system block of a Claude Code request (2.1.x)."""


def capture_budget_view(
    requests: Sequence[CapturedRequest],
    snapshots: Sequence[RequestSnapshot],
    position: int,
    prices: PriceOverrides = NO_OVERRIDES,
) -> BudgetView:
    """The panel's figures for the captured request at ``position`` (priced with the config's
    ``prices`` for its model id, else the table)."""
    snapshot = snapshots[position]
    window = model_window(snapshot.model)
    history = request_summaries(requests, window, prices)
    largest = max((row.estimated_prompt_tokens for row in history), default=0)
    # Claude Code names itself in its first system block; it compacts by its own rule.
    claude_code = _CLAUDE_CODE in requests[position].recorded.body
    trigger = agent_window("claude-code", snapshot.model).trigger if claude_code else 0
    budget = ModelTokenBudget(
        window.tokens or max(largest, 1), snapshot.max_tokens or 0, threshold_tokens=trigger or None
    )
    results = [(r.tool, r.target, r.bytes) for r in requests[position].decoded.tool_results]
    # Each result costs its bytes' share of the reported context, as the source rows do.
    per_byte = snapshot.raw_prompt_tokens / max(sum(s.bytes for s in snapshot.sources), 1)
    reported = usage_events(requests[: position + 1], snapshots[: position + 1], prices)[-1]
    usage = (snapshot.index, reported) if reported is not None else None
    priced = price_for(snapshot.model, overrides=prices)
    money = None
    if priced != FREE:
        index, reported = usage if usage is not None else (0, None)
        money = MoneyFigures(snapshot.model, priced is not None, index, reported)
    view = build_budget_view(
        snapshot,
        budget=budget,
        project_root=Path("/"),
        previous=snapshots[position - 1] if position else None,
        usage=usage,
        money=money,
        compactions=sum(row.compaction for row in history),
        window_origin=window.origin,
        compaction_mode=AGENT_COMPACTION,
        top=rank_results(results, per_byte),
        history=history,
    )
    if window.known:
        # The agent's limits, not steiner's, as an import draws them (``import_chart_view``):
        # its window is the hard line (no safety margin of ours), its own compaction point the
        # soft one, the window where that point is not known (not our 70%).
        # A request that sets no reply limit (Codex's) may get the model's largest reply: that
        # much of the window is not the prompt's (gpt-5's 400,000 leave 272,000 to it).
        limits = msgspec.structs.replace(
            view.window,
            reserve=snapshot.max_tokens or window.max_output,
            soft_threshold=trigger or window.tokens,
            hard_limit=window.tokens,
        )
        return msgspec.structs.replace(view, window=limits)
    return msgspec.structs.replace(
        view,
        heading=f"{view.heading} · window unknown",
        window=_unknown_window(snapshot.estimated_prompt_tokens, largest),
    )


def import_window(session: Mapping[str, Any]) -> AgentWindow:
    """An imported session's window as the import saved it (an import saved before windows
    were kept: the agent's rule for its latest model)."""
    saved = AgentWindow.from_json(session.get("window"))
    if saved is not None:
        return saved
    requests = session.get("requests") or []
    model = str(requests[-1].get("model") or "") if requests else ""
    return agent_window(str(session.get("source", "")), model)


def window_label(window: AgentWindow) -> str:
    """``window 200,000 (…) · compacts at 167,000 (…)``, or why the window is unknown."""
    if not window.tokens:
        return window.source
    label = f"window {count(window.tokens)} ({window.source})"
    if window.trigger:
        label += f" · compacts at {count(window.trigger)} ({window.trigger_source})"
    return label


def import_chart_view(history: Sequence[RequestSummary], window: AgentWindow) -> BudgetView:
    """A view that carries only an import's window and chart rows (for ``RequestChart``): the
    agent's window as the hard line, its compaction point (the window when not known) as the
    soft one."""
    mains = [row for row in history if not row.compaction]
    used = mains[-1].estimated_prompt_tokens if mains else 0
    largest = max((row.estimated_prompt_tokens for row in history), default=0)
    if window.tokens:
        soft = window.trigger or window.tokens
        figures = WindowFigures(window.tokens, used, 0, soft, window.tokens)
    else:
        scale = max(largest, used, 1)
        figures = WindowFigures(scale, used, 0, scale, scale, known=False)
    return BudgetView(
        heading="imported" if window.tokens else "imported · window unknown",
        preview=False,
        rows=(),
        window=figures,
        estimate_tokens=used,
        strategy="reported by the agent",
        confidence="exact",
        window_origin=window_label(window),
        compaction_mode=AGENT_COMPACTION,
        history=tuple(history),
    )
