"""The runner: drives turns until the model answers without tools.

One ``Runner`` owns one conversation lineage (a session, an exec run, a oneshot phase, or a
delegated child). A run of the runner (``run``) is one *episode*: the user's message, then
model calls and tool rounds until a reply without tool calls, a cancellation, or an error.

Per model call:

1. Assemble the request (static prefix, session date, conversation) and estimate it once
   (``prepare``: the active conversation goes through the ledger).
2. The pre-request gate (``compaction_gate``): compaction when the soft trigger or the hard fit
   says so (stateful providers decide from reported usage instead), ``ask`` mode's question,
   ``off`` mode's warning or stop; then assemble again.
3. Fit the completion reserve, emit the request snapshot, stream the call (``model_call``:
   partial replies kept, the image-free retry, a too-large rejection compacted and retried once).
4. On success: LastMainRequest, calibration from usage, the assistant message, then tools
   (``tool_calls``, each result within its budget).

Before step 1 (and after a compaction) what the request adds is counted in a worker thread
(``count_ahead``), so the steps above, on the app's event loop, only read cached counts.

The runner keeps the state those modules read and change (``RunnerState``, ``run_types``) and
the operations on the conversation: pins, masking, manual compaction, model switches.

Server limits: before its first request the runner asks a local model's server for its window
and tool support (``learn_limits``, ``model_limits``). Request counts and their caches are
``request_counting``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from steiner_tui.agent.cache_diagnostics import CacheDiagnostics
from steiner_tui.agent.clock import Clock, SystemClock
from steiner_tui.agent.compaction_driver import CompactionDriver, CompactionSettings
from steiner_tui.agent.compaction_gate import prepare_turn
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.cost_counter import EstimatorCounter
from steiner_tui.agent.images import strip_images
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.model_call import call_model
from steiner_tui.agent.model_limits import ModelLimits, learned_events
from steiner_tui.agent.pinning import pin_message, pinned_messages, unpin_key
from steiner_tui.agent.request_counting import RequestCounter
from steiner_tui.agent.run_types import (
    EpisodeProgress,
    PreparedTurn,
    RunnerState,
    RunResult,
    Status,
)
from steiner_tui.agent.snapshot_builder import FIRST_REQUEST, SnapshotBuilder
from steiner_tui.agent.tool_calls import ResultBudget, ToolRunner, result_budget, run_tool_calls
from steiner_tui.engine.chain import Chain
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.fallback import LastMainRequest, seed_last_main_request
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import snapshot_tools
from steiner_tui.engine.compaction.policy import (
    AutoCompaction,
    CompactionPolicy,
    HeadlessPolicy,
    PinsQuestion,
    Refuse,
)
from steiner_tui.engine.compaction.stateful import ParentUsage
from steiner_tui.engine.compaction.triggers import MANUAL, MASK_ON_REQUEST
from steiner_tui.engine.costs import CostItem, PinnedShare, pinned_share, rank_request
from steiner_tui.engine.events import (
    CompactionOutcome,
    ErrorEvent,
    EventSink,
    MessageAppended,
    RequestSnapshot,
)
from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.state.context_state import ContextState
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.engine.window_doctor import WindowDoctor
from steiner_tui.tools.base import Mode, PermissionCallback, ToolContext, reject_all
from steiner_tui.tools.results import ResultStore, TemporaryResultStore

__all__ = ["EpisodeProgress", "PreparedTurn", "RunResult", "Runner", "RunnerState", "Status"]

MAX_TOOL_ROUNDS = 50
"""A safety stop for runaway tool loops within one episode."""

_MAX_UNPIN_ROUNDS = 3
"""How many times one compaction asks which pins to drop."""


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
            self.state.track(lineage.active.messages)
            self.state.turn = max((m.turn for m in lineage.active.messages), default=0)
        if seed_last_main_request is not None:
            self.state.last_main_request = seed_last_main_request_for(model, seed_last_main_request)
        self.counter = RequestCounter(context, self._project)
        """Counts requests (the ledger, the memoized prefix, what was counted ahead)."""
        self._definitions: tuple[ToolRunner | None, tuple[ToolDefinition, ...]] = (None, ())
        """The tool runner whose definitions ``tool_definitions`` holds, and those."""
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
        self.limits = ModelLimits(model)
        """Whether the server's limits were learned, and the window problems told."""

    # -- conversation -----------------------------------------------------------------------

    @property
    def lineage(self) -> ConversationLineage:
        return self.state.lineage

    @property
    def conversation(self) -> Chain[Message]:
        return self.state.lineage.active.messages

    @property
    def last_main_request(self) -> LastMainRequest:
        return self.state.last_main_request

    @property
    def tool_definitions(self) -> tuple[ToolDefinition, ...]:
        """The tools requests carry: none when the model's server said it ignores them."""
        tools = self.tools
        if tools is None or self.model.tools_ignored:
            return ()
        held, definitions = self._definitions
        if held is not tools:  # a runner's tools are fixed: asked for seven times a turn
            definitions = tools.definitions()
            self._definitions = (tools, definitions)
        return definitions

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
        self.limits.forget(model)
        self.state.lineage = self.state.lineage.clear_backend_state()

    async def learn_limits(self) -> bool:
        """Ask the model's server for its window and tool support, once it answers (the probe
        runs in a thread); later calls, and calls while it runs, wait for that answer. A server
        that could not be reached is asked again by the next call (every run starts with one):
        it may have been started since.

        Returns:
            True when the server answered and the model's limits were updated.
        """
        limits = await self.limits.learn(lambda: self.model)
        if limits is None:
            return False
        again = bool(self.model.server)
        self.model = self.model.with_server_limits(limits)
        self.compactor.model = self.model  # summaries on main use the learned limits too
        for event in learned_events(self.model, limits.server, self.tools is not None, again):
            self.sink.emit(event)
        return True

    def check_window(self) -> str:
        """Warn once per problem when the model's budget cannot reach its soft trigger
        (``engine.window_doctor``); returns the problem ("" when there is none)."""
        return self.limits.check_window(self.model, self.sink.emit, self.fixed_tokens)

    def append(self, message: Message) -> None:
        """Add ``message`` to the active conversation and tell the sinks."""
        self.state.lineage = self.state.lineage.append(message)
        self.sink.emit(MessageAppended(message))

    def adopt_lineage(self, lineage: ConversationLineage) -> None:
        """Replace the lineage (compaction results, resume)."""
        self.state.lineage = lineage
        self.state.soft_held = 0
        self.state.track(lineage.active.messages)
        self.counter.ledger.forget()

    def replace_conversation(self, lineage: ConversationLineage) -> None:
        """Swap in another conversation (``/clear``, resume, fork): what the provider reported
        about the old one (usage, the stateful cap, a too-large rejection) no longer holds."""
        self.adopt_lineage(lineage)
        self.state.parent_usage = None
        self.state.over_window = False

    # -- pins ---------------------------------------------------------------------------------

    def pinned_messages(self) -> tuple[Message, ...]:
        """The active conversation's pinned messages, in order."""
        return pinned_messages(self.lineage)

    def pin(self, message: Message) -> str:
        """Pin ``message`` (``agent.pinning.pin_message``); its pin key. Raises ValueError
        when it cannot be pinned (a summary, or not in the conversation)."""
        self.state.lineage, key, event = pin_message(self.lineage, message)
        if event is not None:
            self.sink.emit(event)
        return key

    def unpin(self, key: str) -> bool:
        """Drop the pin ``key``; False when it was not pinned."""
        unpinned = unpin_key(self.lineage, key)
        if unpinned is None:
            return False
        self.state.lineage, event = unpinned
        self.sink.emit(event)
        return True

    def mask_results(
        self, call_ids: Sequence[str], *, reason: str = "", trigger: str = MASK_ON_REQUEST
    ) -> CompactionOutcome | None:
        """Mask these tool results in a new generation (never rewriting what was sent); the
        outcome, recorded in the lineage, or None when none could be masked."""
        outcome = self.compactor.mask(self.lineage, call_ids, reason=reason, trigger=trigger)
        if outcome is not None:
            self.state.over_window = False
            if self.model.stateful:
                self.state.parent_usage = self.parent_usage().after_compaction()
        return outcome

    def cost_ranking(self, snapshot: RequestSnapshot | None = None) -> tuple[CostItem, ...]:
        """What ``snapshot`` (default: the dry run of the next request) holds, largest first
        (``engine.costs.rank_request``), counted with this session's estimator, raw as the
        snapshot's per-source figures are."""
        counter = EstimatorCounter(self.context.estimator, self.model.model, calibrate=False)
        return rank_request(snapshot or self.preview(), counter, self.lineage.pins)

    def pinned_share(self, snapshot: RequestSnapshot) -> PinnedShare:
        """What ``snapshot``'s pinned messages take, in raw tokens as the panel's rows are."""
        counter = EstimatorCounter(self.context.estimator, self.model.model, calibrate=False)
        return pinned_share(snapshot, counter, self.lineage.pins)

    def note_context_state(self) -> None:
        """Note what the durable context state is built from (before every model call): it is
        built when read (``RunnerState.context``)."""
        self.state.context_of = (self.conversation, self.state.turn, str(self.project_root))

    def refresh_context_state(self) -> ContextState:
        """The durable context state of the active generation, now."""
        self.note_context_state()
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
        self.model = msgspec.structs.replace(self.model, prompt_cache_key=prompt_cache_key)
        self.state.last_main_request = LastMainRequest()
        self.snapshots.session_id = session_id
        self.snapshots.next_index = FIRST_REQUEST
        self.compactor.model = self.model
        self.compactor.session_id = session_id
        self.compactor.settings = msgspec.structs.replace(self.compactor.settings, archive=archive)
        if results is not None:
            self.results = results
            self.compactor.results = results

    # -- preparing a request ----------------------------------------------------------------

    def prepare(self, conversation: Sequence[Message] | None = None) -> PreparedTurn:
        """Assemble and estimate a request over ``conversation`` (default: the active one).

        (``RequestCounter.prepare``).
        """
        active = self.state.lineage.active
        return self.counter.prepare(
            self.model, self.tool_definitions, self.session_id, active, conversation
        )

    def _project(self, message: Message) -> Message:
        projected = to_provider_message(message)
        if projected.images and not self.model.sees_images:
            projected = strip_images((projected,))[0][0]
        return projected

    async def count_next_request(self) -> None:
        """Count what the next request adds in a worker thread (``agent.count_ahead``)."""
        await self.counter.count_next(self.model, self.conversation, self.tool_definitions)

    def preview(self, conversation: Sequence[Message] | None = None) -> RequestSnapshot:
        """The dry-run snapshot of the next request over ``conversation`` (default: the active
        one); nothing is sent or stored. Its ``fits`` says whether it can be sent as it is
        (False: "over the window")."""
        return self.snapshot_of(self.prepare(conversation), dry_run=True)

    def snapshot_of(self, prepared: PreparedTurn, *, dry_run: bool = False) -> RequestSnapshot:
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
        trigger: str = "",
    ) -> CompactionOutcome | None:
        """Compact the active generation; returns the outcome, or None after a failure.

        Args:
            counter: the episode's stage counter (None: a fresh one).
            steering: manual ``/compact`` steering text.
            manual: a manual ``/compact``: the tools of the last main request, stages from 0.
            trigger: why (``engine.compaction.triggers``; default: ``manual /compact`` when
                ``manual``, else not recorded).

        Failures are reported as warnings and leave the conversation as it was (minus a retired
        backend state). Cancellation propagates, also after dropping a retired backend state.
        """
        trigger = trigger or (MANUAL if manual else "")
        outcome, _ = await self.compact_asking_pins(
            counter, steering=steering, manual=manual, trigger=trigger
        )
        return outcome

    async def compact_asking_pins(
        self,
        counter: CompactionCounter | None,
        *,
        steering: str = "",
        manual: bool = False,
        trigger: str = "",
    ) -> tuple[CompactionOutcome | None, str]:
        """``compact``, asking which pins to drop while the pins alone cannot fit; the
        outcome, and the refusal's message when the policy would not unpin."""
        last = self.state.last_parent_request
        counter = counter or CompactionCounter()
        self._recheck_last_main_request()
        for _ in range(_MAX_UNPIN_ROUNDS):
            run = await self.compactor.compact(
                self.state.lineage,
                counter,
                tools=snapshot_tools(last) if manual else self.tool_definitions,
                last_main_request=self.state.last_main_request,
                steering=steering,
                manual=manual,
                context_state=self.refresh_context_state(),
                trigger=trigger,
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
                self.state.parent_usage = self.parent_usage().after_compaction()
            await self.count_next_request()
        return outcome, ""

    # -- one episode ------------------------------------------------------------------------

    async def run(self, user_message: Message | None = None) -> RunResult:
        """Run one episode, optionally starting with ``user_message``."""

        progress = EpisodeProgress()
        # "Again" is within one run: a resend of a failed one (same turn) starts afresh.
        self.state.compacted_turn = -1
        await self.learn_limits()
        if self.model.threshold_error:  # e.g. a server's window below the threshold
            self.sink.emit(ErrorEvent("config", self.model.threshold_error))
            return RunResult("error", error=self.model.threshold_error, error_kind="config")
        self._recheck_last_main_request()
        self._drain_inbox()
        if user_message is not None and not self._is_resend(user_message):
            turn = self.next_turn()
            self.append(
                msgspec.structs.replace(user_message, turn=turn)
                if user_message.turn == 0
                else user_message
            )
        reply = ""
        while True:
            self._drain_inbox()
            await self.count_next_request()
            self.check_window()  # once counted: it compares what every request costs
            prepared_or_error = await prepare_turn(self, progress)
            if isinstance(prepared_or_error, RunResult):
                return self.limits.after_run(self.model, prepared_or_error)
            outcome = await call_model(self, prepared_or_error, progress)
            if isinstance(outcome, RunResult):
                if outcome.error_kind == "context_length" and not progress.retried_too_large:
                    # The provider counted more than we did: compact, then try once more.
                    progress.retried_too_large = True
                    continue
                return self.limits.after_run(self.model, outcome)
            reply = outcome.content
            if not outcome.tool_calls:
                return RunResult("done", reply=reply)
            progress.tool_rounds += 1
            await self._run_tools(outcome, prepared_or_error.estimate.tokens)
            if progress.tool_rounds >= MAX_TOOL_ROUNDS:
                message = f"stopped after {MAX_TOOL_ROUNDS} tool rounds in one episode"
                self.sink.emit(ErrorEvent("tool_rounds", message))
                return RunResult("error", reply=reply, error=message, error_kind="tool_rounds")

    def _recheck_last_main_request(self) -> None:
        """Keep the last main request only while it is this model's (alias, backend model and
        cache key): after ``/model`` the old model's request must not make the new model's
        cache look warm. Checked on every run and compaction, not only when built."""
        self.state.last_main_request = seed_last_main_request_for(
            self.model, self.state.last_main_request
        )

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
            self.append(
                message if message.turn else msgspec.structs.replace(message, turn=self.state.turn)
            )

    def parent_usage(self) -> ParentUsage:
        """What a stateful provider reported, carried over to the current model and window."""
        usage = self.state.parent_usage
        window = self.model.info.context_window
        if usage is None:
            usage = ParentUsage(self.model.model, window, self.model.threshold_tokens)
        else:
            usage = usage.carried(self.model.model, window)
        self.state.parent_usage = usage
        return usage

    async def _run_tools(self, reply: Message, prompt_tokens: int) -> None:
        if self.tools is None:
            return
        ctx = ToolContext(
            project_root=self.project_root,
            mode=self.mode,
            turn=self.state.turn,
            permission=self.permission,
            results=self.results,
        )

        def budget() -> ResultBudget:  # it counts the reply: in a thread if that is long
            return result_budget(
                self.model,
                self.context.estimator,
                self.results,
                prompt_tokens + self.tokens_of(reply),
                self.fixed_tokens(),
            )

        chars = len(reply.content) + sum(len(call.arguments_json) for call in reply.tool_calls)
        self.state.tracker = await run_tool_calls(
            reply.tool_calls,
            self.tools,
            ctx,
            self.state.tracker,
            self.sink,
            self.append,
            budget,
            chars,
        )

    def tokens_of(self, message: Message) -> int:
        """``message``'s calibrated tokens on the main model, alone."""
        return self.context.estimate(self.model.model, (message,), ()).tokens

    def fixed_tokens(self) -> int:
        """The calibrated tokens of a request with no conversation: what every request pays
        (``RequestCounter.fixed_tokens``)."""
        return self.counter.fixed_tokens(self.model.model, self.tool_definitions)

    def window_doctor(self) -> WindowDoctor:
        """The model's window figures, with the largest tool result this runner's fixed part
        of a request leaves room for."""
        return self.model.window_doctor(self.fixed_tokens())


def seed_last_main_request_for(model: MainModel, seed: LastMainRequest) -> LastMainRequest:
    """The seed kept only when alias, backend model and prompt cache key match."""
    return seed_last_main_request(seed, model.alias, model.model, model.prompt_cache_key)
