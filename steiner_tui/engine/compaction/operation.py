"""The compaction operation: stages, fallback selection, rerun on main, and the outcome.

``compact_with_lineage`` is the one entry point (manual ``/compact`` too: ``manual=True``, tools
from the last parent request, ``snapshot_tools``). It selects the summary target once, runs the
normal stage and, when that did not apply or its result still needs compaction, the emergency
stage on the same target, and returns ``CompactionResult(lineage, outcome, backend_state_retired)``:

* applied: the lineage gains one generation (summary + replayed skills + retained turns +
  pending line) recording the outcome; nothing is archived yet.
* not applied: the lineage is unchanged except that a retired backend state is dropped.
* fallback: a failed attempt (plan not fitting, provider error, resolve or build error, empty
  summary) is discarded and the whole operation reruns on main from the original lineage with
  ``fallback_status`` ``skipped``. Cancellation (``asyncio.CancelledError``, a ``cancelled``
  provider error, or a cancellation request pending on the task) never reruns, and a fallback's
  failure never reports main's transcript as retired.
* pins: the lineage's pins are kept verbatim by every stage; when they alone cannot fit, the
  failure's error is ``PinsTooLarge`` (never rerun on main: main's budget decides it).
* ``backend_state_retired``: a main summary retired the stateful backend transcript. A failure
  is raised as ``CompactionFailed`` or ``CompactionCancelled`` (``failures``), whose field of
  that name says the same; ``lineage_after_failure`` applies it to the caller's lineage.

After adopting ``result.lineage`` the caller runs ``commit_compaction(result)`` (stage counter,
health event, the appends of ``result.pending_archive`` to the history archive in source order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import NamedTuple

import msgspec

from steiner_tui.engine.compaction.archive import HistoryArchive, commit_history_archive
from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.failures import CompactionCancelled, CompactionFailed
from steiner_tui.engine.compaction.fallback import (
    CompactionFallback,
    LastMainRequest,
    select_compaction_fallback,
)
from steiner_tui.engine.compaction.host import CompactionHost, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.pins import PinsTooLarge
from steiner_tui.engine.compaction.reasons import fallback_failed_reason, fallback_not_fit_reason
from steiner_tui.engine.compaction.stage import StageInputs
from steiner_tui.engine.compaction.stage_runner import StagesResult, run_stages
from steiner_tui.engine.compaction.summary_request import CompactionFallbackNotFit
from steiner_tui.engine.events import FALLBACK_SKIPPED, FALLBACK_USED, CompactionOutcome, EventSink
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.context_state import ContextState
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = [
    "CompactionEnv",
    "CompactionResult",
    "commit_compaction",
    "compact_with_lineage",
    "snapshot_tools",
]


class CompactionEnv(msgspec.Struct, frozen=True):
    """What stays the same across a run's compactions.

    Attributes:
        host: the runner's ``CompactionHost``.
        main: the main model as a summary target.
        clock: the injected clock (fallback idle time, outcome time).
        sink: receives warnings (history note failures).
        archive: the session's history archive (interactive and oneshot phases only).
        fallback: the run's compaction fallback (None: disabled).
        main_session: the main transport session (derives the fallback identity).
        new_key: random key source for a fallback identity without a main session.
        cache_scope: the run's prompt cache key (memoized fallback targets are keyed by it).
    """

    host: CompactionHost
    main: SummaryTarget
    clock: Callable[[], datetime]
    sink: EventSink
    archive: HistoryArchive | None = None
    fallback: CompactionFallback | None = None
    main_session: str = ""
    new_key: Callable[[], str] | None = None
    cache_scope: str = ""


class CompactionResult(NamedTuple):
    """The operation's result: the lineage to adopt, the outcome, whether a main summary
    retired the stateful backend transcript (the lineage no longer carries it then) and, per
    applied stage, the source messages to append to the history archive once the lineage is
    adopted (``commit_compaction``)."""

    lineage: ConversationLineage
    outcome: CompactionOutcome
    backend_state_retired: bool
    pending_archive: tuple[tuple[Message, ...], ...] = ()


def snapshot_tools(last_parent_request: ChatRequest | None) -> tuple[ToolDefinition, ...]:
    """The tools of the last recorded parent request (empty when none was recorded)."""
    return () if last_parent_request is None else tuple(last_parent_request.tools)


def _finish(
    lineage: ConversationLineage, result: StagesResult, status: str, reason: str
) -> CompactionResult:
    outcome = msgspec.structs.replace(
        result.outcome, fallback_status=status, fallback_reason=reason
    )
    base = lineage.clear_backend_state() if result.cleared else lineage
    if not outcome.applied:
        return CompactionResult(base, outcome, result.cleared)
    advanced = base.advance(result.messages, result.summary, outcome, outcome.at)
    return CompactionResult(advanced, outcome, result.cleared, result.pending_archive)


async def compact_with_lineage(
    lineage: ConversationLineage,
    env: CompactionEnv,
    *,
    tools: Sequence[ToolDefinition] = (),
    steering: str = "",
    manual: bool = False,
    pending_sub_agents: Sequence[tuple[str, str, str]] = (),
    last_main_request: LastMainRequest | None = None,
    prior_stages: int = 0,
    context_state: ContextState | None = None,
    trigger: str = "",
) -> CompactionResult:
    """Compact the active generation of ``lineage``.

    Args:
        lineage: the conversation to compact (never modified).
        env: host, main target, clock, sink, archive and fallback of the run.
        tools: the tool definitions of a normal turn (manual: the last parent request's).
        steering: manual ``/compact`` steering text.
        manual: the operation is a manual ``/compact``.
        pending_sub_agents: ``(id, type, state)`` of sub-agents still pending.
        last_main_request: the (seeded) last main request, for the cold-cache test.
        prior_stages: applied stages earlier in this run (``CompactionCounter.stages``).
        context_state: the run's durable context state (the summary instruction carries it).
        trigger: why it runs (``triggers``), recorded in the outcome.

    Returns:
        The lineage to adopt, the outcome and the backend-state retirement.

    Raises:
        CompactionFailed: the main attempt failed, or a fallback attempt was cancelled.
        CompactionCancelled: the task was cancelled.
    """
    last = last_main_request or LastMainRequest()
    active = lineage.active

    async def attempt(target: SummaryTarget) -> StagesResult:
        inputs = StageInputs(
            env.host,
            env.main,
            target,
            env.sink,
            tuple(tools),
            steering,
            env.archive,
            tuple(pending_sub_agents),
            None if target.fallback else active.backend_state,
            context_state,
            lineage.pins,
            manual,
            trigger,
        )
        return await run_stages(
            tuple(active.messages),
            inputs,
            clock=env.clock,
            prior_stages=prior_stages,
            manual=manual,
            trigger=trigger,
        )

    selection = select_compaction_fallback(
        env.fallback,
        last,
        env.clock,
        env.main,
        main_session=env.main_session,
        new_key=env.new_key,
        cache_scope=env.cache_scope,
    )
    if selection is None:
        return _finish(lineage, await attempt(env.main), "", "")
    if selection.target is None:
        error = selection.error or RuntimeError("fallback unavailable")
        reason = fallback_failed_reason(error)
        return _finish(lineage, await attempt(env.main), FALLBACK_SKIPPED, reason)
    target = selection.target
    try:
        result = await attempt(target)
    except CompactionCancelled as err:
        # A fallback summary never retires main's transcript.
        if not err.backend_state_retired:
            raise
        raise CompactionCancelled(*err.args, backend_state_retired=False) from err.__cause__
    except CompactionFailed as err:
        if err.cancelled and not err.backend_state_retired:
            raise
        if err.cancelled:
            error = err.error
            raise CompactionFailed(error, backend_state_retired=False, cancelled=True) from error
        if isinstance(err.error, PinsTooLarge):
            raise  # main's budget decides that: a rerun on main would say the same

        if isinstance(err.error, CompactionFallbackNotFit):
            reason = fallback_not_fit_reason(target.ref)
        else:
            reason = fallback_failed_reason(err.error)
        return _finish(lineage, await attempt(env.main), FALLBACK_SKIPPED, reason)
    # A fallback never retires main's transcript: its clear is discarded.
    isolated = msgspec.structs.replace(
        result, outcome=msgspec.structs.replace(result.outcome, backend_state_cleared=False)
    )
    isolated = msgspec.structs.replace(isolated, cleared=False)
    if not isolated.outcome.applied:
        return _finish(lineage, isolated, "", "")
    return _finish(lineage, isolated, FALLBACK_USED, selection.reason)


def commit_compaction(
    result: CompactionResult,
    *,
    counter: CompactionCounter,
    archive: HistoryArchive | None,
    sink: EventSink,
) -> bool:
    """After the caller adopted the new lineage: count stages, emit health, archive sources.

    Returns:
        True when every pending archive batch was appended.
    """
    outcome = result.outcome
    if not outcome.applied:
        return True
    counter.add(outcome.stage_count)
    if outcome.health is not None:
        sink.emit(outcome.health)
    return commit_history_archive(archive, result.pending_archive, sink)
