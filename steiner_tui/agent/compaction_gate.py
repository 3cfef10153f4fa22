"""The gate before every main request: compact, ask, warn or stop, then send what fits.

The runner assembles the request and hands it here (``prepare_turn``). The soft trigger and the
hard fit (a stateful provider: its reported usage and cap) decide what the request calls for,
and the compaction mode what is done about it (``engine.compaction.policy.decide``):

* ``auto`` compacts by itself, then assembles again;
* ``ask`` asks the runner's ``policy``: compact now (with a focus), send anyway while the hard
  fit holds, or mask the largest tool results; it asks again (at most ``MAX_QUESTIONS`` times)
  when masking left the request over the trigger;
* ``off`` never compacts by itself: it warns once per generation near the hard limit and stops
  when a request does not fit.

A request that still does not fit is never sent: the episode ends with a ``context_window``
error naming the figures. When the pinned messages alone cannot fit, compaction asks which to
unpin; a refusal ends the run with a message naming each pin and its size.
See docs/design.md, "8. Compaction".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.run_types import (
    EpisodeProgress,
    PreparedTurn,
    RunnerState,
    RunResult,
    labelled,
)
from steiner_tui.engine.compaction.escalation import CompactionCounter, over_window_health
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.pins import is_pinned_by
from steiner_tui.engine.compaction.policy import (
    AutoCompaction,
    CompactionPolicy,
    CompactionQuestion,
    MaskLargest,
    Refuse,
    SendAnyway,
    asked_event,
    decide,
    largest_tool_results,
    mask_needed,
    off_stop_message,
    off_warning,
    question_for,
)
from steiner_tui.engine.compaction.stateful import ParentUsage, stateful_cap_stop
from steiner_tui.engine.compaction.triggers import ASK_COMPACT, ASK_MASK, asked, request_trigger
from steiner_tui.engine.events import CompactionOutcome, ErrorEvent, EventSink, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import READ_AT_START, Remedy
from steiner_tui.engine.tokens import TokenizerLoadError

__all__ = ["GateHost", "prepare_turn"]

MAX_QUESTIONS = 4
"""How many times ``ask`` asks before one request (masking may leave it over the trigger)."""


class GateHost(Protocol):
    """What the gate reads and calls on the runner (``Runner`` implements it)."""

    model: MainModel
    sink: EventSink
    policy: CompactionPolicy
    compaction_mode: AutoCompaction
    state: RunnerState

    @property
    def lineage(self) -> ConversationLineage: ...

    @property
    def conversation(self) -> Sequence[Message]: ...

    def prepare(self, conversation: Sequence[Message] | None = None) -> PreparedTurn: ...

    def note_context_state(self) -> None: ...

    def mask_results(
        self, call_ids: Sequence[str], *, reason: str = "", trigger: str = ...
    ) -> CompactionOutcome | None: ...

    async def compact_asking_pins(
        self,
        counter: CompactionCounter | None,
        *,
        steering: str = "",
        manual: bool = False,
        trigger: str = "",
    ) -> tuple[CompactionOutcome | None, str]: ...

    def parent_usage(self) -> ParentUsage: ...

    def tokens_of(self, message: Message) -> int: ...

    def fixed_tokens(self) -> int: ...


async def prepare_turn(host: GateHost, progress: EpisodeProgress) -> PreparedTurn | RunResult:
    """The next request, compacted or masked as the mode says, or how the episode ends."""
    try:
        return await _prepare_fitting_turn(host, progress)
    except TokenizerLoadError as error:
        # The model's tokenizer is missing or broken: every fit would be a guess.
        text = labelled(host.model.ref, str(error))
        host.sink.emit(ErrorEvent("tokenizer", text))
        return RunResult("error", error=text, error_kind="tokenizer")


async def _prepare_fitting_turn(
    host: GateHost, progress: EpisodeProgress
) -> PreparedTurn | RunResult:
    host.note_context_state()
    prepared = host.prepare()
    if host.model.stateful and host.parent_usage().decision() == "cap_stop":
        # The design's cap: stop before any compaction; /compact or /clear clears it.
        text, health = stateful_cap_stop(host.parent_usage())
        host.sink.emit(health)
        host.sink.emit(ErrorEvent("context_window", text))
        return RunResult("error", error=text, error_kind="context_window")
    for _ in range(MAX_QUESTIONS):
        reached, fits = _needs(host, prepared)
        forced = host.state.over_window
        action = decide(host.compaction_mode, reached_soft=reached, fits=fits, forced=forced)
        if action == "send":
            break
        if action == "stop":
            return _window_error(host, prepared, progress, off=True)
        steering = ""
        trigger = request_trigger(reached_soft=reached, fits=fits, forced=forced)
        if action == "ask":
            question = _question(host, prepared, fits, forced)
            answer = await host.policy.ask(question)
            host.sink.emit(asked_event(question, answer))
            if isinstance(answer, Refuse):
                host.sink.emit(ErrorEvent("compaction_ask", answer.message))
                return RunResult("error", error=answer.message, error_kind="compaction_ask")
            if isinstance(answer, SendAnyway):
                if question.can_send:
                    break
                continue  # the hard fit does not hold: never sent as it is
            if isinstance(answer, MaskLargest):
                calls = [candidate.call_id for candidate in question.maskable]
                host.mask_results(
                    calls, reason="mask the largest tool results", trigger=asked(ASK_MASK, trigger)
                )
                prepared = host.prepare()
                continue
            steering = answer.focus
            trigger = asked(ASK_COMPACT, trigger)
        trigger = _again(host, prepared, trigger)
        outcome, refusal = await host.compact_asking_pins(
            progress.compactions, steering=steering, trigger=trigger
        )
        if action == "compact" and fits and not forced and _summaries_wasted(outcome):
            _hold_soft_trigger(host, prepared.estimate.tokens)
        if refusal:
            host.sink.emit(ErrorEvent("pins_too_large", refusal))
            return RunResult("error", error=refusal, error_kind="pins_too_large")
        prepared = host.prepare()
        break
    if not prepared.fit.fits:
        return _window_error(host, prepared, progress, off=host.compaction_mode == "off")
    _warn_near_hard_limit(host, prepared)
    return prepared


def _again(host: GateHost, prepared: PreparedTurn, trigger: str) -> str:
    """``trigger``, saying why when this turn already compacted (and warning once about it)."""
    turn = host.state.turn
    if host.state.compacted_turn != turn:
        host.state.compacted_turn = turn
        return trigger
    why = (
        f"again in turn {turn}: this turn's tool results took the prompt to "
        f"{prepared.estimate.tokens:,} tokens after the last compaction"
    )
    host.sink.emit(WarningEvent("compaction_again", f"compacting {why}"))
    return f"{trigger}; {why}"


def _summaries_wasted(outcome: CompactionOutcome | None) -> bool:
    """The compaction applied nothing because its summaries were rejected (not because there
    was nothing to summarize yet: the next turn gives it something, at no summary's cost)."""
    return (
        outcome is not None
        and not outcome.applied
        and any("rejected" in note for note in outcome.notes)
    )


def _hold_soft_trigger(host: GateHost, tokens: int) -> None:
    """An automatic compaction at the soft trigger applied nothing, its summaries rejected:
    trying again at the next request would cost the same summary calls for the same result (a
    small local model's, minutes a turn), so the soft trigger waits for the prompt to grow."""
    budget = host.model.budget
    host.state.soft_held = tokens
    again = tokens + budget.soft_threshold - budget.relief_target
    host.sink.emit(
        WarningEvent(
            "compaction_held",
            f"nothing could be compacted at {tokens:,} tokens: automatic compaction waits "
            f"until the prompt reaches {again:,} tokens or the request no longer fits "
            "(/compact compacts now)",
        )
    )


def _needs(host: GateHost, prepared: PreparedTurn) -> tuple[bool, bool]:
    """``(reached the soft trigger, fits)`` for ``decide``: a stateful provider decides from
    reported usage (its cap stopped the run before this); a held soft trigger
    (``_hold_soft_trigger``) is not reached until the prompt has grown."""
    if host.model.stateful:
        return host.parent_usage().decision() == "compact", prepared.fit.fits
    budget, tokens, held = host.model.budget, prepared.estimate.tokens, host.state.soft_held
    waiting = (
        held
        and host.compaction_mode == "auto"  # ``ask`` asks the person, whatever auto found
        and tokens < held + budget.soft_threshold - budget.relief_target
    )
    return budget.should_compact(tokens) and not waiting, prepared.fit.fits


def _question(
    host: GateHost, prepared: PreparedTurn, fits: bool, forced: bool
) -> CompactionQuestion:
    budget, tokens = host.model.budget, prepared.estimate.tokens
    maskable = largest_tool_results(
        host.conversation,
        host.tokens_of,
        is_pinned_by(host.lineage.pins),
        mask_needed(budget, tokens, prepared.fit),
    )
    return question_for(
        budget, tokens, fits=fits, forced=forced, maskable=maskable, reserve=prepared.fit.reserve
    )


def _window_error(
    host: GateHost, prepared: PreparedTurn, progress: EpisodeProgress, *, off: bool
) -> RunResult:
    fit = prepared.fit
    text = (
        f"request exceeds context window: ~{prepared.estimate.tokens:,} prompt tokens + "
        f"{fit.reserve:,} reserved + {fit.safety_margin:,} margin > "
        f"{host.model.budget.context_size:,}"
    )
    if host.state.over_window and fit.fits:
        text = "the provider rejected the last request as too large for the model's window"
    if off:
        text = off_stop_message(text)
    host.sink.emit(over_window_health(progress.compactions.stages))
    host.sink.emit(
        ErrorEvent("context_window", text, remedies=_no_room(host, fit.reserve + fit.safety_margin))
    )
    return RunResult("error", error=text, error_kind="context_window")


_WINDOW_SETTINGS = {
    "llama.cpp": "--ctx-size",
    "Ollama": "OLLAMA_CONTEXT_LENGTH, or num_ctx in a Modelfile",
    "vLLM": "--max-model-len",
    "LM Studio": "the context length it loads the model with",
}
"""Where each kind of server takes the window it runs a model with."""


def _no_room(host: GateHost, kept: int) -> tuple[Remedy, ...]:
    """When a request with no conversation is already past the prompt room, what gives room
    (compacting cannot: the app's default remedies would offer it); else () for those."""
    model, fixed = host.model, host.fixed_tokens()
    window = model.budget.context_size
    room = window - kept  # what the reply reserve and the safety margin leave
    if fixed <= room:
        return ()
    where = {
        "server": f"give the {model.server} server a larger context "
        f"({_WINDOW_SETTINGS.get(model.server, 'its context size')})",
        "config": f'raise context_window under [models."{model.ref}"]',
    }.get(
        model.window_source,
        f'set context_window under [models."{model.ref}"] to the window the model has',
    )
    hint = (
        f"compacting cannot make room: a request with no conversation takes ~{fixed:,} tokens "
        f"(preamble, instructions, tool definitions), more than the {room:,} left for the "
        f"prompt of the {window:,}-token window; {where}"
    )
    larger = Remedy("switch_model", "switch to a model with a larger context window (/model)")
    if model.window_source == "server":
        return (Remedy("check_server", hint), larger)
    return (Remedy("fix_config", f"{hint}; {READ_AT_START}"), larger)  # read at start only


def _warn_near_hard_limit(host: GateHost, prepared: PreparedTurn) -> None:
    """``off`` mode: once per generation, say that the hard fit is near."""
    generation = host.lineage.active.id
    if host.compaction_mode != "off" or host.state.off_warned == generation:
        return
    text = off_warning(host.model.budget, prepared.estimate.tokens, prepared.fit)
    if text:
        host.state.off_warned = generation
        host.sink.emit(WarningEvent("compaction_off", text))
