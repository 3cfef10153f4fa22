"""Run the stages of one compaction attempt on one summary target.

The normal stage runs first; the emergency stage follows when the normal stage did not apply or
its result still needs compaction (main's soft trigger or hard limit), working on the normal
stage's result. Both stages share the target. The attempt's outcome counts the stages that
applied, the main estimates before and after, and keeps each applied stage's archive batch.

A main summary that retired the stateful backend transcript is reported in ``cleared`` even when
nothing applied. A retiring summary request counts as retired from the moment it is handed to
the host (``RetirementSignal``), so a failed or cancelled call whose end event never came is
still reported; and once a stage retired the transcript, a later stage sends no backend state.
Any error of the attempt is raised as ``CompactionFailed`` (or, for a cancelled task,
``CompactionCancelled``) whose ``backend_state_retired`` says whether the transcript was retired
first: by an earlier stage's summary, or by the failing call itself (``failures``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

import msgspec

from steiner_tui.engine.budget import CompactionMode
from steiner_tui.engine.compaction.escalation import (
    compaction_health,
    ineffective_note,
    noted_health,
)
from steiner_tui.engine.compaction.failures import (
    CompactionCancelled,
    CompactionFailed,
    is_cancellation,
)
from steiner_tui.engine.compaction.pins import is_pinned_by
from steiner_tui.engine.compaction.room import Sizer, fit_retained_tail, mask_retained
from steiner_tui.engine.compaction.stage import (
    RetirementSignal,
    StageInputs,
    summarize_compaction_stage,
    tail_budget,
)
from steiner_tui.engine.events import CompactionOutcome, RoomEdit
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import is_backend_state_retired

__all__ = ["StagesResult", "run_stages"]


class StagesResult(msgspec.Struct, frozen=True):
    """An attempt's outcome (no fallback fields yet), the next generation's content and, per
    applied stage, the source messages to archive once the new state is adopted."""

    outcome: CompactionOutcome
    messages: tuple[Message, ...] = ()
    summary: str = ""
    cleared: bool = False
    pending_archive: tuple[tuple[Message, ...], ...] = ()


async def run_stages(
    messages: tuple[Message, ...],
    inputs: StageInputs,
    *,
    clock: Callable[[], datetime],
    prior_stages: int = 0,
    manual: bool = False,
    trigger: str = "",
) -> StagesResult:
    """Run normal, then emergency when needed, over the active generation's ``messages``.

    Returns:
        The attempt's result; ``outcome.applied`` is False when no stage applied.

    Raises:
        CompactionFailed: a stage failed (its summary call included).
        CompactionCancelled: the task was cancelled during a stage.
    """
    main, host = inputs.main, inputs.host
    modes: list[CompactionMode] = []
    batches: list[tuple[Message, ...]] = []
    edits: list[RoomEdit] = []
    summarized = 0
    summary = ""
    cleared = False
    notes: list[str] = []
    rejected = False
    signal = RetirementSignal()
    try:
        before = await asyncio.to_thread(host.estimate_conversation, messages)
        working: tuple[Message, ...] = messages
        origins: tuple[Message | None, ...] = messages
        after = before
        # A stateful main decides from reported usage, and a manual compaction is the
        # person's own: both settle at the soft trigger, as before.
        relieve = not (manual or main.stateful)
        target = main.budget.relief_target if relieve else main.budget.soft_threshold - 1
        for mode in ("normal", "emergency"):
            # The resulting state must leave real room (at most ``relief_target``, well under
            # main's soft trigger) and pass the hard fit; otherwise the emergency stage runs.
            # Over the target but well under the trigger, a compaction that freed a fair share
            # settles: the emergency stage keeps one turn, too high a price for the rest.
            fair = not ineffective_note(before, after) and not main.budget.should_compact(after)
            settled = (after <= target or fair) and main.budget.fit_request(after).fits
            if mode == "emergency" and modes and settled:
                break
            stage = await summarize_compaction_stage(inputs, mode, working, origins, after, signal)
            cleared = cleared or stage.cleared
            if cleared and inputs.backend_state is not None:
                # A later stage never sends an id an earlier one retired.
                inputs = msgspec.structs.replace(inputs, backend_state=None)
            if stage.rejected:
                notes.append(f"{mode} summary rejected: {stage.rejected}")
                rejected = True
            elif stage.skipped:
                notes.append(f"{mode} stage: {stage.skipped}")
            if not stage.applied:
                continue
            modes.append(mode)
            edits.extend(stage.edits)
            working, origins = stage.messages, stage.origins
            summary = stage.summary or summary
            summarized += len(stage.sources)
            if stage.archived:
                batches.append(stage.sources)
            after = stage.tokens
            if relieve and after > target:
                # Before escalating: the largest retained tool results give way first.
                working, masked, after = await asyncio.to_thread(
                    _relieve, inputs, working, after, target
                )
                if masked:
                    edits.extend(masked)
                    results = "result" if len(masked) == 1 else "results"
                    notes.append(f"{len(masked)} retained tool {results} masked to leave room")
        masked_only = False
        if not modes and rejected and not main.stateful:
            # Every summary was rejected: the largest tool results give way instead; and when
            # that cannot make the request fit (a paste larger than the window), the largest
            # messages are cut too, as a stage cuts its retained tail.
            working, masked, after = await asyncio.to_thread(
                _relieve, inputs, working, after, main.budget.relief_target
            )
            if not main.budget.fit_request(after).fits:
                working, fitted, after = await asyncio.to_thread(_fit, inputs, working, after)
                masked = (*masked, *fitted)
            if masked:
                masked_only = True
                summary = next((m.content for m in working if m.role == "summary"), "")
                edits.extend(masked)
                notes.append(f"{_edits_said(masked)} in place of a summary")
        sizes = await asyncio.to_thread(_sizes, inputs, working, origins) if modes else (0, 0)
    except asyncio.CancelledError as err:
        retired = cleared or signal.retired or is_backend_state_retired(err)
        raise CompactionCancelled(*err.args, backend_state_retired=retired) from err
    except Exception as err:
        retired = cleared or signal.retired or is_backend_state_retired(err)
        cancelled = is_cancellation(err)
        raise CompactionFailed(err, backend_state_retired=retired, cancelled=cancelled) from err
    outcome = CompactionOutcome(
        applied=bool(modes) or masked_only,
        stage_count=len(modes),
        modes=tuple(modes) or (("mask",) if masked_only else ()),
        before_tokens=before,
        after_tokens=after,
        summary_model=inputs.target.ref if modes and summary else "",
        backend_state_cleared=cleared,
        at=clock(),
        summarized_count=summarized,
        retained_count=sum(1 for origin in origins if origin is not None) if modes else 0,
        summary_tokens=sizes[0],
        retained_tokens=sizes[1],
        steering=inputs.steering,
        manual=manual,
        summary=summary,
        edits=tuple(edits),
        trigger=trigger,
        notes=tuple(notes),  # an outcome that applied nothing says why too (rejected summaries)
    )
    if outcome.applied:
        total = prior_stages + len(modes)
        health = compaction_health(total, after, main.budget.hard_limit)
        freed = ineffective_note(before, after)
        if freed:
            notes.append(freed)
        if freed and not manual:  # one the person asked for says nothing about thrash
            health = noted_health(health, freed)
        for note in notes:
            if "rejected" in note:
                health = noted_health(health, note)
        outcome = msgspec.structs.replace(outcome, health=health, notes=tuple(notes))
    applied = outcome.applied
    return StagesResult(outcome, working if applied else (), summary, cleared, tuple(batches))


def _sizes(
    inputs: StageInputs, working: tuple[Message, ...], origins: tuple[Message | None, ...]
) -> tuple[int, int]:
    """Main's estimate of the summary in ``working`` and of the messages it retained (those
    with an origin), as ``CompactionOutcome`` keeps them. Run in a worker thread."""
    host, main = inputs.host, inputs.main
    summary = retained = 0
    for message, origin in zip(working, origins, strict=True):
        if origin is not None:
            retained += host.message_tokens(message, main)
        elif message.role == "summary":
            summary += host.message_tokens(message, main)
    return summary, retained


def _edits_said(edits: tuple[RoomEdit, ...]) -> str:
    """``2 tool results masked and 1 message cut``."""
    masked = sum(1 for edit in edits if edit.kind == "masked")
    cut = sum(1 for edit in edits if edit.kind == "cut")
    parts = [
        f"{masked} tool result{'s' if masked != 1 else ''} masked" if masked else "",
        f"{cut} message{'s' if cut != 1 else ''} cut" if cut else "",
    ]
    return " and ".join(part for part in parts if part)


def _fit(
    inputs: StageInputs, working: tuple[Message, ...], after: int
) -> tuple[tuple[Message, ...], tuple[RoomEdit, ...], int]:
    """``working`` masked and cut, largest first, until main's hard fit holds (no message is
    moved: there is no summary to move it into), with its new estimate. Run in a worker
    thread."""
    host, main = inputs.host, inputs.main
    sizer = Sizer.of(host, main)

    def fits(messages: Sequence[Message]) -> bool:
        return main.budget.fit_request(host.estimate_conversation(messages)).fits

    overhead = after - sum(sizer.message_tokens(m) for m in working)
    _, fitted, edits, _ = fit_retained_tail(
        (),
        working,
        fits=fits,
        budget_tokens=tail_budget(main, overhead, 0),
        sizer=sizer,
        move_turns=False,
        pinned=is_pinned_by(inputs.pins),
    )
    return fitted, edits, host.estimate_conversation(fitted) if edits else after


def _relieve(
    inputs: StageInputs, working: tuple[Message, ...], after: int, target: int
) -> tuple[tuple[Message, ...], tuple[RoomEdit, ...], int]:
    """``working`` with its largest retained tool results masked until the prompt is about
    ``target`` (never the latest turn's, never a pinned one), and its new estimate (``after``
    when nothing was masked). Run in a worker thread: it masks and saves thousands of results
    on a long session."""
    host, main = inputs.host, inputs.main
    sizer = Sizer.of(host, main)
    overhead = after - sum(sizer.message_tokens(m) for m in working)
    relieved, masked = mask_retained(
        working, max(0, target - overhead), sizer=sizer, pinned=is_pinned_by(inputs.pins)
    )
    return relieved, masked, host.estimate_conversation(relieved) if masked else after
