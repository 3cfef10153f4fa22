"""The runner: drives turns until the model answers without tools.

One ``Runner`` owns one conversation lineage (a session, an exec run, a oneshot phase, or a
delegated child). A run of the runner (``run``) is one *episode*: the user's message, then
model calls and tool rounds until a reply without tool calls, a cancellation, or an error.

Per model call:

1. Assemble the request (static prefix, session date, conversation) and estimate it once.
2. Compaction when the soft trigger or the hard fit says so (stateful providers decide from
   reported usage instead), then assemble again.
3. Fit the completion reserve, emit the request snapshot, stream the call.
4. On success: LastMainRequest, calibration from usage, the assistant message, then tools.

Cancellation stores what was streamed as an ``incomplete`` assistant message; provider errors do
the same and end the episode with an ``ErrorEvent`` that carries the error's remedies. Nothing
the user saw is lost.

Images: a model without vision gets placeholders instead. A call rejected for its images is
retried once without them, and the provider remembers the rejection for the session
(``MainModel.sees_images``), so later turns send one request, already without images.

Compaction modes: ``compaction_mode`` is ``auto`` (compact by itself), ``ask`` (ask the
``policy`` first: compact now, send anyway while the hard fit holds, or mask the largest tool
results) or ``off`` (never by itself; warn near the hard limit, stop when a request does not
fit); the decision is the engine's (``engine.compaction.policy.decide``). When the pinned
messages alone cannot fit, the policy is asked which to unpin; a refusal ends the run with a
message naming each pin and its size.

Server limits: before its first request the runner asks a local model's server for its window
and tool support (``learn_limits``, once, in a thread; the app starts it as soon as the session
opens). A server whose chat template drops tool definitions gets none: the estimate, the
snapshot and the request then all say what the model really sees.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from steiner_tui.agent.cache_diagnostics import CacheDiagnostics
from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.compaction_driver import CompactionDriver, CompactionSettings
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.cost_counter import EstimatorCounter
from steiner_tui.agent.images import strip_images
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.snapshot_builder import FIRST_REQUEST, SnapshotBuilder
from steiner_tui.agent.streaming import StreamCollector
from steiner_tui.agent.tool_calls import ResultBudget, ToolRunner, run_tool_calls
from steiner_tui.engine.budget import FitResult
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.engine.compaction.escalation import CompactionCounter, over_window_health
from steiner_tui.engine.compaction.fallback import LastMainRequest, seed_last_main_request
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import snapshot_tools
from steiner_tui.engine.compaction.pins import (
    PINNABLE_ROLES,
    is_pinned_by,
    pin_key,
    pin_label,
)
from steiner_tui.engine.compaction.policy import (
    AutoCompaction,
    CompactionPolicy,
    CompactionQuestion,
    HeadlessPolicy,
    MaskLargest,
    PinsQuestion,
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
from steiner_tui.engine.costs import CostItem, PinnedShare, pinned_share, rank_request
from steiner_tui.engine.events import (
    CompactionOutcome,
    ErrorEvent,
    EventSink,
    MessageAppended,
    PinChanged,
    RequestSnapshot,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.ledger import ConversationLedger
from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.prompt.assembler import AssembledPrompt
from steiner_tui.engine.provider import ChatRequest, ProviderError
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.state.context_state import ContextState, build_context_state
from steiner_tui.engine.state.file_tracker import FileTracker
from steiner_tui.engine.tokens import TokenEstimate, TokenizerLoadError
from steiner_tui.engine.tokens.policy import HEURISTIC
from steiner_tui.engine.tokens.request import MESSAGE_FRAMING_TOKENS
from steiner_tui.engine.tool_budget import tool_result_budget
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import Mode, PermissionCallback, ToolContext, reject_all
from steiner_tui.tools.results import ResultStore, TemporaryResultStore

__all__ = ["EpisodeProgress", "PreparedTurn", "RunResult", "Runner", "RunnerState", "Status"]

_RETRY_TOO_LARGE = (
    "the provider found the request too large for the model's window; "
    "compacting and sending it once more"
)

MAX_TOOL_ROUNDS = 50
"""A safety stop for runaway tool loops within one episode."""

_MAX_QUESTIONS = 4
"""How many times ``ask`` asks before one request (masking may leave it over the trigger)."""
_MAX_UNPIN_ROUNDS = 3
"""How many times one compaction asks which pins to drop."""

Status = Literal["done", "cancelled", "error"]


@dataclass(frozen=True, slots=True)
class PreparedTurn:
    """A request ready to send, with the figures behind it.

    ``hashes`` and ``prompt_bytes`` are the request's message hashes and prompt bytes when the
    conversation's ledger already knew them (None: the snapshot computes them).
    """

    assembled: AssembledPrompt
    request: ChatRequest
    estimate: TokenEstimate
    fit: FitResult
    hashes: tuple[str, ...] | None = None
    prompt_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class RunResult:
    """How an episode ended: ``done`` with the final reply, ``cancelled``, or ``error``."""

    status: Status
    reply: str = ""
    error: str = ""
    error_kind: str = ""


@dataclass(slots=True)
class EpisodeProgress:
    """Per-episode counters: compaction stages and tool rounds."""

    compactions: CompactionCounter = field(default_factory=CompactionCounter)
    tool_rounds: int = 0
    retried_too_large: bool = False
    """The provider rejected a request as too large once in this episode (it was retried)."""


@dataclass(slots=True)
class RunnerState:
    """What a runner carries across episodes."""

    lineage: ConversationLineage = field(default_factory=ConversationLineage)
    last_main_request: LastMainRequest = field(default_factory=LastMainRequest)
    last_parent_request: ChatRequest | None = None
    """The last main request sent (a manual ``/compact`` summarizes with its tools)."""
    parent_usage: ParentUsage | None = None
    turn: int = 0
    tracker: FileTracker = field(default_factory=FileTracker)
    """The reads of the active generation (read dedup), rebuilt when a lineage is adopted."""
    context: ContextState = field(default_factory=ContextState)
    """The durable context state, rebuilt before every model call (compaction carries it)."""
    over_window: bool = False
    """The provider said the last request was too large: the next one compacts first."""
    off_warned: int = -1
    """The generation ``off`` mode last warned in about the nearing hard limit."""


class Runner:
    """Runs episodes of one conversation against one main model.

    Args:
        model: the main model.
        context: assembly and estimation for this session identity.
        tools: executes tool calls (None: no tools).
        sink: receives every engine event.
        project_root: where tools run.
        clock: the injected clock (LastMainRequest times, fallback idle checks).
        compaction: compaction settings (fallback, archive, pending sub-agents).
        lineage: a lineage to continue (resume); a fresh one otherwise.
        seed_last_main_request: the previous owner's LastMainRequest (kept only when alias,
            model and cache key match).
        results: where whole tool outputs are kept when the model gets part of them (None:
            a temporary folder, made when first needed).
        session_id: the session (or child) identity: request ids, the transport session.
        compaction_mode: ``auto``, ``ask`` or ``off`` (changeable live).
        policy: answers ``ask`` mode's questions and which pins to drop (None: nobody can
            answer, every question is refused: ``HeadlessPolicy``).
    """

    def __init__(
        self,
        *,
        model: MainModel,
        context: ContextManager,
        tools: ToolRunner | None,
        sink: EventSink,
        project_root: Path | None = None,
        clock: Clock | None = None,
        compaction: CompactionSettings | None = None,
        lineage: ConversationLineage | None = None,
        seed_last_main_request: LastMainRequest | None = None,
        permission: PermissionCallback = reject_all,
        mode: Mode = "build",
        session_id: str,
        results: ResultStore | None = None,
        compaction_mode: AutoCompaction = "auto",
        policy: CompactionPolicy | None = None,
    ) -> None:
        self.model = model
        self.context = context
        self.tools = tools
        self.sink = sink
        self.project_root = (project_root or Path.cwd()).resolve()
        self.clock: Clock = clock or SystemClock()
        self.permission = permission
        self.mode: Mode = mode
        self.session_id = session_id
        self.results: ResultStore = results if results is not None else TemporaryResultStore()
        """Where whole tool outputs are kept (tool results cut to budget, masked results)."""
        self.compaction_mode: AutoCompaction = compaction_mode
        """``auto``, ``ask`` or ``off``: read before every main call."""
        self.policy: CompactionPolicy = policy if policy is not None else HeadlessPolicy()
        """Answers ``ask`` mode and which pins to drop."""
        self.state = RunnerState()
        if lineage is not None:
            self.state.lineage = lineage
            self.state.tracker = FileTracker.rebuild(lineage.active.messages)
            self.state.turn = max((m.turn for m in lineage.active.messages), default=0)
        if seed_last_main_request is not None:
            self.state.last_main_request = seed_last_main_request_for(model, seed_last_main_request)
        self.ledger = ConversationLedger(context.estimator)
        """The active conversation's per-message request figures, kept incrementally."""
        self.snapshots = SnapshotBuilder(self.session_id, self.clock, context.estimator)
        """Numbers this runner's requests and builds their snapshots (summaries included)."""
        self.cache = CacheDiagnostics()
        """The cache baseline of this runner's main calls over the process's cold-start mark."""
        self.compactor = CompactionDriver(
            model=model,
            context=context,
            estimate_conversation=lambda messages: self.prepare(messages).estimate.tokens,
            snapshots=self.snapshots,
            cache=self.cache,
            sink=sink,
            clock=self.clock,
            adopt=self.adopt_lineage,
            settings=compaction or CompactionSettings(),
            session_id=self.session_id,
            results=self.results,
        )
        self.inbox: Callable[[], Sequence[Message]] | None = None
        """Messages to append before the next model call (background sub-agent results)."""
        self._limits_learned = model.limits_probe is None
        self._limits_lock = asyncio.Lock()

    # -- conversation -----------------------------------------------------------------------

    @property
    def lineage(self) -> ConversationLineage:
        return self.state.lineage

    @property
    def conversation(self) -> tuple[Message, ...]:
        return self.state.lineage.active.messages

    @property
    def last_main_request(self) -> LastMainRequest:
        return self.state.last_main_request

    @property
    def tool_definitions(self) -> tuple[ToolDefinition, ...]:
        """The tools requests carry: none when the model's server said it ignores them."""
        if self.tools is None or self.model.tools_ignored:
            return ()
        return self.tools.definitions()

    def switch_model(self, model: MainModel) -> None:
        """Answer with ``model`` from the next call on (``/model NAME``).

        The conversation, its lineage and the request numbering stay; the next request is
        assembled, estimated and fitted for ``model`` (its own tokenizer, window and reserves),
        summaries on main use it too, and a local server's limits are asked for again. A
        stateful provider's backend transcript is not carried over: it belongs to the model
        that made it, so the next request to a stateful model sends the whole conversation.
        """
        self.model = model
        self.compactor.model = model
        self._limits_learned = model.limits_probe is None
        self.state.lineage = self.state.lineage.clear_backend_state()

    async def learn_limits(self) -> bool:
        """Ask the model's server for its window and tool support, once (the probe runs in a
        thread); later calls, and calls while it runs, wait for that answer.

        Returns:
            True when the server answered and the model's limits were updated.
        """
        if self._limits_learned:
            return False
        async with self._limits_lock:
            probe = self.model.limits_probe
            if self._limits_learned or probe is None:
                return False
            limits = await asyncio.to_thread(probe)
            self._limits_learned = True
        if limits is None:
            return False
        self.model = self.model.with_server_limits(limits)
        self.compactor.model = self.model  # summaries on main use the learned limits too
        if self.model.tools_ignored and self.tools is not None:
            self.sink.emit(
                WarningEvent(
                    "tools_ignored",
                    f"{self.model.ref}: the {limits.server} server's chat template ignores "
                    "tool definitions; they are not sent (the model cannot call tools)",
                )
            )
        return True

    def append(self, message: Message) -> None:
        """Add ``message`` to the active conversation and tell the sinks."""
        self.state.lineage = self.state.lineage.append(message)
        self.sink.emit(MessageAppended(message))

    def adopt_lineage(self, lineage: ConversationLineage) -> None:
        """Replace the lineage (compaction results, resume)."""
        self.state.lineage = lineage
        self.state.tracker = FileTracker.rebuild(lineage.active.messages)
        self.ledger.forget()

    def replace_conversation(self, lineage: ConversationLineage) -> None:
        """Swap in another conversation (``/clear``, resume, fork): what the provider reported
        about the old one (usage, the stateful cap, a too-large rejection) no longer holds."""
        self.adopt_lineage(lineage)
        self.state.parent_usage = None
        self.state.over_window = False

    # -- pins ---------------------------------------------------------------------------------

    def pinned_messages(self) -> tuple[Message, ...]:
        """The active conversation's pinned messages, in order."""
        pinned = is_pinned_by(self.lineage.pins)
        return tuple(m for m in self.conversation if pinned(m))

    def pin(self, message: Message) -> str:
        """Pin ``message`` (of the active conversation): every compaction keeps it verbatim.

        Returns:
            Its pin key.

        Raises:
            ValueError: the message cannot be pinned (a summary, or not in the conversation).
        """
        if message.role not in PINNABLE_ROLES:
            raise ValueError(f"a {message.role} message cannot be pinned")
        if message not in self.conversation:
            raise ValueError("only a message of the active conversation can be pinned")
        key = pin_key(message)
        if key not in self.lineage.pins:
            self.state.lineage = self.lineage.pin(key)
            self.sink.emit(PinChanged(key, True, pin_label(message, self.conversation)))
        return key

    def unpin(self, key: str) -> bool:
        """Drop the pin ``key``; False when it was not pinned."""
        if key not in self.lineage.pins:
            return False
        named = next((m for m in self.conversation if pin_key(m) == key), None)
        label = pin_label(named, self.conversation) if named is not None else ""
        self.state.lineage = self.lineage.unpin(key)
        self.sink.emit(PinChanged(key, False, label))
        return True

    def mask_results(
        self, call_ids: Sequence[str], *, reason: str = ""
    ) -> CompactionOutcome | None:
        """Mask these tool results in a new generation (never rewriting what was sent); the
        outcome, recorded in the lineage, or None when none could be masked."""
        outcome = self.compactor.mask(self.lineage, call_ids, reason=reason)
        if outcome is not None:
            self.state.over_window = False
            if self.model.stateful:
                self.state.parent_usage = self._parent_usage().after_compaction()
        return outcome

    def cost_ranking(self, snapshot: RequestSnapshot | None = None) -> tuple[CostItem, ...]:
        """What ``snapshot`` (default: the dry run of the next request) holds, largest first
        (``engine.costs.rank_request``), counted with this session's estimator."""
        counter = EstimatorCounter(self.context.estimator, self.model.model)
        return rank_request(snapshot or self.preview(), counter, self.lineage.pins)

    def pinned_share(self, snapshot: RequestSnapshot) -> PinnedShare:
        """What ``snapshot``'s pinned messages take, in raw tokens as the panel's rows are."""
        counter = EstimatorCounter(self.context.estimator, self.model.model, calibrate=False)
        return pinned_share(snapshot, counter, self.lineage.pins)

    def refresh_context_state(self) -> ContextState:
        """Rebuild the durable context state from the active generation (every model call)."""
        self.state.context = build_context_state(
            self.conversation, self.state.turn, str(self.project_root)
        )
        return self.state.context

    def next_turn(self) -> int:
        self.state.turn += 1
        return self.state.turn

    def start_new_session(
        self,
        session_id: str,
        *,
        prompt_cache_key: str,
        archive: HistoryArchive | None,
        results: ResultStore | None = None,
    ) -> None:
        """Go on as a new session (``/clear`` in a recorded session); the conversation stays.

        Requests are numbered from 1 again under ``session_id``, the model sends
        ``prompt_cache_key``, the last main request is forgotten and compaction archives to
        ``archive``; whole tool outputs go to ``results`` when given. The snapshot builder and
        the compaction driver follow.
        """
        self.session_id = session_id
        self.model = replace(self.model, prompt_cache_key=prompt_cache_key)
        self.state.last_main_request = LastMainRequest()
        self.snapshots.session_id = session_id
        self.snapshots.next_index = FIRST_REQUEST
        self.compactor.model = self.model
        self.compactor.session_id = session_id
        self.compactor.settings = replace(self.compactor.settings, archive=archive)
        if results is not None:
            self.results = results
            self.compactor.results = results

    # -- preparing a request ----------------------------------------------------------------

    def prepare(self, conversation: Sequence[Message] | None = None) -> PreparedTurn:
        """Assemble and estimate a request over ``conversation`` (default: the active one).

        The active conversation goes through the runner's ledger, so a request costs what the
        messages added since the last one cost; any other conversation (compaction's
        estimates) is assembled and counted whole.
        """
        tools = self.tool_definitions
        hashes: tuple[str, ...] | None = None
        prompt_bytes: int | None = None
        if conversation is None:
            assembled, estimate, hashes, prompt_bytes = self._prepare_active(tools)
            messages = assembled.messages
        else:
            assembled = self.context.assemble(tuple(conversation))
            messages = assembled.messages
            if not self.model.sees_images:
                messages, _ = strip_images(messages)
            estimate = self.context.estimate(self.model.model, messages, tools)
        fit = self.model.budget.fit_request(estimate.tokens, self.model.explicit_max_tokens)
        request = ChatRequest(
            model=self.model.model,
            messages=messages,
            tools=tools,
            max_tokens=fit.reserve,
            prompt_cache_key=self.model.prompt_cache_key,
            transport_session=self.session_id,
            backend_state=self.state.lineage.active.backend_state if self.model.stateful else None,
            cacheable_prefix_messages=assembled.block_message_count,
            raw_prompt_tokens=estimate.raw_tokens,
            extra_body=self.model.request_fields,
        )
        return PreparedTurn(assembled, request, estimate, fit, hashes, prompt_bytes)

    def _project(self, message: Message) -> Message:
        projected = to_provider_message(message)
        if projected.images and not self.model.sees_images:
            projected = strip_images((projected,))[0][0]
        return projected

    def _prepare_active(
        self, tools: Sequence[ToolDefinition]
    ) -> tuple[AssembledPrompt, TokenEstimate, tuple[str, ...], int]:
        model_id = self.model.model
        prefix = self.context.prefix()
        blocks = prefix.messages
        view = self.ledger.sync(
            self.conversation, model_id, self._project, self.model.sees_images, blocks
        )
        estimator = self.context.estimator
        units = sum(estimator.message_units(model_id, m) for m in blocks) + view.units
        raw = estimator.raw_from_units(model_id, units, view.images, tools)
        assembled = AssembledPrompt(prefix.blocks, view.messages, len(blocks))
        prompt_bytes = sum(m.prompt_bytes for m in blocks) + view.prompt_bytes
        return assembled, estimator.calibrated(model_id, raw), view.hashes, prompt_bytes

    def preview(self, conversation: Sequence[Message] | None = None) -> RequestSnapshot:
        """The dry-run snapshot of the next request over ``conversation`` (default: the active
        one); nothing is sent or stored. Its ``fits`` says whether it can be sent as it is
        (False: "over the window")."""
        return self._snapshot(self.prepare(conversation), dry_run=True)

    def _snapshot(self, prepared: PreparedTurn, *, dry_run: bool = False) -> RequestSnapshot:
        return self.snapshots.build(
            prepared.request,
            provider=self.model.alias,
            estimate=prepared.estimate,
            generation_id=self.state.lineage.active.id,
            blocks=prepared.assembled.blocks,
            dry_run=dry_run,
            fit=prepared.fit,
            message_hashes=prepared.hashes,
            prompt_bytes=prepared.prompt_bytes,
        )

    # -- compaction -------------------------------------------------------------------------

    async def compact(
        self,
        counter: CompactionCounter | None = None,
        *,
        steering: str = "",
        manual: bool = False,
    ) -> CompactionOutcome | None:
        """Compact the active generation; returns the outcome, or None after a failure.

        Args:
            counter: the episode's stage counter (None: a fresh one).
            steering: manual ``/compact`` steering text.
            manual: a manual ``/compact``: the tools of the last main request, stages from 0.

        Failures are reported as warnings and leave the conversation as it was (minus a retired
        backend state). Cancellation propagates, also after dropping a retired backend state.
        """
        outcome, _ = await self._compact(counter, steering=steering, manual=manual)
        return outcome

    async def _compact(
        self, counter: CompactionCounter | None, *, steering: str = "", manual: bool = False
    ) -> tuple[CompactionOutcome | None, str]:
        """``compact``, asking which pins to drop while the pins alone cannot fit; the
        outcome, and the refusal's message when the policy would not unpin."""
        last = self.state.last_parent_request
        counter = counter or CompactionCounter()
        for _ in range(_MAX_UNPIN_ROUNDS):
            run = await self.compactor.compact(
                self.state.lineage,
                counter,
                tools=snapshot_tools(last) if manual else self.tool_definitions,
                last_main_request=self.state.last_main_request,
                steering=steering,
                manual=manual,
                context_state=self.refresh_context_state(),
            )
            if run.pins is None:
                break
            answer = await self.policy.ask_unpin(PinsQuestion.of(run.pins))
            if isinstance(answer, Refuse) or not answer.keys:
                return None, answer.message if isinstance(answer, Refuse) else str(run.pins)
            for key in answer.keys:
                self.unpin(key)
        outcome = run.outcome
        if outcome is not None and outcome.applied:
            self.state.over_window = False
            if self.model.stateful:
                self.state.parent_usage = self._parent_usage().after_compaction()
        return outcome, ""

    # -- one episode ------------------------------------------------------------------------

    async def run(self, user_message: Message | None = None) -> RunResult:
        """Run one episode, optionally starting with ``user_message``."""

        progress = EpisodeProgress()
        await self.learn_limits()
        self._drain_inbox()
        if user_message is not None and not self._is_resend(user_message):
            turn = self.next_turn()
            self.append(
                replace(user_message, turn=turn) if user_message.turn == 0 else user_message
            )
        reply = ""
        while True:
            self._drain_inbox()
            prepared_or_error = await self._prepare_turn(progress)
            if isinstance(prepared_or_error, RunResult):
                return prepared_or_error
            outcome = await self._call_model(prepared_or_error, progress)
            if isinstance(outcome, RunResult):
                if outcome.error_kind == "context_length" and not progress.retried_too_large:
                    # The provider counted more than we did: compact, then try once more.
                    progress.retried_too_large = True
                    continue
                return outcome
            reply = outcome.content
            if not outcome.tool_calls:
                return RunResult("done", reply=reply)
            progress.tool_rounds += 1
            await self._run_tools(outcome, prepared_or_error.estimate.tokens)
            if progress.tool_rounds >= MAX_TOOL_ROUNDS:
                message = f"stopped after {MAX_TOOL_ROUNDS} tool rounds in one episode"
                self.sink.emit(ErrorEvent("tool_rounds", message))
                return RunResult("error", reply=reply, error=message, error_kind="tool_rounds")

    def _is_resend(self, message: Message) -> bool:
        """``message`` repeats the last message, a user message that got no reply (its run was
        refused or failed before the model answered): it is not stored twice."""
        last = self.conversation[-1] if self.conversation else None
        if last is None or last.role != "user" or message.role != "user":
            return False
        prefix, blocks, rest = split_skill_blocks(message.content)
        if prefix or blocks:  # a new skill delta or mode notice must be sent: store it
            return False
        _, _, stored = split_skill_blocks(last.content)
        return (stored, last.images, last.source) == (rest, message.images, message.source)

    def _drain_inbox(self) -> None:
        if self.inbox is None:
            return
        for message in self.inbox():
            self.append(message if message.turn else replace(message, turn=self.state.turn))

    async def _prepare_turn(self, progress: EpisodeProgress) -> PreparedTurn | RunResult:
        try:
            return await self._prepare_fitting_turn(progress)
        except TokenizerLoadError as error:
            # The model's tokenizer is missing or broken: every fit would be a guess.
            text = labelled(self.model.ref, str(error))
            self.sink.emit(ErrorEvent("tokenizer", text))
            return RunResult("error", error=text, error_kind="tokenizer")

    async def _prepare_fitting_turn(self, progress: EpisodeProgress) -> PreparedTurn | RunResult:
        self.refresh_context_state()
        prepared = self.prepare()
        for _ in range(_MAX_QUESTIONS):
            reached, fits = self._needs(prepared)
            forced = self.state.over_window
            action = decide(self.compaction_mode, reached_soft=reached, fits=fits, forced=forced)
            if action == "send":
                break
            if action == "stop":
                return self._window_error(prepared, progress, off=True)
            steering = ""
            if action == "ask":
                question = self._question(prepared, fits, forced)
                answer = await self.policy.ask(question)
                self.sink.emit(asked_event(question, answer))
                if isinstance(answer, Refuse):
                    self.sink.emit(ErrorEvent("compaction_ask", answer.message))
                    return RunResult("error", error=answer.message, error_kind="compaction_ask")
                if isinstance(answer, SendAnyway):
                    if question.can_send:
                        break
                    continue  # the hard fit does not hold: never sent as it is
                if isinstance(answer, MaskLargest):
                    calls = [candidate.call_id for candidate in question.maskable]
                    self.mask_results(calls, reason="mask the largest tool results")
                    prepared = self.prepare()
                    continue
                steering = answer.focus
            _, refusal = await self._compact(progress.compactions, steering=steering)
            if refusal:
                self.sink.emit(ErrorEvent("pins_too_large", refusal))
                return RunResult("error", error=refusal, error_kind="pins_too_large")
            prepared = self.prepare()
            break
        if self.model.stateful and self._parent_usage().decision() == "cap_stop":
            text, health = stateful_cap_stop()
            self.sink.emit(health)
            self.sink.emit(ErrorEvent("context_window", text))
            return RunResult("error", error=text, error_kind="context_window")
        if not prepared.fit.fits:
            return self._window_error(prepared, progress, off=self.compaction_mode == "off")
        self._warn_near_hard_limit(prepared)
        return prepared

    def _needs(self, prepared: PreparedTurn) -> tuple[bool, bool]:
        """``(reached the soft trigger, fits)`` for ``decide``: a stateful provider decides
        from reported usage (its cap counts as not fitting)."""
        if self.model.stateful:
            decision = self._parent_usage().decision()
            return decision in ("compact", "cap_stop"), (
                decision != "cap_stop" and prepared.fit.fits
            )
        return self.model.budget.should_compact(prepared.estimate.tokens), prepared.fit.fits

    def _question(self, prepared: PreparedTurn, fits: bool, forced: bool) -> CompactionQuestion:
        budget, tokens = self.model.budget, prepared.estimate.tokens
        maskable = largest_tool_results(
            self.conversation,
            self._tokens_of,
            is_pinned_by(self.lineage.pins),
            mask_needed(budget, tokens, prepared.fit),
        )
        return question_for(budget, tokens, fits=fits, forced=forced, maskable=maskable)

    def _window_error(
        self, prepared: PreparedTurn, progress: EpisodeProgress, *, off: bool
    ) -> RunResult:
        fit = prepared.fit
        text = (
            f"request exceeds context window: ~{prepared.estimate.tokens} prompt tokens + "
            f"{fit.reserve} reserved + {fit.safety_margin} margin > "
            f"{self.model.budget.context_size}"
        )
        if self.state.over_window and fit.fits:
            text = "the provider rejected the last request as too large for the model's window"
        if self.model.stateful and self._parent_usage().decision() == "cap_stop":
            text, _ = stateful_cap_stop()
        if off:
            text = off_stop_message(text)
        self.sink.emit(over_window_health(progress.compactions.stages))
        self.sink.emit(ErrorEvent("context_window", text))
        return RunResult("error", error=text, error_kind="context_window")

    def _warn_near_hard_limit(self, prepared: PreparedTurn) -> None:
        """``off`` mode: once per generation, say that the hard fit is near."""
        generation = self.lineage.active.id
        if self.compaction_mode != "off" or self.state.off_warned == generation:
            return
        text = off_warning(self.model.budget, prepared.estimate.tokens, prepared.fit)
        if text:
            self.state.off_warned = generation
            self.sink.emit(WarningEvent("compaction_off", text))

    def _parent_usage(self) -> ParentUsage:

        usage = self.state.parent_usage
        window = self.model.info.context_window
        if usage is None:
            usage = ParentUsage(self.model.model, window, self.model.threshold_tokens)
        else:
            usage = usage.carried(self.model.model, window)
        self.state.parent_usage = usage
        return usage

    async def _call_model(
        self, prepared: PreparedTurn, progress: EpisodeProgress | None = None
    ) -> Message | RunResult:
        retried_without_images = False
        while True:
            # Every request actually sent has its own snapshot, the image-free retry included.
            snapshot = self._snapshot(prepared)
            self.sink.emit(snapshot)
            self.sink.emit(self.cache.main(snapshot))
            self.state.last_parent_request = prepared.request
            collector = StreamCollector(self.sink)
            try:
                await collector.consume(self.model.provider.stream(prepared.request))
            except asyncio.CancelledError:
                self._keep_partial(collector)
                raise
            except ProviderError as error:
                if (
                    error.kind == "image_rejected"
                    and not retried_without_images
                    and not collector.has_output
                ):
                    retried_without_images = True
                    prepared = self._without_images(prepared)
                    continue
                self._keep_partial(collector)
                text = labelled(self.model.ref, error.message)
                if error.kind == "context_length" and not collector.has_output:
                    self.state.over_window = True  # the next request compacts first
                    if progress is not None and not progress.retried_too_large:
                        # Not the end yet: the run compacts and sends it once more.
                        self.sink.emit(WarningEvent("context_length", _RETRY_TOO_LARGE))
                        return RunResult("error", error=text, error_kind=error.kind)
                self.sink.emit(ErrorEvent(error.kind, text, error.remedies))
                return RunResult("error", error=text, error_kind=error.kind)
            break
        return self._finish_call(prepared.request, prepared.estimate, collector)

    def _without_images(self, prepared: PreparedTurn) -> PreparedTurn:
        """The same request with every image replaced by its placeholder, estimated again."""
        request = prepared.request
        messages, _ = strip_images(request.messages)
        estimate = self.context.estimate(request.model, messages, request.tools)
        request = replace(request, messages=messages, raw_prompt_tokens=estimate.raw_tokens)
        # Other messages: the snapshot hashes and measures them afresh.
        return replace(prepared, request=request, estimate=estimate, hashes=None, prompt_bytes=None)

    def _keep_partial(self, collector: StreamCollector) -> None:
        # Tool calls of a cut-off reply are dropped: they never ran and have no results.
        if collector.text or collector.reasoning:
            self.append(
                Message(
                    "assistant",
                    collector.text,
                    reasoning=collector.reasoning,
                    turn=self.state.turn,
                    incomplete=True,
                )
            )

    def _finish_call(
        self, request: ChatRequest, estimate: TokenEstimate, collector: StreamCollector
    ) -> Message:
        self.state.last_main_request = LastMainRequest(
            self.model.alias, self.model.model, self.model.prompt_cache_key, self.clock.now()
        )
        usage = collector.usage
        if usage is not None:
            raw = request.raw_prompt_tokens or estimate.raw_tokens
            self.context.estimator.calibration.observe(self.model.model, usage.prompt_tokens, raw)
            self.sink.emit(
                UsageReported(
                    self.model.model,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    usage.cache_read_tokens,
                    usage.cache_write_tokens,
                    estimate.tokens,
                )
            )
            if self.model.stateful:
                self.state.parent_usage = self._parent_usage().observe(usage.prompt_tokens)
        done = collector.done
        if self.model.stateful and done is not None and done.backend_state:
            self.state.lineage = self.state.lineage.with_backend_state(done.backend_state)
        message = Message(
            "assistant",
            collector.text,
            reasoning=collector.reasoning,
            tool_calls=tuple(collector.tool_calls),
            turn=self.state.turn,
        )
        self.append(message)
        return message

    async def _run_tools(self, reply: Message, prompt_tokens: int) -> None:
        if self.tools is None:
            return
        ctx = ToolContext(
            project_root=self.project_root,
            mode=self.mode,
            turn=self.state.turn,
            permission=self.permission,
        )
        self.state.tracker = await run_tool_calls(
            reply.tool_calls,
            self.tools,
            ctx,
            self.state.tracker,
            self.sink,
            self.append,
            self._result_budget(prompt_tokens + self._tokens_of(reply)),
        )

    def _tokens_of(self, message: Message) -> int:
        return self.context.estimate(self.model.model, (message,), ()).tokens

    def _result_budget(self, prompt_tokens: int) -> ResultBudget:
        """Each result of this round within what the window has left (``tool_result_budget``)."""
        model = self.model
        estimator = self.context.estimator
        heuristic = estimator.choice(model.model).encoding == HEURISTIC

        def tokens_for(used: int, pending: int) -> int:
            return tool_result_budget(
                model.budget, prompt_tokens + used, pending, model.explicit_max_tokens
            )

        def count(text: str) -> int:
            raw = estimator.count_text(model.model, text) + MESSAGE_FRAMING_TOKENS
            return estimator.calibrated(model.model, raw).tokens

        return ResultBudget(tokens_for, count, 4 if heuristic else 3, self.results)


def labelled(ref: str, message: str) -> str:
    """``message`` starting with ``ref:`` once (SDK providers already start theirs with it)."""
    return message if message.startswith(f"{ref}:") else f"{ref}: {message}"


def seed_last_main_request_for(model: MainModel, seed: LastMainRequest) -> LastMainRequest:
    """The seed kept only when alias, backend model and prompt cache key match."""
    return seed_last_main_request(seed, model.alias, model.model, model.prompt_cache_key)
