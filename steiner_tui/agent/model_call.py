"""One main model call: the request's snapshot, the stream, and what the reply leaves behind.

Every request actually sent has its own snapshot (the image-free retry included). A call
rejected for its images is retried once without them, and the provider remembers the rejection
for the session (``MainModel.sees_images``), so later turns send one request, already without
images. Cancellation stores what was streamed as an ``incomplete`` assistant message; provider
errors do the same and end the call with an ``ErrorEvent`` carrying the error's remedies, except
a first ``context_length`` rejection with nothing streamed: the runner compacts and sends once
more (unless compacting left the request unchanged). Nothing the user saw is lost.

On success: the ``LastMainRequest``, calibration from the reported usage, a stateful provider's
backend state, and the assistant message appended to the conversation.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

import msgspec

from steiner_tui.agent.cache_diagnostics import CacheDiagnostics, params_key
from steiner_tui.agent.clock import Clock
from steiner_tui.agent.context_manager import ContextManager
from steiner_tui.agent.images import strip_images
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.run_types import (
    EpisodeProgress,
    PreparedTurn,
    RunnerState,
    RunResult,
    labelled,
)
from steiner_tui.agent.streaming import StreamCollector
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.stateful import ParentUsage
from steiner_tui.engine.events import (
    ErrorEvent,
    EventSink,
    RequestSnapshot,
    RequestStopped,
    WarningEvent,
)
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import cost_without_usage
from steiner_tui.engine.provider import ChatRequest, ProviderError, usage_problem
from steiner_tui.engine.tokens import TokenEstimate

__all__ = ["CallHost", "call_model"]

_RETRY_TOO_LARGE = (
    "the provider found the request too large for the model's window; "
    "compacting, and sending it once more if that made it smaller"
)


class CallHost(Protocol):
    """What a model call reads and calls on the runner (``Runner`` implements it)."""

    model: MainModel
    context: ContextManager
    sink: EventSink
    clock: Clock
    cache: CacheDiagnostics
    state: RunnerState

    def snapshot_of(self, prepared: PreparedTurn, *, dry_run: bool = False) -> RequestSnapshot: ...

    def append(self, message: Message) -> None: ...

    def parent_usage(self) -> ParentUsage: ...


async def call_model(
    host: CallHost, prepared: PreparedTurn, progress: EpisodeProgress | None = None
) -> Message | RunResult:
    """Send ``prepared`` and stream the reply; the assistant message appended, or how the
    call ended (``progress`` None: a ``context_length`` rejection is not retried)."""
    if progress is not None:
        rejected, progress.too_large = progress.too_large, None
        if rejected is not None and prepared.request.messages == rejected[0]:
            # Compacting freed nothing: the provider would reject the same request again.
            host.sink.emit(rejected[1])
            return RunResult("error", error=rejected[1].message, error_kind="context_length")
    retried_without_images = False
    while True:
        # Every request actually sent has its own snapshot, the image-free retry included.
        snapshot = host.snapshot_of(prepared)
        host.sink.emit(snapshot)
        host.sink.emit(host.cache.main(snapshot))
        host.cache.send(snapshot, params_key(host.model.params, host.model.extra_params))
        host.state.last_parent_request = prepared.request
        collector = StreamCollector(host.sink)
        try:
            await collector.consume(host.model.provider.stream(prepared.request))
        except asyncio.CancelledError:
            streamed = len(collector.text)
            cost = cost_without_usage(host.model.price)
            host.sink.emit(RequestStopped(snapshot.request_id, "", streamed, cost))
            _keep_partial(host, collector)
            raise
        except ProviderError as error:
            text = labelled(host.model.ref, error.message)
            cost = cost_without_usage(host.model.price)
            host.sink.emit(RequestStopped(snapshot.request_id, text, len(collector.text), cost))
            if (
                error.kind == "image_rejected"
                and not retried_without_images
                and not collector.has_output
            ):
                retried_without_images = True
                prepared = _without_images(host.context, prepared)
                continue
            _keep_partial(host, collector)
            failed = ErrorEvent(error.kind, text, error.remedies)
            if error.kind == "context_length" and not collector.has_output:
                host.state.over_window = True  # the next request compacts first
                if progress is not None and not progress.retried_too_large:
                    # Not the end yet: the run compacts and sends it once more.
                    progress.too_large = (prepared.request.messages, failed)
                    too_large = labelled(host.model.ref, _RETRY_TOO_LARGE)
                    host.sink.emit(WarningEvent("context_length", too_large))
                    return RunResult("error", error=text, error_kind=error.kind)
            host.sink.emit(failed)
            return RunResult("error", error=text, error_kind=error.kind)
        break
    return _finish_call(host, prepared.request, prepared.estimate, collector)


def _without_images(context: ContextManager, prepared: PreparedTurn) -> PreparedTurn:
    """The same request with every image replaced by its placeholder, estimated again."""
    request = prepared.request
    messages, _ = strip_images(request.messages)
    estimate = context.estimate(request.model, messages, request.tools)
    request = msgspec.structs.replace(
        request, messages=messages, raw_prompt_tokens=estimate.raw_tokens
    )
    # Other messages: the snapshot hashes and measures them afresh.
    return msgspec.structs.replace(
        prepared, request=request, estimate=estimate, hashes=None, prompt_bytes=None
    )


def _keep_partial(host: CallHost, collector: StreamCollector) -> None:
    # Tool calls of a cut-off reply are dropped: they never ran and have no results.
    if collector.text or collector.reasoning:
        host.append(
            Message(
                "assistant",
                collector.text,
                reasoning=collector.reasoning,
                turn=host.state.turn,
                incomplete=True,
            )
        )


def _finish_call(
    host: CallHost, request: ChatRequest, estimate: TokenEstimate, collector: StreamCollector
) -> Message:
    model = host.model
    host.state.last_main_request = LastMainRequest(
        model.alias, model.model, model.prompt_cache_key, host.clock.now()
    )
    usage = collector.usage
    if usage is not None and (problem := usage_problem(usage)):
        # Never calibrated on, never shown as the request's usage: one absurd report would
        # make every later request look too big for the window.
        host.sink.emit(
            WarningEvent("usage_ignored", f"{model.ref}: reported usage ignored: {problem}")
        )
        usage = None
    if usage is not None:
        raw = request.raw_prompt_tokens or estimate.raw_tokens
        host.context.estimator.calibration.observe(model.model, usage.prompt_tokens, raw)
        host.sink.emit(
            host.cache.usage(
                usage, model=model.model, price=model.price, estimated_prompt_tokens=estimate.tokens
            )
        )
        if model.stateful:
            host.state.parent_usage = host.parent_usage().observe(usage.prompt_tokens)
    done = collector.done
    if model.stateful and done is not None and done.backend_state:
        host.state.lineage = host.state.lineage.with_backend_state(done.backend_state)
    message = Message(
        "assistant",
        collector.text,
        reasoning=collector.reasoning,
        tool_calls=tuple(collector.tool_calls),
        turn=host.state.turn,
    )
    host.append(message)
    if done is not None and done.stop_reason == "length":
        # Otherwise a reply cut mid-sentence looks like a finished one.
        host.sink.emit(WarningEvent("reply_limit", _at_limit(model.ref, request.max_tokens)))
    return message


def _at_limit(ref: str, max_tokens: int) -> str:
    return (
        f"{ref}: the reply stopped at the completion limit ({max_tokens:,} tokens) and may be "
        f'cut short; max_tokens under [models."{ref}"] raises it'
    )
