"""The Anthropic Messages API as a ``Provider``, streaming through the official ``anthropic`` SDK.

The SDK is imported on the first call (importing it costs over a second at start-up). The raw
event stream is consumed directly: text deltas are yielded as they arrive, ``tool_use`` blocks are
assembled from their ``input_json_delta`` fragments and yielded whole at ``content_block_stop``,
and usage and the stop reason are yielded after ``message_stop``. A stream that ends without
``message_stop`` was cut off and raises a ``connection`` error; whatever was yielded before an
error stays with the caller, so a partial reply can be kept.

Usage: prompt tokens = ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``
(Anthropic's ``input_tokens`` excludes the cached part); cache read and creation are also reported
separately. Stop reasons are normalized: ``end_turn``/``stop_sequence`` -> ``stop``, ``tool_use``
-> ``tool_calls``, ``max_tokens`` -> ``length``; others pass through.
"""

from __future__ import annotations

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
from steiner_tui.providers.anthropic_convert import to_anthropic_params
from steiner_tui.providers.errors import map_error
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
}


class AnthropicProvider(SdkProvider["AsyncAnthropic"]):
    """Streams Claude models; one ``AsyncAnthropic`` client per event loop."""

    DEFAULT_BASE_URL = DEFAULT_BASE_URL

    def _make_client(self) -> AsyncAnthropic:
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        from anthropic import AsyncAnthropic

        return AsyncAnthropic(**self._client_settings())

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one Messages API call; raises ``ProviderError`` on failure."""
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        import anthropic

        label = f"{self.alias}/{request.model}"
        client = self._clients.get()
        params = to_anthropic_params(request)
        state = _StreamState()
        try:
            stream = await client.messages.create(stream=True, **params)
            try:
                async for event in stream:
                    for out in state.handle(event):
                        yield out
            finally:
                await stream.close()
        except ProviderError:
            raise
        except Exception as exc:
            mapped = map_error(exc, label=label, sdk=anthropic)
            if mapped is None:
                raise
            raise mapped from exc
        if not state.finished:
            raise ProviderError(
                "connection", f"{label}: the stream ended before message_stop (connection cut)"
            )
        for out in state.flush_tools():
            yield out
        yield StreamUsage(
            prompt_tokens=state.input_tokens + state.cache_read + state.cache_write,
            completion_tokens=state.output_tokens,
            cache_read_tokens=state.cache_read,
            cache_write_tokens=state.cache_write,
        )
        yield StreamDone(stop_reason=_STOP_REASONS.get(state.stop_reason, state.stop_reason))


class _StreamState:
    """Accumulates one message's raw events."""

    def __init__(self) -> None:
        self.tools: dict[int, ToolCallBuffer] = {}
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.cache_write = 0
        self.stop_reason = "end_turn"
        self.finished = False

    def _usage(self, usage: Any) -> None:
        if usage is None:
            return
        if getattr(usage, "input_tokens", None) is not None:
            self.input_tokens = int(usage.input_tokens)
        if getattr(usage, "output_tokens", None) is not None:
            self.output_tokens = int(usage.output_tokens)
        if getattr(usage, "cache_read_input_tokens", None) is not None:
            self.cache_read = int(usage.cache_read_input_tokens)
        if getattr(usage, "cache_creation_input_tokens", None) is not None:
            self.cache_write = int(usage.cache_creation_input_tokens)

    def handle(self, event: Any) -> list[ProviderEvent]:
        kind = getattr(event, "type", "")
        if kind == "message_start":
            self._usage(event.message.usage)
        elif kind == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                initial = block.input if isinstance(block.input, dict) else None
                self.tools[event.index] = ToolCallBuffer(block.id, block.name, initial=initial)
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta" and delta.text:
                return [StreamText(delta.text)]
            if delta.type == "thinking_delta" and delta.thinking:
                return [StreamReasoning(delta.thinking)]
            if delta.type == "input_json_delta" and event.index in self.tools:
                self.tools[event.index].parts.append(delta.partial_json)
        elif kind == "content_block_stop":
            buffer = self.tools.pop(event.index, None)
            if buffer is not None:
                return [StreamToolCall(buffer.to_call())]
        elif kind == "message_delta":
            if event.delta.stop_reason:
                self.stop_reason = event.delta.stop_reason
            self._usage(event.usage)
        elif kind == "message_stop":
            self.finished = True
        return []

    def flush_tools(self) -> list[ProviderEvent]:
        calls: list[ProviderEvent] = [
            StreamToolCall(b.to_call()) for _, b in sorted(self.tools.items())
        ]
        self.tools.clear()
        return calls
