"""OpenAI Chat Completions as a ``Provider``, through the official ``openai`` SDK.

Works against OpenAI and against OpenAI-compatible servers given a ``base_url`` (Ollama,
llama.cpp, vLLM, LM Studio; a dummy key such as ``sk-local`` when the server needs none). What is
Chat Completions' own here: the call and the reading of its typed ``ChatCompletionChunk``s; the
stream skeleton is ``SdkProvider``'s.

Streaming: text deltas are yielded as they arrive; ``reasoning_content`` (or ``reasoning``) delta
extras of local reasoning models become ``StreamReasoning``; tool calls, whose id, name and
arguments arrive spread over chunks, are assembled by ``index`` and yielded whole when the choice
reports its ``finish_reason``, or at ``data: [DONE]`` when a server sends none (some local servers
and proxies); a stream that ends without either was cut off.

Usage: ``prompt_tokens`` (OpenAI counts cached tokens inside it); cached tokens are the first
present of ``prompt_tokens_details.cached_tokens``, ``prompt_cache_hit_tokens`` (DeepSeek) and
``cached_tokens`` (some vLLM builds), read from the usage object's extra fields.
"""

from __future__ import annotations

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
from steiner_tui.providers.cache_reason import cache_miss_reason
from steiner_tui.providers.openai_chat_convert import to_chat_params
from steiner_tui.providers.sdk_base import EventStream, SdkProvider, StreamReader
from steiner_tui.providers.streaming import ToolCallBuffer

# The SDK's types, for annotations only: the SDK itself is imported on the first call.
if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDelta

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
        cache_miss_reason=cache_miss_reason(usage, details),
    )


class OpenAIChatProvider(SdkProvider["AsyncOpenAI", "ChatCompletionChunk"]):
    """Streams Chat Completions; one ``AsyncOpenAI`` client per event loop."""

    SDK = "openai"
    DEFAULT_BASE_URL = DEFAULT_BASE_URL

    def __init__(
        self, alias: str, api_key: str, base_url: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(alias, api_key, base_url, **kwargs)
        self._official = is_official(base_url)

    def _make_client(self) -> AsyncOpenAI:
        from openai import AsyncOpenAI  # in a worker thread (see ``SdkProvider``)

        client = AsyncOpenAI(**self._client_settings())
        _ = client.chat.completions  # the SDK imports its resource modules on first access
        return client

    def _start(
        self, request: ChatRequest
    ) -> tuple[dict[str, Any], StreamReader[ChatCompletionChunk]]:
        return to_chat_params(request, official=self._official), _ChunkReader()

    async def _send(
        self, client: AsyncOpenAI, params: dict[str, Any]
    ) -> EventStream[ChatCompletionChunk]:
        stream: AsyncStream[ChatCompletionChunk] = await client.chat.completions.create(
            stream=True, **params
        )
        return stream


class _ChunkReader:
    """Reads one completion's typed chunks (the first choice only)."""

    terminal = "a finish_reason or data: [DONE]"
    done_ends = True

    def __init__(self) -> None:
        self.tools: dict[int, ToolCallBuffer] = {}
        self.finish_reason: str | None = None
        self.usage: StreamUsage | None = None

    @property
    def complete(self) -> bool:
        return self.finish_reason is not None

    def read(self, chunk: ChatCompletionChunk) -> list[ProviderEvent]:
        if chunk.usage is not None:
            self.usage = usage_event(chunk.usage)
        out: list[ProviderEvent] = []
        for choice in chunk.choices[:1]:
            out += _delta_events(choice.delta, self.tools)
            # Some servers send an empty finish_reason on every chunk before the last: it says
            # nothing, and taken as the end it cut a tool call's arguments off its name.
            if choice.finish_reason and self.finish_reason is None:
                self.finish_reason = str(choice.finish_reason)
                out += self._flush()
        return out

    def _flush(self) -> list[ProviderEvent]:
        calls: list[ProviderEvent] = [
            StreamToolCall(b.to_call()) for _, b in sorted(self.tools.items())
        ]
        self.tools.clear()
        return calls

    def finish(self) -> list[ProviderEvent]:
        calls = self._flush()
        out = [*calls, self.usage] if self.usage is not None else calls
        # Ended by data: [DONE] alone (some local servers, proxies): its calls say why it stopped.
        finish = self.finish_reason or ("tool_calls" if calls else "stop")
        out.append(StreamDone(stop_reason=_STOP_REASONS.get(finish, finish)))
        return out


def _delta_events(delta: ChoiceDelta, tools: dict[int, ToolCallBuffer]) -> list[ProviderEvent]:
    out: list[ProviderEvent] = []
    reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
    if isinstance(reasoning, str) and reasoning:
        out.append(StreamReasoning(reasoning))
    if delta.content:
        if not isinstance(delta.content, str):  # said by ``malformed_event``: what it is
            raise TypeError("content is not text")
        out.append(StreamText(delta.content))
    for call in delta.tool_calls or ():
        buffer = tools.setdefault(call.index, ToolCallBuffer())
        if call.id and not buffer.id:
            buffer.id = call.id
        if call.function is not None:
            buffer.add_name(call.function.name or "")
            if call.function.arguments:
                out.append(buffer.add(call.function.arguments))
    return out
