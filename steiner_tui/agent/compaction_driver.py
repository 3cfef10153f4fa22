"""The runner's side of compaction: the host protocol and adopting the result.

The engine (``steiner_tui.engine.compaction``) decides what to summarize, where to cut and which
model writes the summary; this module gives it what needs the outside world (assembly,
estimation, the summary call) and applies the result to the runner: adopt the new lineage, then
count stages, emit health and append the history archive (in that order, as the design says).

Compaction calls never set LastMainRequest. Their requests are snapshotted with
``compaction=True`` so the request inspector shows them beside normal turns.

The engine's compaction modules (and ``ChatRequest``) are imported when a compaction runs, not
when a runner is built, so that start-up does not pay for them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from steiner_tui.agent.images import strip_images
from steiner_tui.engine.events import CompactionApplied, WarningEvent
from steiner_tui.engine.messages import Message

if TYPE_CHECKING:
    from steiner_tui.agent.runner import Runner
    from steiner_tui.engine.compaction.archive import HistoryArchive
    from steiner_tui.engine.compaction.escalation import CompactionCounter
    from steiner_tui.engine.compaction.fallback import CompactionFallback
    from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
    from steiner_tui.engine.compaction.operation import CompactionEnv
    from steiner_tui.engine.events import CompactionOutcome
    from steiner_tui.engine.provider import ChatRequest
    from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["CompactionDriver", "CompactionSettings"]


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    """How a runner compacts.

    Attributes:
        fallback: the compaction fallback model (None: disabled).
        archive: the history archive (interactive sessions and oneshot phases only).
        pending_sub_agents: returns ``(id, type, state)`` of sub-agents still pending.
    """

    fallback: CompactionFallback | None = None
    archive: HistoryArchive | None = None
    pending_sub_agents: Callable[[], Sequence[tuple[str, str, str]]] = field(default=lambda: ())


class CompactionDriver:
    """Implements ``CompactionHost`` for one runner and runs its compactions."""

    def __init__(self, runner: Runner, settings: CompactionSettings) -> None:
        self.runner = runner
        self.settings = settings
        self.last_parent_request: ChatRequest | None = None

    # -- CompactionHost ---------------------------------------------------------------------

    def estimate_conversation(self, messages: Sequence[Message]) -> int:
        return self.runner.prepare(messages).estimate.tokens

    def build_summary_request(
        self,
        messages: Sequence[Message],
        instruction: str,
        target: SummaryTarget,
        max_tokens: int,
        tools: Sequence[ToolDefinition],
    ) -> ChatRequest:
        from steiner_tui.engine.frozen import FrozenDict
        from steiner_tui.engine.provider import ChatRequest

        runner = self.runner
        assembled = runner.context.assemble((*messages, Message("user", instruction)))
        request_messages, _ = strip_images(assembled.messages)
        main = runner.model
        on_main = (target.alias, target.model) == (main.alias, main.model)
        return ChatRequest(
            model=target.model,
            messages=request_messages,
            tools=tuple(tools),
            max_tokens=max_tokens,
            prompt_cache_key=runner.model.prompt_cache_key,
            transport_session=runner.session_id,
            cacheable_prefix_messages=assembled.block_message_count,
            compaction=True,
            # The main model's configured request fields (a fallback model has none).
            extra_body=main.request_fields if on_main else FrozenDict(),
        )

    def estimate_request(self, request: ChatRequest, target: SummaryTarget) -> int:
        estimator = self.runner.context.estimator
        return estimator.estimate(target.model, request.messages, request.tools).tokens

    async def call_summary(self, request: ChatRequest, target: SummaryTarget) -> SummaryResponse:
        from steiner_tui.agent.streaming import StreamCollector
        from steiner_tui.engine.compaction.host import SummaryResponse
        from steiner_tui.engine.snapshots import build_request_snapshot

        runner = self.runner
        provider = target.provider or runner.model.provider
        estimate = runner.context.estimator.estimate(target.model, request.messages, request.tools)
        index = runner.state.request_index
        runner.state.request_index += 1
        runner.sink.emit(
            build_request_snapshot(
                request_id=f"{runner.session_id}-{index}",
                index=index,
                model=target.model,
                provider=target.alias,
                time=runner.clock.now(),
                messages=request.messages,
                blocks=(),
                block_message_count=request.cacheable_prefix_messages,
                tools=request.tools,
                max_tokens=request.max_tokens,
                estimate=estimate,
                compaction=True,
                generation_id=str(runner.lineage.active.id),
            )
        )
        # Summary text is not streamed to the conversation pane: no sink for deltas.
        collector = StreamCollector(None)
        await collector.consume(provider.stream(request))
        done = collector.done
        return SummaryResponse(collector.text, bool(done and done.clear_backend_state))

    # -- running ----------------------------------------------------------------------------

    def _env(self) -> CompactionEnv:
        from steiner_tui.engine.compaction.host import SummaryTarget
        from steiner_tui.engine.compaction.operation import CompactionEnv

        runner = self.runner
        main = SummaryTarget(
            alias=runner.model.alias,
            model=runner.model.model,
            budget=runner.model.budget,
            provider=runner.model.provider,
            stateful=runner.model.stateful,
        )
        return CompactionEnv(
            host=self,
            main=main,
            clock=runner.clock.now,
            sink=runner.sink,
            archive=self.settings.archive,
            fallback=self.settings.fallback,
            main_session=runner.session_id,
        )

    async def compact(
        self,
        counter: CompactionCounter,
        *,
        steering: str = "",
        manual: bool = False,
    ) -> CompactionOutcome | None:
        """Compact the active generation; returns the outcome, or None after a failure.

        Failures are reported as warnings and leave the conversation as it was (minus a retired
        backend state). Cancellation propagates, also after dropping a retired backend state.
        """
        from steiner_tui.engine.compaction.operation import (
            commit_compaction,
            compact_with_lineage,
            is_cancellation,
            lineage_after_error,
            snapshot_tools,
        )

        runner = self.runner
        lineage = runner.lineage
        tools = snapshot_tools(self.last_parent_request) if manual else runner.tool_definitions
        try:
            result = await compact_with_lineage(
                lineage,
                self._env(),
                tools=tools,
                steering=steering,
                manual=manual,
                pending_sub_agents=tuple(self.settings.pending_sub_agents()),
                last_main_request=runner.last_main_request,
                prior_stages=0 if manual else counter.stages,
            )
        except asyncio.CancelledError as error:
            # A main summary may have retired the backend transcript before the cancellation.
            runner.adopt_lineage(lineage_after_error(lineage, error))
            raise
        except Exception as error:
            runner.adopt_lineage(lineage_after_error(lineage, error))
            if is_cancellation(error):
                raise
            runner.sink.emit(WarningEvent("compaction_failed", f"compaction failed: {error}"))
            return None
        runner.adopt_lineage(result.lineage)
        outcome = result.outcome
        if outcome.applied:
            if runner.model.stateful:
                runner.state.parent_usage = runner._parent_usage().after_compaction()
            runner.sink.emit(CompactionApplied(result.lineage.active.id, outcome))
        commit_compaction(outcome, counter=counter, archive=self.settings.archive, sink=runner.sink)
        return outcome
