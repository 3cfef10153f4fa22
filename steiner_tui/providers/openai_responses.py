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

Events handled: ``response.created``, ``response.output_text.delta``, reasoning (summary) text
deltas, ``response.output_item.added``/``.done`` and ``response.function_call_arguments.delta``/
``.done`` for tool calls, ``response.completed``/``response.incomplete`` (usage and the end), and
``response.failed``/``error`` (raised as ``ProviderError``). Usage: ``input_tokens`` (cached
tokens included), ``output_tokens``, ``input_tokens_details.cached_tokens`` and
``cache_write_tokens``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

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
from steiner_tui.providers.errors import map_error, stream_error
from steiner_tui.providers.openai_chat import DEFAULT_BASE_URL, is_official
from steiner_tui.providers.openai_responses_convert import to_responses_params
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIResponsesProvider"]

_HELD_LIMIT = 256
_REASONING_DELTAS = ("response.reasoning_summary_text.delta", "response.reasoning_text.delta")


class OpenAIResponsesProvider(SdkProvider["AsyncOpenAI"]):
    """Streams the Responses API and continues transcripts by ``previous_response_id``."""

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
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        from openai import AsyncOpenAI

        return AsyncOpenAI(**self._client_settings())

    def _remember(self, response_id: str, held: int) -> None:
        self._held[response_id] = held
        self._held.move_to_end(response_id)
        while len(self._held) > _HELD_LIMIT:
            self._held.popitem(last=False)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one Responses API call; raises ``ProviderError`` on failure."""
        retire = request.retire_backend_state
        try:
            async for event in self._stream(request):
                yield event
        except ProviderError as err:
            if retire:
                raise err.after_retirement() from err
            raise
        finally:
            if retire and request.backend_state:
                self._held.pop(request.backend_state, None)

    async def _stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        import openai

        label = f"{self.alias}/{request.model}"
        client = self._clients.get()
        held = self._held.get(request.backend_state) if request.backend_state else None
        params, sent = to_responses_params(request, held=held, official=self._official)
        state = _StreamState(label)
        try:
            stream = await client.responses.create(stream=True, **params)
            try:
                async for event in stream:
                    for out in state.handle(event):
                        yield out
            finally:
                await stream.close()
        except ProviderError:
            raise
        except Exception as exc:
            mapped = map_error(exc, label=label, sdk=openai)
            if mapped is None:
                raise
            raise mapped from exc
        if state.final is None:
            raise ProviderError(
                "connection",
                f"{label}: the stream ended before response.completed (connection cut)",
            )
        for out in state.flush_tools():
            yield out
        if state.usage is not None:
            yield state.usage
        stored = bool(params["store"]) and bool(state.response_id)
        if stored:
            self._remember(state.response_id, sent)
        yield StreamDone(
            stop_reason=state.stop_reason(),
            backend_state=state.response_id if stored else None,
            clear_backend_state=request.retire_backend_state,
        )


class _StreamState:
    """Accumulates one response's stream events."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.response_id = ""
        self.tools: dict[int, ToolCallBuffer] = {}
        self.final_arguments: dict[int, str] = {}
        self.called = False
        self.usage: StreamUsage | None = None
        self.final: str | None = None

    def _finish(self, response: Any, stop_reason: str) -> None:
        self.response_id = response.id or self.response_id
        usage = response.usage
        if usage is not None:
            details = usage.input_tokens_details
            self.usage = StreamUsage(
                prompt_tokens=int(usage.input_tokens or 0),
                completion_tokens=int(usage.output_tokens or 0),
                cache_read_tokens=int(getattr(details, "cached_tokens", 0) or 0),
                cache_write_tokens=int(getattr(details, "cache_write_tokens", 0) or 0),
            )
        self.final = stop_reason

    def stop_reason(self) -> str:
        """The normalized stop reason (``tool_calls`` when the response called tools)."""
        final = self.final or "stop"
        return "tool_calls" if self.called and final == "stop" else final

    def handle(self, event: Any) -> list[ProviderEvent]:
        kind = getattr(event, "type", "")
        if kind in ("response.created", "response.in_progress"):
            self.response_id = event.response.id or self.response_id
        elif kind == "response.output_text.delta" and event.delta:
            return [StreamText(event.delta)]
        elif kind in _REASONING_DELTAS and event.delta:
            return [StreamReasoning(event.delta)]
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            item = event.item
            self.tools[event.output_index] = ToolCallBuffer(item.call_id, item.name)
        elif kind == "response.function_call_arguments.delta":
            if event.output_index in self.tools:
                self.tools[event.output_index].parts.append(event.delta)
        elif kind == "response.function_call_arguments.done":
            self.final_arguments[event.output_index] = event.arguments
        elif kind == "response.output_item.done" and event.item.type == "function_call":
            buffer = self.tools.pop(event.output_index, None) or ToolCallBuffer()
            item = event.item
            buffer.id = item.call_id or buffer.id
            buffer.name = item.name or buffer.name
            raw = item.arguments if item.arguments is not None else None
            raw = self.final_arguments.pop(event.output_index, raw)
            self.called = True
            return [StreamToolCall(buffer.to_call(raw))]
        elif kind == "response.completed":
            self._finish(event.response, "stop")
        elif kind == "response.incomplete":
            details = event.response.incomplete_details
            reason = getattr(details, "reason", None) or "incomplete"
            self._finish(event.response, "length" if reason == "max_output_tokens" else reason)
        elif kind == "response.failed":
            error = event.response.error
            body = {"code": getattr(error, "code", None), "message": getattr(error, "message", "")}
            raise stream_error(self.label, body)
        elif kind == "error":
            raise stream_error(self.label, {"code": event.code, "message": event.message})
        return []

    def flush_tools(self) -> list[ProviderEvent]:
        calls: list[ProviderEvent] = [
            StreamToolCall(b.to_call()) for _, b in sorted(self.tools.items())
        ]
        self.called = self.called or bool(calls)
        self.tools.clear()
        return calls
