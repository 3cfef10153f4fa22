"""Run the stages of one compaction attempt on one summary target.

The normal stage runs first; the emergency stage follows when the normal stage did not apply or
its result still needs compaction (main's soft trigger or hard limit), working on the normal
stage's result. Both stages share the target. The attempt's outcome counts the stages that
applied, the main estimates before and after, and keeps each applied stage's archive batch.

A main summary that retired the stateful backend transcript is reported in ``cleared`` even when
nothing applied; an error raised by a later stage after such a clear is marked so that
``provider.is_backend_state_retired`` reports it (text and chain unchanged).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from steiner_tui.engine.budget import CompactionMode
from steiner_tui.engine.compaction.escalation import compaction_health
from steiner_tui.engine.compaction.stage import StageInputs, summarize_compaction_stage
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message

__all__ = ["StagesResult", "mark_backend_state_retired", "run_stages"]


@dataclass(frozen=True, slots=True)
class StagesResult:
    """An attempt's outcome (no fallback fields yet) and the next generation's content."""

    outcome: CompactionOutcome
    messages: tuple[Message, ...] = ()
    summary: str = ""
    cleared: bool = False


def mark_backend_state_retired(error: BaseException, retired: bool = True) -> None:
    """Set (or hide) the retirement marker that ``provider.is_backend_state_retired`` reads."""
    with contextlib.suppress(AttributeError, TypeError):  # exceptions without a __dict__
        object.__setattr__(error, "backend_state_retired", retired)


async def run_stages(
    messages: tuple[Message, ...],
    inputs: StageInputs,
    *,
    clock: Callable[[], datetime],
    prior_stages: int = 0,
    manual: bool = False,
) -> StagesResult:
    """Run normal, then emergency when needed, over the active generation's ``messages``.

    Returns:
        The attempt's result; ``outcome.applied`` is False when no stage applied.
    """
    main, host = inputs.main, inputs.host
    before = host.estimate_conversation(messages)
    working: tuple[Message, ...] = messages
    origins: tuple[Message | None, ...] = messages
    modes: list[CompactionMode] = []
    batches: list[tuple[Message, ...]] = []
    summarized = 0
    summary = ""
    cleared = False
    after = before
    for mode in ("normal", "emergency"):
        # The resulting state must pass main's soft trigger and its hard fit (prompt plus
        # completion reserve plus margin); otherwise the emergency stage runs on it.
        settled = not main.budget.should_compact(after) and main.budget.fit_request(after).fits
        if mode == "emergency" and modes and settled:
            break
        try:
            stage = await summarize_compaction_stage(inputs, mode, working, origins)
        except BaseException as err:
            if cleared:
                mark_backend_state_retired(err)
            raise
        cleared = cleared or stage.cleared
        if not stage.applied:
            continue
        modes.append(mode)
        working, origins, summary = stage.messages, stage.origins, stage.summary
        summarized += len(stage.sources)
        if stage.archived:
            batches.append(stage.sources)
        after = host.estimate_conversation(working)
    outcome = CompactionOutcome(
        applied=bool(modes),
        stage_count=len(modes),
        modes=tuple(modes),
        before_tokens=before,
        after_tokens=after,
        summary_model=inputs.target.ref if modes else "",
        backend_state_cleared=cleared,
        at=clock(),
        summarized_count=summarized,
        retained_count=sum(1 for origin in origins if origin is not None) if modes else 0,
        steering=inputs.steering,
        manual=manual,
        summary=summary,
        pending_archive=tuple(batches),
    )
    if modes:
        total = prior_stages + len(modes)
        outcome = replace(outcome, health=compaction_health(total, after, main.budget.hard_limit))
    return StagesResult(outcome, working if modes else (), summary, cleared)
