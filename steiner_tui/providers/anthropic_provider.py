"""The Anthropic Messages API as a ``Provider``, streaming through the official ``anthropic`` SDK.

What is Anthropic's own here: the client, the call (``messages.create(stream=True)``) and the
reading of its typed ``RawMessageStreamEvent``s; the stream skeleton is ``SdkProvider``'s. Text
and thinking deltas are yielded as they arrive, ``tool_use`` blocks are assembled from their
``input_json_delta`` fragments and yielded whole at ``content_block_stop``, and usage and the
stop reason are yielded after ``message_stop`` (the terminal event).

Usage: prompt tokens = ``input_tokens + cache_read_input_tokens + cache_creation_input_tokens``
(Anthropic's ``input_tokens`` excludes the cached part); cache read and creation are also
reported separately. A stream whose events carry no usage (some compatible servers) yields none.
Stop reasons are normalized: ``end_turn``/``stop_sequence`` -> ``stop``, ``tool_use`` ->
``tool_calls``, ``max_tokens`` -> ``length``; others pass through.

Cache diagnostics: on Anthropic's own endpoint each request of a session (its prompt cache key)
asks for ``diagnostics`` against the session's previous message (``previous_message_id``, null
on its first), and the reply's ``diagnostics.cache_miss_reason`` goes out with the usage
(``StreamUsage.cache_miss_reason``), shown beside the runner's own named cause. Compatible
servers are not sent the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from steiner_tui.engine.provider import (
    ChatRequest,
    ProviderEvent,
    StreamDone,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from steiner_tui.providers.anthropic_convert import to_anthropic_params
from steiner_tui.providers.cache_reason import cache_miss_reason
from steiner_tui.providers.sdk_base import EventStream, SdkProvider, StreamReader
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from anthropic import AsyncAnthropic, AsyncStream
    from anthropic.types import MessageDeltaUsage, RawMessageStreamEvent, Usage

__all__ = ["DEFAULT_BASE_URL", "AnthropicProvider"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
_OFFICIAL_HOST = "api.anthropic.com"
_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
}


class AnthropicProvider(SdkProvider["AsyncAnthropic", "RawMessageStreamEvent"]):
    """Streams Claude models; one ``AsyncAnthropic`` client per event loop."""

    SDK = "anthropic"
    DEFAULT_BASE_URL = DEFAULT_BASE_URL

    def __init__(self, *args: Any, diagnostics: bool | None = None, **kwargs: Any) -> None:
        """``diagnostics``: ask for the cache diagnostics (None: on Anthropic's own endpoint
        only); the other arguments are ``SdkProvider``'s."""
        super().__init__(*args, **kwargs)
        official = urlsplit(self._base_url).hostname == _OFFICIAL_HOST
        self._diagnose = official if diagnostics is None else diagnostics
        self._previous_ids: dict[str, str] = {}
        """The last message id of each session (prompt cache key) this provider answered."""

    def _make_client(self) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic  # in a worker thread (see ``SdkProvider``)

        return AsyncAnthropic(**self._client_settings())

    @property
    def asks_for_diagnostics(self) -> bool:
        """Whether requests ask for Anthropic's cache diagnostics (module docstring)."""
        return self._diagnose

    def _start(
        self, request: ChatRequest
    ) -> tuple[dict[str, Any], StreamReader[RawMessageStreamEvent]]:
        params = to_anthropic_params(request)
        key = request.prompt_cache_key
        if not key or not self._diagnose:
            return params, _MessageReader()
        previous = self._previous_ids.get(key)
        params["diagnostics"] = {"previous_message_id": previous}

        def remember(message_id: str) -> None:
            self._previous_ids[key] = message_id

        return params, _MessageReader(remember)

    async def _send(
        self, client: AsyncAnthropic, params: dict[str, Any]
    ) -> EventStream[RawMessageStreamEvent]:
        stream: AsyncStream[RawMessageStreamEvent] = await client.messages.create(
            stream=True, **params
        )
        return stream


class _MessageReader:
    """Reads one message's typed raw events."""

    terminal = "message_stop"
    done_ends = False

    def __init__(self, on_message_id: Callable[[str], None] | None = None) -> None:
        self.on_message_id = on_message_id
        """Told the message's id (the next request's ``previous_message_id``)."""
        self.tools: dict[int, ToolCallBuffer] = {}
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.cache_write = 0
        self.miss_reason = ""
        self.reported = False
        self.stop_reason = "end_turn"
        self.complete = False

    def _usage(self, usage: Usage | MessageDeltaUsage | None) -> None:
        if usage is None:
            return
        self.reported = True
        if usage.input_tokens is not None:
            self.input_tokens = usage.input_tokens
        if usage.output_tokens is not None:
            self.output_tokens = usage.output_tokens
        if usage.cache_read_input_tokens is not None:
            self.cache_read = usage.cache_read_input_tokens
        if usage.cache_creation_input_tokens is not None:
            self.cache_write = usage.cache_creation_input_tokens
        self.miss_reason = cache_miss_reason(usage) or self.miss_reason

    def read(self, event: RawMessageStreamEvent) -> list[ProviderEvent]:
        # ``usage`` is required by the SDK's types but left out by some compatible servers.
        if event.type == "message_start":
            self._usage(getattr(event.message, "usage", None))
            self.miss_reason = cache_miss_reason(event.message) or self.miss_reason
            message_id = getattr(event.message, "id", None)
            if self.on_message_id is not None and isinstance(message_id, str) and message_id:
                self.on_message_id(message_id)
        elif event.type == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                initial = block.input if isinstance(block.input, dict) else None
                self.tools[event.index] = ToolCallBuffer(block.id, block.name, initial=initial)
        elif event.type == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta" and delta.text:
                return [StreamText(delta.text)]
            if delta.type == "thinking_delta" and delta.thinking:
                return [StreamReasoning(delta.thinking)]
            if delta.type == "input_json_delta" and event.index in self.tools:
                return [self.tools[event.index].add(delta.partial_json)]
        elif event.type == "content_block_stop":
            buffer = self.tools.pop(event.index, None)
            if buffer is not None:
                return [StreamToolCall(buffer.to_call())]
        elif event.type == "message_delta":
            if event.delta.stop_reason:
                self.stop_reason = event.delta.stop_reason
            self._usage(getattr(event, "usage", None))
        elif event.type == "message_stop":
            self.complete = True
        return []

    def finish(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = [
            StreamToolCall(b.to_call()) for _, b in sorted(self.tools.items())
        ]
        self.tools.clear()
        if self.reported:
            out.append(
                StreamUsage(
                    prompt_tokens=self.input_tokens + self.cache_read + self.cache_write,
                    completion_tokens=self.output_tokens,
                    cache_read_tokens=self.cache_read,
                    cache_write_tokens=self.cache_write,
                    cache_miss_reason=self.miss_reason,
                )
            )
        out.append(StreamDone(stop_reason=_STOP_REASONS.get(self.stop_reason, self.stop_reason)))
        return out
