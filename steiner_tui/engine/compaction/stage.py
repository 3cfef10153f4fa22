"""One compaction stage: cut, summarize the older part on the summary target, lay out the rest.

A stage works on the operation's working conversation (the active generation's messages, or the
result of the normal stage when the emergency stage follows it) together with each message's
origin (the source message it came from, None for messages compaction wrote), so the history
archive receives only real source messages, once each.

Budgets: the retention split, the anchor's fit check and the resulting state use the *main*
model; the summary cap and the plan fit use the *summary target* (the fallback's budget on
fallback). A plan that does not fit is ``CompactionFallbackNotFit`` on a fallback target (the
operation reruns on main) and a not-applied normal stage on main (the emergency stage runs);
only main's emergency stage, the last one, makes its summary input fit rather than fail. An
empty summary is likewise not applied on main and ``EmptyCompactionSummary`` on fallback.
Errors from the summary call propagate.

Pins (``inputs.pins``): the pinned messages of the part to summarize, with their companions,
are taken out of it and kept, verbatim and in order, right before the retained tail; the room
making never masks, cuts or moves them. When the pinned messages alone cannot fit main (with
the static prefix, the completion reserve and an emergency summary's cap), the stage raises
``PinsTooLarge`` before any summary is requested.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.engine.budget import CompactionMode
from steiner_tui.engine.compaction.archive import HistoryArchive, with_history_note
from steiner_tui.engine.compaction.host import CompactionHost, SummaryTarget
from steiner_tui.engine.compaction.pastes import collapse_pastes
from steiner_tui.engine.compaction.pins import (
    PinSize,
    PinsTooLarge,
    is_pinned_by,
    pin_key,
    pin_label,
    pinned_indexes,
)
from steiner_tui.engine.compaction.retention import (
    ComposedConversation,
    anchor_real_user_retention,
    compose_compacted_conversation,
    is_pending_sub_agents_message,
    replayed_skill_message,
)
from steiner_tui.engine.compaction.room import (
    Sizer,
    fit_retained_tail,
    fit_summary_input,
    take_pinned,
)
from steiner_tui.engine.compaction.summary_request import (
    CompactionFallbackNotFit,
    EmptyCompactionSummary,
    compaction_instruction,
    finalize_summary_request,
    summary_cap,
    summary_problem,
    usable_summary,
)
from steiner_tui.engine.compaction.turns import (
    EMERGENCY_RETAINED_TURNS,
    NORMAL_RETAINED_TURNS,
    split_for_retention,
)
from steiner_tui.engine.events import CompactionProgress, EventSink, RoomEdit, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.artifacts import ArtifactLedger, build_ledger, strip_ledger
from steiner_tui.engine.state.context_state import ContextState
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = [
    "RetirementSignal",
    "StageInputs",
    "StageResult",
    "summarize_compaction_stage",
    "tail_budget",
]


class RetirementSignal(msgspec.Struct):
    """Set when a stage hands a main summary request that retires the stateful backend
    transcript to the host: from then on the transcript counts as retired, whatever happens to
    the call (its end event may never arrive when it fails or is cancelled)."""

    retired: bool = False


class StageInputs(msgspec.Struct, frozen=True):
    """What every stage of one operation shares."""

    host: CompactionHost
    main: SummaryTarget
    target: SummaryTarget
    sink: EventSink
    tools: tuple[ToolDefinition, ...] = ()
    steering: str = ""
    archive: HistoryArchive | None = None
    pending_sub_agents: tuple[tuple[str, str, str], ...] = ()
    backend_state: str | None = None
    context_state: ContextState | None = None
    pins: tuple[str, ...] = ()
    """Pin keys of the conversation: those messages are kept verbatim."""
    manual: bool = False
    """A manual ``/compact``: with nothing new since the last compaction (and no steering) it
    applies nothing, rather than summarize the summary alone."""
    trigger: str = ""
    """Why the operation runs (``triggers``): each stage says it as it starts."""


class StageResult(msgspec.Struct, frozen=True):
    """A stage's result; ``messages``/``origins`` are the new working conversation if applied."""

    applied: bool
    messages: tuple[Message, ...] = ()
    origins: tuple[Message | None, ...] = ()
    summary: str = ""
    sources: tuple[Message, ...] = ()
    archived: bool = False
    cleared: bool = False
    edits: tuple[RoomEdit, ...] = ()
    rejected: str = ""
    """Why the stage's summary was not used (``summary_problem``, or a manual stage's result no
    smaller than its input; "" when it was)."""
    skipped: str = ""
    """Why the stage asked for no summary (nothing to summarize, a plan that does not fit)."""
    tokens: int = 0
    """Main's estimate of ``messages`` when applied."""


def _written_by_compaction(summarized: Sequence[Message], messages: Sequence[Message]) -> bool:
    """Whether ``summarized`` holds only what an earlier compaction wrote: its summary, its
    replay of the active skills, its pending sub-agents line."""
    replay = replayed_skill_message(messages)
    return all(
        m.role == "summary" or is_pending_sub_agents_message(m) or m == replay for m in summarized
    )


async def summarize_compaction_stage(
    inputs: StageInputs,
    mode: CompactionMode,
    messages: Sequence[Message],
    origins: Sequence[Message | None],
    tokens: int,
    signal: RetirementSignal | None = None,
) -> StageResult:
    """Run one stage over the working conversation.

    The stage's pure work (splitting, fitting, masking with its saved outputs, building and
    estimating the request, fitting the last tail) runs in a worker thread: on a long session it
    takes seconds, and the event loop stays free for the screen and a cancel. The summary call
    and every event stay on the loop, in their order.

    Args:
        inputs: the operation's shared inputs.
        mode: ``normal`` (3 turns, anchored) or ``emergency`` (1 turn).
        messages: the working conversation.
        origins: the source message of each working message (None: written by compaction).
        tokens: main's estimate of ``messages``; in a manual ``/compact``, a summary whose
            result is no smaller is rejected.
        signal: set before a retiring main summary request is handed to the host.

    Returns:
        The stage result; ``cleared`` reports a main backend-state retirement even when the
        stage did not apply.

    Raises:
        CompactionFallbackNotFit: the plan does not fit a fallback target.
        EmptyCompactionSummary: a fallback target returned an empty summary.
    """
    host, target = inputs.host, inputs.target
    # Said before the plan: on a long session planning takes seconds, and the screen says
    # "compacting" from the moment the stage runs, not from its summary call.
    inputs.sink.emit(CompactionProgress(mode, target.ref, target.fallback, trigger=inputs.trigger))
    plan = await asyncio.to_thread(_plan_stage, inputs, mode, messages, origins)
    if isinstance(plan, StageResult):
        return plan
    request = plan.request
    retiring = request.retire_backend_state and not target.fallback
    if retiring and signal is not None:
        signal.retired = True
    response = await host.call_summary(request, target)
    cleared = (response.clear_backend_state or retiring) and not target.fallback
    text = usable_summary(response.text)
    problem = summary_problem(response.text, plan.part_chars)
    if text is None or problem:
        return _rejected(inputs, mode, problem if text else "", cleared)
    archived_sources = tuple(origin for origin in plan.summary_origins if origin is not None)
    text = await asyncio.to_thread(_with_ledger, text, messages, plan.summarized)
    summary, archived = with_history_note(text, inputs.archive, archived_sources, inputs.sink)
    composed, tail_edits = await asyncio.to_thread(_lay_out, inputs, mode, messages, plan, summary)
    after = await asyncio.to_thread(host.estimate_conversation, composed.messages)
    if inputs.manual and after >= tokens:
        # With its sections and ledger, a summary of a few short messages outweighs them.
        grown = f"it would not make the conversation smaller ({tokens:,} to {after:,} tokens)"
        return _rejected(inputs, mode, grown, cleared)
    return StageResult(
        True,
        composed.messages,
        composed.origins,
        summary,
        archived_sources,
        archived,
        cleared,
        (*tail_edits, *plan.input_edits),
        tokens=after,
    )


def _rejected(
    inputs: StageInputs, mode: CompactionMode, problem: str, cleared: bool
) -> StageResult:
    """A summary that must not replace what it summarized (``problem``; "" when empty): a
    failed attempt on a fallback target, a not-applied stage that says why on main."""
    target = inputs.target
    if target.fallback:
        raise EmptyCompactionSummary(target.ref, problem)
    if problem:
        said = f"the {mode} summary from {target.ref} was rejected: {problem}"
        inputs.sink.emit(WarningEvent("summary_rejected", said))
    return StageResult(False, cleared=cleared, rejected=problem)


class _Plan(msgspec.Struct):
    """A stage's work before its summary call, handed from the worker thread to the loop."""

    summarized: Sequence[Message]
    retained: Sequence[Message]
    summary_origins: tuple[Message | None, ...]
    tail_origins: tuple[Message | None, ...]
    tail_edits: tuple[RoomEdit, ...]
    input_edits: tuple[RoomEdit, ...]
    overhead: int
    request: ChatRequest
    part_chars: int
    sizer: Sizer
    pinned: Callable[[Message], bool]


def _plan_stage(
    inputs: StageInputs,
    mode: CompactionMode,
    messages: Sequence[Message],
    origins: Sequence[Message | None],
) -> _Plan | StageResult:
    """The stage up to its summary call: its plan, or its result when it calls no summary."""
    host, main, target = inputs.host, inputs.main, inputs.target
    keep = NORMAL_RETAINED_TURNS if mode == "normal" else EMERGENCY_RETAINED_TURNS
    origin_of = {id(m): o for m, o in zip(messages, origins, strict=True)}
    summarized, retained = split_for_retention(messages, keep)
    if mode == "normal":
        summarized, retained = anchor_real_user_retention(
            summarized,
            retained,
            lambda tail: main.budget.fit_request(host.estimate_conversation(tail)).fits,
        )
    max_tokens = summary_cap(target, mode)
    sizer = Sizer.of(host, main)
    pinned = is_pinned_by(inputs.pins)
    pin_edits: tuple[RoomEdit, ...] = ()
    sources: tuple[Message, ...] = tuple(retained)
    if inputs.pins:
        _check_pins_fit(inputs, messages, pinned)
        summarized, kept, kept_sources, pin_edits = take_pinned(summarized, pinned, sizer)
        retained, sources = (*kept, *retained), (*kept_sources, *retained)

    # The retained tail alone must fit main's hard fit (section 8, "Making room").
    def tail_fits(tail: Sequence[Message]) -> bool:
        return main.budget.fit_request(host.estimate_conversation(tail)).fits

    tail_edits: tuple[RoomEdit, ...] = pin_edits
    overhead = -1
    if retained and not tail_fits(retained):
        overhead = host.estimate_conversation(())
        tail_in = retained
        summarized, retained, fitted, from_tail = fit_retained_tail(
            summarized,
            retained,
            fits=tail_fits,
            budget_tokens=tail_budget(main, overhead, 0),
            sizer=sizer,
            pinned=pinned,
        )
        tail_edits = (*tail_edits, *fitted)
        by_id = {id(m): source for m, source in zip(tail_in, sources, strict=True)}
        sources = tuple(by_id.get(id(m), m) for m in from_tail)
    summary_origins = tuple(origin_of.get(id(m)) for m in summarized)
    tail_origins = tuple(origin_of.get(id(m)) for m in sources)
    if (
        inputs.manual
        and not inputs.steering.strip()
        and summarized
        and not tail_edits
        and None not in summary_origins  # not this run's own summary (stage 2 summarizes it)
        and _written_by_compaction(summarized, messages)
    ):
        # Nothing new since the last compaction to summarize: a summary of its summary would
        # cost a model call (and the cached prefix) for a generation of the same size.
        return StageResult(False, skipped="nothing new since the last compaction")
    if not summarized:
        if not tail_edits:
            turns = "turn" if keep == 1 else f"{keep} turns"
            return StageResult(False, skipped=f"nothing older than the {turns} it keeps")
        # Nothing to summarize, but the tail had to be masked or cut to fit: that applies.
        composed = compose_compacted_conversation(
            "", messages, retained, inputs.pending_sub_agents, tail_origins
        )
        tokens = host.estimate_conversation(composed.messages)
        return StageResult(
            True, composed.messages, composed.origins, edits=tail_edits, tokens=tokens
        )
    instruction = compaction_instruction(
        mode, inputs.steering, target.compaction_prompt, inputs.context_state
    )

    collapsed: dict[int, tuple[Message, Message]] = {}

    def build(part: Sequence[Message]) -> ChatRequest:
        # Pasted logs and stack traces reach the summarizer collapsed (``pastes``).
        shown = collapse_pastes(part, collapsed)
        built = host.build_summary_request(shown, instruction, target, max_tokens, inputs.tools)
        return finalize_summary_request(built, target, inputs.backend_state, max_tokens)

    def plan_fits(part: Sequence[Message]) -> bool:
        tokens = host.estimate_request(build(part), target)
        return target.budget.fit_compaction_request(tokens, mode).fits

    request = build(summarized)
    part_chars = sum(len(m.content) for m in summarized)
    plan = target.budget.fit_compaction_request(host.estimate_request(request, target), mode)
    input_edits: tuple[RoomEdit, ...] = ()
    if not plan.fits and mode == "emergency" and not target.fallback:
        # A plan that does not fit fails a fallback (rerun on main) and leaves main's normal
        # stage not applied; main's emergency stage is the last one, so its input is masked,
        # cut or shortened rather than leave a conversation that cannot go on.
        target_sizer = Sizer(
            lambda message: host.message_tokens(message, target), sizer.save_full_output
        )
        request_overhead = host.estimate_request(build(()), target)
        summary_input, input_edits = fit_summary_input(
            summarized,
            fits=plan_fits,
            budget_tokens=target.budget.hard_limit - max_tokens - request_overhead,
            sizer=target_sizer,
        )
        request = build(summary_input)
        part_chars = sum(len(m.content) for m in summary_input)
        plan = target.budget.fit_compaction_request(host.estimate_request(request, target), mode)
    if not plan.fits:
        if target.fallback:
            raise CompactionFallbackNotFit(target.ref)
        return StageResult(False, skipped=f"its summary request does not fit {target.ref}")
    return _Plan(
        summarized,
        retained,
        summary_origins,
        tail_origins,
        tail_edits,
        input_edits,
        overhead,
        request,
        part_chars,
        sizer,
        pinned,
    )


def _with_ledger(text: str, messages: Sequence[Message], summarized: Sequence[Message]) -> str:
    """``text`` with the artifact ledger, which rides with every summary, whoever wrote it
    (``state.artifacts``). Its base is the working conversation's own summary, whole: the copy
    in ``summarized`` may have been cut to fit."""
    earlier = next((m.content for m in messages if m.role == "summary"), "")
    ledger = build_ledger(summarized, ArtifactLedger.parse(earlier)).render()
    return f"{strip_ledger(text)}\n\n{ledger}" if ledger else strip_ledger(text)


def _lay_out(
    inputs: StageInputs,
    mode: CompactionMode,
    messages: Sequence[Message],
    plan: _Plan,
    summary: str,
) -> tuple[ComposedConversation, tuple[RoomEdit, ...]]:
    """The new working conversation around ``summary``, with the tail's edits."""
    host, main = inputs.host, inputs.main
    pending = inputs.pending_sub_agents
    retained, tail_edits, tail_origins = plan.retained, plan.tail_edits, plan.tail_origins

    def state_fits(tail: Sequence[Message]) -> bool:
        state = compose_compacted_conversation(summary, messages, tail, pending).messages
        return main.budget.fit_request(host.estimate_conversation(state)).fits

    if mode == "emergency" and retained and not state_fits(retained):
        # The last stage: its state, summary included, must fit; the tail is masked or cut.
        overhead = plan.overhead if plan.overhead >= 0 else host.estimate_conversation(())
        room = host.message_tokens(Message("summary", summary), main)
        before_late = retained
        _, retained, late, from_late = fit_retained_tail(
            (),
            retained,
            fits=state_fits,
            budget_tokens=tail_budget(main, overhead, room),
            sizer=plan.sizer,
            move_turns=False,
            pinned=plan.pinned,
        )
        tail_edits = (*tail_edits, *late)
        origin_at = {id(m): o for m, o in zip(before_late, tail_origins, strict=True)}
        tail_origins = tuple(origin_at.get(id(m)) for m in from_late)
    composed = compose_compacted_conversation(summary, messages, retained, pending, tail_origins)
    return composed, tail_edits


def tail_budget(main: SummaryTarget, overhead: int, room: int) -> int:
    """A first guess of the tokens a retained tail may take on main (``fits`` confirms it)."""
    budget = main.budget
    floor = budget.fit_request(budget.context_size).reserve
    return max(1, budget.hard_limit - floor - overhead - room)


def _check_pins_fit(
    inputs: StageInputs, messages: Sequence[Message], pinned: Callable[[Message], bool]
) -> None:
    """Raise ``PinsTooLarge`` when the pinned messages alone cannot fit main.

    "Alone" is a request over the static prefix and the pinned messages (with the call
    messages their results answer), with room for the completion reserve, the safety margin
    and an emergency summary's cap.
    """
    chosen, _ = pinned_indexes(messages, pinned)
    if not chosen:
        return
    host, main = inputs.host, inputs.main
    kept = [messages[i] for i in sorted(chosen)]
    tokens = host.estimate_conversation(kept)
    budget = main.budget
    reserve = budget.fit_request(tokens).reserve
    limit = (
        budget.context_size - reserve - budget.safety_margin - budget.summary_reserve("emergency")
    )
    if budget.context_size <= 0 or tokens <= limit:
        return
    sizes = sorted(
        (
            PinSize(pin_key(m), pin_label(m, messages), host.message_tokens(m, main))
            for m in kept
            if pinned(m)
        ),
        key=lambda pin: pin.tokens,
        reverse=True,
    )
    raise PinsTooLarge(sizes, tokens, limit)
