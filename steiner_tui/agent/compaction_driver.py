"""The runner's side of compaction: the engine's host, and applying what the engine returns.

The engine (``steiner_tui.engine.compaction``) decides what to summarize, where to cut and which
model writes the summary. This module gives it what needs the outside world (assembling and
estimating requests, the summary call) and applies the result: adopt the new lineage, announce
``CompactionApplied``, then count stages, emit health and append the history archive, in that
order (docs/design.md, "8. Compaction: turns, stages and the summary").

The driver is built from what it needs, not from the runner: the main model, the session's
context (assembly and estimation), how a normal request over a conversation is estimated, the
shared ``SnapshotBuilder``, the sink, the clock, the settings and a callable that adopts a
lineage. ``compact`` returns a ``CompactionRun`` value, retirement of the stateful backend
transcript included; on a failure the adopted lineage has dropped a retired backend state.

Compaction calls never set LastMainRequest. Their requests are snapshotted with
``compaction=True`` so the request inspector shows them beside normal turns, and get a cache
diagnostic: a main summary's moves the runner's cache baseline, a fallback's leaves the baseline
and the process-wide cold-start mark alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Sequence

import msgspec

from steiner_tui.agent.cache_diagnostics import CacheDiagnostics
from steiner_tui.agent.clock import Clock
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.images import strip_images
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.run_types import labelled
from steiner_tui.agent.snapshot_builder import SnapshotBuilder
from steiner_tui.agent.streaming import StreamCollector
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.failures import (
    CompactionCancelled,
    CompactionFailed,
    lineage_after_failure,
)
from steiner_tui.engine.compaction.fallback import CompactionFallback, LastMainRequest
from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.masking import mask_results
from steiner_tui.engine.compaction.operation import (
    CompactionEnv,
    commit_compaction,
    compact_with_lineage,
)
from steiner_tui.engine.compaction.pins import PinsTooLarge
from steiner_tui.engine.compaction.room import Sizer
from steiner_tui.engine.compaction.triggers import MASK_ON_REQUEST
from steiner_tui.engine.events import (
    CompactionApplied,
    CompactionOutcome,
    CompactionProgress,
    EngineEvent,
    EventSink,
    ReasoningDelta,
    RequestStopped,
    StaticContextReloaded,
    TextDelta,
    WarningEvent,
)
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.prices import cost_without_usage
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.provider import ChatRequest, ProviderError, usage_problem
from steiner_tui.engine.state.context_state import ContextState
from steiner_tui.engine.tokens import TokenEstimate
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.results import ResultStore

__all__ = ["CompactionDriver", "CompactionRun", "CompactionSettings"]


class CompactionSettings(msgspec.Struct, frozen=True):
    """How a runner compacts.

    Attributes:
        fallback: the compaction fallback model (None: disabled).
        archive: the history archive (interactive sessions and oneshot phases only).
        pending_sub_agents: returns ``(id, type, state)`` of sub-agents still pending.
    """

    fallback: CompactionFallback | None = None
    archive: HistoryArchive | None = None
    pending_sub_agents: Callable[[], Sequence[tuple[str, str, str]]] = lambda: ()


class CompactionRun(msgspec.Struct, frozen=True):
    """How one compaction went.

    Attributes:
        outcome: what the engine did; None when it failed (a warning said why).
        backend_state_retired: a main summary retired the stateful backend transcript; the
            adopted lineage no longer carries it.
        pins: the failure was the pinned messages alone not fitting (the runner asks which
            to unpin).
    """

    outcome: CompactionOutcome | None
    backend_state_retired: bool = False
    pins: PinsTooLarge | None = None


class CompactionDriver:
    """Runs the compactions of one runner's conversation.

    Args:
        model: the main model (its provider writes main summaries); the runner replaces it when
            it learns the model's limits from its server.
        context: the session's assembly and estimation.
        estimate_conversation: the calibrated prompt tokens of a normal main request over a
            conversation (the runner's preparation of a turn).
        snapshots: the runner's snapshot builder (summary calls are numbered with its turns).
        cache: the runner's cache diagnostics (a fallback's calls leave them alone).
        sink: receives snapshots, warnings, ``CompactionApplied`` and health.
        clock: the injected clock.
        adopt: replaces the runner's lineage (called before anything is announced).
        settings: fallback, archive and pending sub-agents.
        session_id: the runner's transport session.
        results: keeps the whole output of a tool result compaction masks (None: not kept).
    """

    def __init__(
        self,
        *,
        model: MainModel,
        context: ContextManager,
        estimate_conversation: Callable[[Sequence[Message]], int],
        snapshots: SnapshotBuilder,
        cache: CacheDiagnostics,
        sink: EventSink,
        clock: Clock,
        adopt: Callable[[ConversationLineage], None],
        settings: CompactionSettings,
        session_id: str,
        results: ResultStore | None = None,
    ) -> None:
        self.model = model
        self.context = context
        self.estimate_conversation = estimate_conversation
        self.snapshots = snapshots
        self.cache = cache
        self.sink = sink
        self.clock = clock
        self.adopt = adopt
        self.settings = settings
        self.session_id = session_id
        self.results = results

    async def compact(
        self,
        lineage: ConversationLineage,
        counter: CompactionCounter,
        *,
        tools: Sequence[ToolDefinition],
        last_main_request: LastMainRequest,
        steering: str = "",
        manual: bool = False,
        context_state: ContextState | None = None,
        trigger: str = "",
    ) -> CompactionRun:
        """Compact the active generation of ``lineage`` and adopt the result.

        Args:
            lineage: the runner's lineage.
            counter: the episode's stage counter (a manual compaction passes a fresh one).
            tools: the tools of a normal turn (manual: those of the last main request).
            last_main_request: for the fallback's cold-cache test.
            steering: manual ``/compact`` steering text.
            manual: a manual ``/compact``.
            context_state: the runner's durable context state (the instruction carries it).
            trigger: why it runs (``engine.compaction.triggers``), recorded in the outcome.

        Returns:
            The outcome (None after a failure, reported as a warning) and the retirement.

        Raises:
            CompactionCancelled: the task was cancelled (the lineage is adopted first).
            CompactionFailed: a cancellation that was not a ``CancelledError`` (likewise).
        """
        progress = _ProgressSink(self.sink)
        env = CompactionEnv(
            host=_Host(self, lineage.active.id, progress),
            main=SummaryTarget(
                alias=self.model.alias,
                model=self.model.model,
                budget=self.model.budget,
                provider=self.model.provider,
                stateful=self.model.stateful,
                vision=self.model.sees_images,
            ),
            clock=self.clock.now,
            sink=progress,
            archive=self.settings.archive,
            fallback=self.settings.fallback,
            main_session=self.session_id,
            cache_scope=self.model.prompt_cache_key,
        )
        try:
            result = await compact_with_lineage(
                lineage,
                env,
                tools=tools,
                steering=steering,
                manual=manual,
                pending_sub_agents=tuple(self.settings.pending_sub_agents()),
                last_main_request=last_main_request,
                prior_stages=0 if manual else counter.stages,
                context_state=context_state,
                trigger=trigger,
            )
        except CompactionCancelled as cancelled:
            self.adopt(lineage_after_failure(lineage, cancelled))
            raise
        except CompactionFailed as failure:
            self.adopt(lineage_after_failure(lineage, failure))
            if failure.cancelled:
                raise
            self.sink.emit(WarningEvent("compaction_failed", f"compaction failed: {failure}"))
            pins = failure.error if isinstance(failure.error, PinsTooLarge) else None
            return CompactionRun(None, failure.backend_state_retired, pins)
        self.adopt(result.lineage)
        outcome = result.outcome
        if outcome.applied:
            self.sink.emit(CompactionApplied(result.lineage.active.id, outcome))
            # Files changed on disk wait for this moment: it re-sends the conversation anyway.
            reloaded = self.context.reload_pending()
            if reloaded:
                names = tuple(sorted(str(p) for p in reloaded))
                self.sink.emit(StaticContextReloaded(names, "compaction"))
        commit_compaction(result, counter=counter, archive=self.settings.archive, sink=self.sink)
        return CompactionRun(outcome, result.backend_state_retired)

    def mask(
        self,
        lineage: ConversationLineage,
        call_ids: Collection[str],
        *,
        reason: str = "",
        trigger: str = MASK_ON_REQUEST,
    ) -> CompactionOutcome | None:
        """Mask the tool results ``call_ids`` of the active generation in a new generation
        (``masking.mask_results``), adopt it and announce it; None when nothing was masked."""
        host = _Host(self, lineage.active.id)
        main = SummaryTarget(
            alias=self.model.alias,
            model=self.model.model,
            budget=self.model.budget,
            vision=self.model.sees_images,
        )
        sizer = Sizer.of(host, main)
        masked = mask_results(
            lineage,
            call_ids,
            sizer=sizer,
            estimate=self.estimate_conversation,
            at=self.clock.now(),
            reason=reason,
            trigger=trigger,
        )
        if masked is None:
            return None
        new_lineage, outcome = masked
        self.adopt(new_lineage)
        self.sink.emit(CompactionApplied(new_lineage.active.id, outcome))
        return outcome


PROGRESS_STEP = 16
"""Estimated summary tokens between two ``CompactionProgress`` events of one call."""


class _ProgressSink(msgspec.Struct):
    """The compaction's sink: forwards every event and remembers the summary call that started
    last (the engine's ``CompactionProgress``), which the call's streamed output updates."""

    sink: EventSink
    started: CompactionProgress | None = None
    chars: int = 0
    said: int = 0

    def emit(self, event: EngineEvent) -> None:
        if isinstance(event, CompactionProgress):
            self.started, self.chars, self.said = event, 0, 0
        self.sink.emit(event)

    def output(self, event: EngineEvent) -> None:
        """A streamed summary delta: say the tokens so far (characters / 4) every step."""
        if self.started is None or not isinstance(event, TextDelta | ReasoningDelta):
            return
        self.chars += len(event.text)
        tokens = self.chars // 4
        if tokens - self.said >= PROGRESS_STEP:
            self.said = tokens
            self.sink.emit(msgspec.structs.replace(self.started, tokens=tokens))


class _Counted(msgspec.Struct):
    """An ``EventSink`` over a callable (the summary stream's deltas)."""

    emit: Callable[[EngineEvent], None]


class _Built(msgspec.Struct):
    """A summary request's assembly: its messages, blocks and (once made) its estimate."""

    messages: Sequence[Message]
    blocks: tuple[ContextBlock, ...]
    estimate: TokenEstimate | None = None


class _Host(msgspec.Struct):
    """The engine's ``CompactionHost`` for one compaction of generation ``generation_id``.

    It remembers what each summary request was assembled from (its blocks, its estimate), so
    the snapshot of the call shows the blocks like a normal request's and reuses the estimate
    the plan fit was made with. The engine may replace fields of the request it built (its
    isolation fields), never its messages, so the messages tuple identifies the assembly.
    """

    driver: CompactionDriver
    generation_id: int
    progress: _ProgressSink | None = None
    built: dict[int, _Built] = msgspec.field(default_factory=dict)

    def estimate_conversation(self, messages: Sequence[Message]) -> int:
        return self.driver.estimate_conversation(messages)

    def build_summary_request(
        self,
        messages: Sequence[Message],
        instruction: str,
        target: SummaryTarget,
        max_tokens: int,
        tools: Sequence[ToolDefinition],
    ) -> ChatRequest:
        driver = self.driver
        assembled = driver.context.assemble((*messages, Message("user", instruction)))
        request_messages = assembled.messages
        if not target.vision:  # as in a normal turn: only a model without vision loses images
            request_messages, _ = strip_images(request_messages)
        main = driver.model
        on_main = (target.alias, target.model) == (main.alias, main.model)
        self.built[id(request_messages)] = _Built(request_messages, assembled.blocks)
        return ChatRequest(
            model=target.model,
            messages=request_messages,
            tools=tuple(tools),
            max_tokens=max_tokens,
            prompt_cache_key=main.prompt_cache_key,
            transport_session=driver.session_id,
            cacheable_prefix_messages=assembled.block_message_count,
            compaction=True,
            # The main model's configured request fields (a fallback model has none).
            extra_body=main.request_fields if on_main else FrozenDict(),
        )

    def _assembly(self, request: ChatRequest) -> _Built:
        built = self.built.get(id(request.messages))
        if built is None or built.messages is not request.messages:
            built = _Built(request.messages, ())
        return built

    def estimate_request(self, request: ChatRequest, target: SummaryTarget) -> int:
        built = self._assembly(request)
        estimator = self.driver.context.estimator
        built.estimate = estimator.estimate(target.model, request.messages, request.tools)
        return built.estimate.tokens

    def message_tokens(self, message: Message, target: SummaryTarget) -> int:
        projected = to_provider_message(message)
        if not target.vision and projected.images:
            projected = strip_images((projected,))[0][0]
        estimator = self.driver.context.estimator
        return estimator.estimate(target.model, (projected,)).tokens

    def save_full_output(self, message: Message) -> str:
        store = self.driver.results
        if store is None:
            return ""
        key = message.tool_call_id or f"masked-{message.digest()}"
        # A result cut when it arrived was saved whole then: keep that, not the cut view.
        try:
            return store.location(key) or store.save(key, message.content)
        except OSError:
            return ""

    async def call_summary(self, request: ChatRequest, target: SummaryTarget) -> SummaryResponse:
        driver = self.driver
        provider = target.provider or driver.model.provider
        built = self._assembly(request)
        estimate = built.estimate or driver.context.estimator.estimate(
            target.model, request.messages, request.tools
        )
        snapshot = driver.snapshots.build(
            request,
            provider=target.alias,
            estimate=estimate,
            generation_id=self.generation_id,
            blocks=built.blocks,
        )
        driver.sink.emit(snapshot)
        cache = driver.cache
        driver.sink.emit(cache.fallback(snapshot) if target.fallback else cache.main(snapshot))
        # Summary text is not streamed to the conversation pane: its deltas only count.
        progress = self.progress
        collector = StreamCollector(None if progress is None else _Counted(progress.output))
        price = target.price if target.fallback else driver.model.price
        try:
            await collector.consume(provider.stream(request))
        except asyncio.CancelledError:
            cost = cost_without_usage(price)
            driver.sink.emit(RequestStopped(snapshot.request_id, cost_usd=cost))
            raise
        except ProviderError as error:
            said = labelled(f"{target.alias}/{target.model}", error.message)
            cost = cost_without_usage(price)
            driver.sink.emit(RequestStopped(snapshot.request_id, said, cost_usd=cost))
            raise
        usage = collector.usage
        if usage is not None and not usage_problem(usage):  # priced into the session's total
            driver.sink.emit(cache.summary_usage(usage, snapshot, price=price))
        done = collector.done
        return SummaryResponse(collector.text, bool(done and done.clear_backend_state))
