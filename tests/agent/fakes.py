"""Scripted fakes for runner tests: a provider that replays scripted replies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderError,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)


@dataclass
class Reply:
    """One scripted model reply: text chunks, tool calls, usage, or an error after the chunks."""

    chunks: Sequence[str] = ()
    tool_calls: Sequence[ToolCall] = ()
    prompt_tokens: int = 0
    error: ProviderError | None = None
    block: asyncio.Event | None = None
    """When set, the stream waits on it after the chunks (to test cancellation)."""
    backend_state: str | None = None
    reached: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the stream reaches ``block`` (its chunks were all delivered)."""
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_miss_reason: str = ""


@dataclass
class ScriptedProvider:
    """Replays ``replies`` in order and records every request it was sent."""

    replies: list[Reply]
    alias: str = "fake"
    stateful: bool = False
    info: ModelInfo = field(default_factory=lambda: ModelInfo(32768, 4096))
    requests: list[ChatRequest] = field(default_factory=list)
    on_request: Callable[[ChatRequest], Reply | None] | None = None

    def model_info(self, model: str) -> ModelInfo:
        return self.info

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        reply = self.on_request(request) if self.on_request else None
        if reply is None:
            if not self.replies:
                raise AssertionError("the scripted provider ran out of replies")
            reply = self.replies.pop(0)
        for chunk in reply.chunks:
            yield StreamText(chunk)
        if reply.block is not None:
            reply.reached.set()
            await reply.block.wait()
        if reply.error is not None:
            raise reply.error
        for call in reply.tool_calls:
            yield StreamToolCall(call)
        if reply.prompt_tokens:
            yield StreamUsage(
                reply.prompt_tokens,
                10,
                reply.cache_read_tokens,
                reply.cache_write_tokens,
                reply.cache_miss_reason,
            )
        yield StreamDone(backend_state=reply.backend_state)
