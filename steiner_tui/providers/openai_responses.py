"""The OpenAI Responses API as a stateful ``Provider``: the backend owns the transcript.

``request.backend_state`` is the ``previous_response_id`` to continue; only the messages the
backend does not hold yet are sent (rule in ``openai_responses_convert``). ``StreamDone`` carries
the new response id as the next ``backend_state``.

Retirement: a request with ``retire_backend_state`` (a main compaction summary) is sent whole,
without ``previous_response_id`` and with ``store=False``, so no transcript survives it; its
``StreamDone`` has ``clear_backend_state=True`` and any error it raises is a ``ProviderError``
with ``backend_state_retired=True`` (the engine must drop the old id even when the summary
failed).
Compaction calls that do not retire (fallback targets) are also not stored.

What is the Responses API's own here: the call, which messages to send, and the reading of its
typed ``ResponseStreamEvent``s; the stream skeleton is ``SdkProvider``'s. Events handled:
``response.created``, ``response.output_text.delta``, reasoning (summary) text
deltas, ``response.output_item.added``/``.done`` and ``response.function_call_arguments.delta``/
``.done`` for tool calls, ``response.completed``/``response.incomplete`` (usage and the end), and
``response.failed``/``error`` (raised as ``ProviderError``). Usage: ``input_tokens`` (cached
tokens included), ``output_tokens``, ``input_tokens_details.cached_tokens`` and
``cache_write_tokens``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, cast

from steiner_tui.engine.provider import (
    ChatRequest,
    ProviderError,
    ProviderEvent,
    StreamDone,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from steiner_tui.providers.cache_reason import cache_miss_reason
from steiner_tui.providers.errors import CallContext, stream_error
from steiner_tui.providers.openai_chat import DEFAULT_BASE_URL, is_official
from steiner_tui.providers.openai_responses_convert import to_responses_params
from steiner_tui.providers.sdk_base import EventStream, SdkProvider, StreamReader
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.responses import (
        Response,
        ResponseReasoningTextDeltaEvent,
        ResponseStreamEvent,
    )

__all__ = ["OpenAIResponsesProvider"]

_REASONING_DELTAS = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")

_HELD_LIMIT = 256


class OpenAIResponsesProvider(SdkProvider["AsyncOpenAI", "ResponseStreamEvent"]):
    """Streams the Responses API and continues transcripts by ``previous_response_id``."""

    SDK = "openai"
    DEFAULT_BASE_URL = DEFAULT_BASE_URL
    stateful = True

    def __init__(
        self, alias: str, api_key: str, base_url: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(alias, api_key, base_url, **kwargs)
        self._official = is_official(base_url)
        self._held: OrderedDict[str, int] = OrderedDict()
        """Response id -> how many conversation messages its call's input held."""

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI  # in a worker thread (see ``SdkProvider``)

        client = AsyncOpenAI(**self._client_settings())
        _ = client.responses  # the SDK imports its resource modules on first access
        return client

    def _remember(self, response_id: str, held: int) -> None:
        self._held[response_id] = held
        self._held.move_to_end(response_id)
        while len(self._held) > _HELD_LIMIT:
            self._held.popitem(last=False)

    def _start(
        self, request: ChatRequest
    ) -> tuple[dict[str, Any], StreamReader[ResponseStreamEvent]]:
        held = self._held.get(request.backend_state) if request.backend_state else None
        params, sent = to_responses_params(request, held=held, official=self._official)
        reader = _ResponseReader(
            self._context(request),
            remember=self._remember if params["store"] else None,
            sent=sent,
            retire=request.retire_backend_state,
        )
        return params, reader

    async def _send(
        self, client: AsyncOpenAI, params: dict[str, Any]
    ) -> EventStream[ResponseStreamEvent]:
        stream: AsyncStream[ResponseStreamEvent] = await client.responses.create(
            stream=True, **params
        )
        return stream

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one Responses API call; raises ``ProviderError`` on failure."""
        retire = request.retire_backend_state
        try:
            async for event in super().stream(request):
                yield event
        except ProviderError as err:
            if retire:
                raise err.after_retirement() from err
            raise
        finally:
            if retire and request.backend_state:
                self._held.pop(request.backend_state, None)


class _ResponseReader:
    """Reads one response's typed stream events."""

    terminal = "response.completed"
    done_ends = False

    def __init__(
        self,
        call: CallContext,
        *,
        remember: Callable[[str, int], None] | None,
        sent: int,
        retire: bool,
    ) -> None:
        self.call = call
        self.remember = remember
        """Records what a stored response holds (None: the call is not stored)."""
        self.sent = sent
        self.retire = retire
        self.response_id = ""
        self.tools: dict[int, ToolCallBuffer] = {}
        self.final_arguments: dict[int, str] = {}
        self.called = False
        self.usage: StreamUsage | None = None
        self.final: str | None = None

    @property
    def complete(self) -> bool:
        return self.final is not None

    def _finish(self, response: Response, stop_reason: str) -> None:
        self.response_id = response.id or self.response_id
        usage = response.usage
        if usage is not None:
            details = usage.input_tokens_details
            self.usage = StreamUsage(
                prompt_tokens=int(usage.input_tokens or 0),
                completion_tokens=int(usage.output_tokens or 0),
                cache_read_tokens=int(getattr(details, "cached_tokens", 0) or 0),
                cache_write_tokens=int(getattr(details, "cache_write_tokens", 0) or 0),
                cache_miss_reason=cache_miss_reason(usage, details, response),
            )
        self.final = stop_reason

    def _stop_reason(self) -> str:
        """The normalized stop reason (``tool_calls`` when the response called tools)."""
        final = self.final or "stop"
        return "tool_calls" if self.called and final == "stop" else final

    def read(self, event: ResponseStreamEvent) -> list[ProviderEvent]:
        if event.type == "response.created" or event.type == "response.in_progress":
            self.response_id = event.response.id or self.response_id
        elif event.type == "response.output_text.delta" and event.delta:
            return [StreamText(event.delta)]
        elif event.type in _REASONING_DELTAS:
            # The two reasoning deltas share their shape; the union does not narrow by ``in``.
            delta = cast("ResponseReasoningTextDeltaEvent", event).delta
            return [StreamReasoning(delta)] if delta else []
        elif event.type == "response.output_item.added" and event.item.type == "function_call":
            item = event.item
            self.tools[event.output_index] = ToolCallBuffer(item.call_id, item.name)
        elif event.type == "response.function_call_arguments.delta":
            if event.output_index in self.tools:
                return [self.tools[event.output_index].add(event.delta)]
        elif event.type == "response.function_call_arguments.done":
            self.final_arguments[event.output_index] = event.arguments
        elif event.type == "response.output_item.done" and event.item.type == "function_call":
            buffer = self.tools.pop(event.output_index, None) or ToolCallBuffer()
            item = event.item
            buffer.id = item.call_id or buffer.id
            buffer.name = item.name or buffer.name
            raw = self.final_arguments.pop(event.output_index, item.arguments)
            self.called = True
            return [StreamToolCall(buffer.to_call(raw))]
        elif event.type == "response.completed":
            self._finish(event.response, "stop")
        elif event.type == "response.incomplete":
            details = event.response.incomplete_details
            reason = (details.reason if details is not None else None) or "incomplete"
            self._finish(event.response, "length" if reason == "max_output_tokens" else reason)
        elif event.type == "response.failed":
            error = event.response.error
            body = {"code": getattr(error, "code", None), "message": getattr(error, "message", "")}
            raise stream_error(self.call, body)
        elif event.type == "error":
            raise stream_error(self.call, {"code": event.code, "message": event.message})
        return []

    def finish(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = [
            StreamToolCall(b.to_call()) for _, b in sorted(self.tools.items())
        ]
        self.called = self.called or bool(out)
        self.tools.clear()
        if self.usage is not None:
            out.append(self.usage)
        stored = self.remember is not None and bool(self.response_id)
        if self.remember is not None and stored:
            self.remember(self.response_id, self.sent)
        out.append(
            StreamDone(
                stop_reason=self._stop_reason(),
                backend_state=self.response_id if stored else None,
                clear_backend_state=self.retire,
            )
        )
        return out
