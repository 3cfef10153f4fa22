"""OpenAI Chat Completions as a ``Provider``, through the official ``openai`` SDK.

Works against OpenAI and against OpenAI-compatible servers given a ``base_url`` (Ollama,
llama.cpp, vLLM, LM Studio; a dummy key such as ``sk-local`` when the server needs none). The SDK
is imported on the first call.

Streaming: text deltas are yielded as they arrive; ``reasoning_content`` (or ``reasoning``) delta
extras of local reasoning models become ``StreamReasoning``; tool calls, whose id, name and
arguments arrive spread over chunks, are assembled by ``index`` and yielded whole when the choice
reports its ``finish_reason``. A stream that ends without a ``finish_reason`` was cut off and
raises a ``connection`` error.

Usage: ``prompt_tokens`` (OpenAI counts cached tokens inside it); cached tokens are the first
present of ``prompt_tokens_details.cached_tokens``, ``prompt_cache_hit_tokens`` (DeepSeek) and
``cached_tokens`` (some vLLM builds), read from the usage object's extra fields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

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
from steiner_tui.providers.errors import map_error
from steiner_tui.providers.openai_chat_convert import to_chat_params
from steiner_tui.providers.sdk_base import SdkProvider
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["DEFAULT_BASE_URL", "OpenAIChatProvider", "is_official", "usage_event"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_STOP_REASONS = {"function_call": "tool_calls"}


def is_official(base_url: str | None) -> bool:
    """True when ``base_url`` is OpenAI's own API (or unset)."""
    return base_url is None or urlsplit(base_url).hostname == "api.openai.com"


def _extra(obj: Any, key: str) -> Any:
    value = getattr(obj, key, None)
    if value is None:
        value = (getattr(obj, "model_extra", None) or {}).get(key)
    return value


def usage_event(usage: Any) -> StreamUsage:
    """A ``StreamUsage`` from a Chat Completions usage object (extra fields included)."""
    cached = None
    details = _extra(usage, "prompt_tokens_details")
    if details is not None:
        cached = (
            details.get("cached_tokens") if isinstance(details, dict) else details.cached_tokens
        )
    for key in ("prompt_cache_hit_tokens", "cached_tokens"):
        if cached is None:
            cached = _extra(usage, key)
    write = None
    if details is not None and not isinstance(details, dict):
        write = _extra(details, "cache_write_tokens")
    return StreamUsage(
        prompt_tokens=int(_extra(usage, "prompt_tokens") or 0),
        completion_tokens=int(_extra(usage, "completion_tokens") or 0),
        cache_read_tokens=int(cached or 0),
        cache_write_tokens=int(write or 0),
    )


class OpenAIChatProvider(SdkProvider["AsyncOpenAI"]):
    """Streams Chat Completions; one ``AsyncOpenAI`` client per event loop."""

    DEFAULT_BASE_URL = DEFAULT_BASE_URL

    def __init__(
        self, alias: str, api_key: str, base_url: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(alias, api_key, base_url, **kwargs)
        self._official = is_official(base_url)

    def _make_client(self) -> AsyncOpenAI:
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        from openai import AsyncOpenAI

        return AsyncOpenAI(**self._client_settings())

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one Chat Completions call; raises ``ProviderError`` on failure."""
        # Imported on the first call, never at start-up: the SDK takes about a second to import.
        import openai

        label = f"{self.alias}/{request.model}"
        client = self._clients.get()
        params = to_chat_params(request, official=self._official)
        tools: dict[int, ToolCallBuffer] = {}
        finish: str | None = None
        usage: StreamUsage | None = None
        try:
            stream = await client.chat.completions.create(stream=True, **params)
            try:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = usage_event(chunk.usage)
                    for choice in chunk.choices[:1]:
                        for out in _delta_events(choice.delta, tools):
                            yield out
                        if choice.finish_reason is not None and finish is None:
                            finish = str(choice.finish_reason)
                            for _, buffer in sorted(tools.items()):
                                yield StreamToolCall(buffer.to_call())
                            tools.clear()
            finally:
                await stream.close()
        except ProviderError:
            raise
        except Exception as exc:
            mapped = map_error(exc, label=label, sdk=openai)
            if mapped is None:
                raise
            raise mapped from exc
        if finish is None:
            raise ProviderError(
                "connection", f"{label}: the stream ended before a finish_reason (connection cut)"
            )
        for _, buffer in sorted(tools.items()):
            yield StreamToolCall(buffer.to_call())
        if usage is not None:
            yield usage
        yield StreamDone(stop_reason=_STOP_REASONS.get(finish, finish))


def _delta_events(delta: Any, tools: dict[int, ToolCallBuffer]) -> list[ProviderEvent]:
    out: list[ProviderEvent] = []
    reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
    if isinstance(reasoning, str) and reasoning:
        out.append(StreamReasoning(reasoning))
    if delta.content:
        out.append(StreamText(delta.content))
    for call in delta.tool_calls or ():
        buffer = tools.setdefault(call.index, ToolCallBuffer())
        if call.id and not buffer.id:
            buffer.id = call.id
        if call.function is not None:
            buffer.add_name(call.function.name or "")
            if call.function.arguments:
                buffer.parts.append(call.function.arguments)
    return out
