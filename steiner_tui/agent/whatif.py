"""What-if thresholds for a running session: the engine's simulation with the runner's figures.

``what_if`` hands ``engine.whatif.simulate`` the session's recorded snapshots, the runner's own
estimate of a request over a conversation, and a summary writer: on the offline model its own
extractive summarizer, fed exactly the summary request a stage would send (so an offline
session's replay is exact); on any other model a stand-in text the size of the session's own
summaries (or half the normal summary cap before the first one). The session's own setting
(its threshold and mode) is not simulated: its result is the record (``observed``), so the
what-if view never shows two figures for how the session went.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from steiner_tui.agent.runner import Runner
from steiner_tui.engine.budget import CompactionMode, summary_max_tokens
from steiner_tui.engine.compaction.summary_request import compaction_instruction
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.whatif import (
    Summarize,
    WhatIf,
    WhatIfResult,
    observed,
    recorded_requests,
    simulate,
)
from steiner_tui.providers.offline import OfflineProvider, summarize_request

__all__ = ["what_if"]

_CHARS_PER_TOKEN = 4


def session_summarizer(runner: Runner) -> Summarize:
    """How a compaction of ``runner``'s session would summarize (module docstring)."""
    model = runner.model
    window, max_output = model.info.context_window, model.info.max_output

    if isinstance(model.provider, OfflineProvider):

        def offline(summarized: Sequence[Message], mode: CompactionMode) -> str:
            instruction = compaction_instruction(mode, "", "", None)
            assembled = runner.context.assemble((*summarized, Message("user", instruction)))
            request = ChatRequest(
                model=model.model,
                messages=assembled.messages,
                max_tokens=summary_max_tokens(mode, window, max_output),
                compaction=True,
            )
            return summarize_request(request)

        return offline

    summaries = [g.summary for g in runner.lineage.generations if g.summary]
    if summaries:
        size = sum(len(text) for text in summaries) // len(summaries)
    else:
        size = summary_max_tokens("normal", window, max_output) * _CHARS_PER_TOKEN // 2

    def stand_in(summarized: Sequence[Message], mode: CompactionMode) -> str:
        chars = size if mode == "normal" else size // 2
        return "summary " * max(1, chars // 8)

    return stand_in


def _history_note(runner: Runner) -> str:
    archive = runner.compactor.settings.archive
    if archive is None:
        return ""
    try:
        return archive.note(())
    except Exception:  # an archive that cannot give a note: summaries go without one
        return ""


def what_if(
    runner: Runner, snapshots: Sequence[RequestSnapshot], settings: Sequence[WhatIf]
) -> tuple[WhatIfResult, tuple[WhatIfResult, ...]]:
    """How ``runner``'s session went, and how it would have gone under each setting.

    Args:
        runner: the session's runner (its estimator, model and pins).
        snapshots: the session's recorded request snapshots, in order.
        settings: the thresholds and modes to try.

    Returns:
        ``(observed, results)``: the session as it went, and one result per setting.
    """
    requests = recorded_requests(snapshots)
    budget = runner.model.budget

    def estimate(messages: Sequence[Message]) -> int:
        return runner.prepare(messages).estimate.tokens

    summarize = session_summarizer(runner)
    note = _history_note(runner)
    pins = runner.lineage.pins
    went = observed(requests, budget, estimate)
    own = WhatIf(budget.soft_threshold, runner.compaction_mode)
    results = tuple(
        msgspec.structs.replace(went, setting=setting)
        if setting == own
        else simulate(
            requests,
            setting,
            budget=budget,
            estimate=estimate,
            summarize=summarize,
            pins=pins,
            history_note=note,
        )
        for setting in settings
    )
    return went, results
