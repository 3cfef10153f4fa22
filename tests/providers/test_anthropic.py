"""AnthropicProvider through the real SDK against a loopback server speaking the Messages API."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import (
    ChatRequest,
    ProviderError,
    StreamDone,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamToolInput,
    StreamUsage,
)
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from tests.providers.loopback import LoopbackServer, collect, json_reply, sse, sse_reply
from tests.providers.protocols import (
    anthropic_error,
    block_start,
    block_stop,
    delta,
    message_end,
    message_start,
    text,
)

REQUEST = ChatRequest(model="claude-sonnet-4-6", messages=(Message("user", "hi"),))


PING = sse("ping", {"type": "ping"})


@pytest.fixture
async def anthropic() -> AsyncIterator[Callable[..., AnthropicProvider]]:
    made: list[AnthropicProvider] = []

    def make(server: LoopbackServer, timeout: float = 5.0) -> AnthropicProvider:
        provider = AnthropicProvider(
            "anthropic", "sk-ant-test", server.url, timeout=timeout, max_retries=0
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


async def test_streams_text_tool_call_usage_and_stop(anthropic: Any) -> None:
    parts = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        PING,
        text(0, "Hel"),
        text(0, "lo"),
        block_stop(0),
        block_start(1, {"type": "tool_use", "id": "toolu_01", "name": "read", "input": {}}),
        delta(1, {"type": "input_json_delta", "partial_json": ""}),
        delta(1, {"type": "input_json_delta", "partial_json": '{"path": "RE'}),
        delta(1, {"type": "input_json_delta", "partial_json": 'ADME.md"}'}),
        block_stop(1),
        *message_end("tool_use", 42),
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert error is None
    assert [e.text for e in events if isinstance(e, StreamText)] == ["Hel", "lo"]
    calls = [e.call for e in events if isinstance(e, StreamToolCall)]
    assert len(calls) == 1
    assert (calls[0].id, calls[0].name) == ("toolu_01", "read")
    assert calls[0].raw_arguments == '{"path": "README.md"}'
    assert dict(calls[0].arguments or {}) == {"path": "README.md"}
    # The arguments' progress as their fragments come (an empty one too: 0 chars).
    progress = [e for e in events if isinstance(e, StreamToolInput)]
    assert progress == [
        StreamToolInput("read", 0), StreamToolInput("read", 12), StreamToolInput("read", 21)
    ]  # fmt: skip
    assert events[-2] == StreamUsage(
        prompt_tokens=1125, completion_tokens=42, cache_read_tokens=1000, cache_write_tokens=100
    )
    assert events[-1] == StreamDone(stop_reason="tool_calls")
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    auth = sent.headers.get("x-api-key", "") + sent.headers.get("authorization", "")
    assert "sk-ant-test" in auth
    assert sent.body["stream"] is True


async def test_unparsable_tool_arguments_keep_raw_text(anthropic: Any) -> None:
    parts = [
        message_start(),
        block_start(0, {"type": "tool_use", "id": "toolu_02", "name": "bash", "input": {}}),
        delta(0, {"type": "input_json_delta", "partial_json": '{"command": "ls'}),
        block_stop(0),
        *message_end("tool_use", 5),
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert error is None
    call = next(e.call for e in events if isinstance(e, StreamToolCall))
    assert call.arguments is None
    assert call.raw_arguments == '{"command": "ls'


async def test_thinking_deltas_become_reasoning(anthropic: Any) -> None:
    parts = [
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, {"type": "thinking_delta", "thinking": "Let me see."}),
        block_stop(0),
        *message_end("end_turn", 3),
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert error is None
    assert StreamReasoning("Let me see.") in events
    assert events[-1] == StreamDone(stop_reason="stop")


async def test_rate_limit_reports_retry_after(anthropic: Any) -> None:
    reply = json_reply(
        429,
        anthropic_error("rate_limit_error", "Number of request tokens has exceeded your limit"),
        {"retry-after": "7"},
    )
    with LoopbackServer(reply) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert events == []
    assert isinstance(error, ProviderError)
    assert (error.kind, error.status, error.retry_after) == ("rate_limit", 429, 7.0)
    assert "anthropic/claude-sonnet-4-6" in error.message
    assert "HTTP 429" in error.message
    assert "exceeded your limit" in error.message


@pytest.mark.parametrize(
    ("status", "kind", "message", "expected"),
    [
        (500, "api_error", "Internal server error", "server"),
        (529, "overloaded_error", "Overloaded", "server"),
        (401, "authentication_error", "invalid x-api-key", "auth"),
        (403, "permission_error", "not allowed", "auth"),
        (400, "invalid_request_error", "prompt is too long: 210000 > 200000", "context_length"),
        # Without images in the request, a message about one is a plain rejection.
        (400, "invalid_request_error", "messages.0.content.0.image: bad", "bad_request"),
        (400, "invalid_request_error", "max_tokens: must be positive", "bad_request"),
    ],
)
async def test_http_errors_map_to_kinds(
    anthropic: Any, status: int, kind: str, message: str, expected: str
) -> None:
    with LoopbackServer(json_reply(status, anthropic_error(kind, message))) as server:
        _, error = await collect(anthropic(server).stream(REQUEST))
    assert isinstance(error, ProviderError)
    assert error.kind == expected
    assert error.status == status
    assert f"HTTP {status}" in error.message
    assert message in error.message


async def test_error_event_mid_stream_keeps_streamed_text(anthropic: Any) -> None:
    parts = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        text(0, "partial"),
        sse("error", anthropic_error("overloaded_error", "Overloaded")),
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert events == [StreamText("partial")]
    assert isinstance(error, ProviderError)
    assert error.kind == "server"
    assert "Overloaded" in error.message


async def test_connection_dropped_mid_stream(anthropic: Any) -> None:
    parts = [message_start(), block_start(0, {"type": "text", "text": ""}), text(0, "so far")]
    with LoopbackServer(sse_reply(parts, end="drop")) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert events == [StreamText("so far")]
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"
    assert "anthropic/claude-sonnet-4-6" in error.message


async def test_malformed_sse_data_is_a_protocol_error(anthropic: Any) -> None:
    parts = [
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        text(0, "ok"),
        b"event: content_block_delta\ndata: {not json\n\n",
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert events == [StreamText("ok")]
    assert isinstance(error, ProviderError)
    assert error.kind == "protocol"
    assert "the server sent stream data that is not JSON after 3 events: " in error.message


async def test_stream_without_message_stop_is_a_connection_error(anthropic: Any) -> None:
    parts = [message_start(), block_start(0, {"type": "text", "text": ""}), text(0, "cut")]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(anthropic(server).stream(REQUEST))
    assert events == [StreamText("cut")]
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"


async def test_request_body_carries_system_tools_and_cache_breakpoints(anthropic: Any) -> None:
    request = ChatRequest(
        model="claude-sonnet-4-6",
        messages=(
            Message("system", "preamble"),
            Message("user", "project context"),
            Message("user", "question"),
        ),
        tools=(ToolDefinition("read", "Read a file", {"type": "object", "properties": {}}),),
        max_tokens=1024,
        cacheable_prefix_messages=2,
    )
    parts = [message_start(), *message_end("end_turn", 1)]
    with LoopbackServer(sse_reply(parts)) as server:
        _, error = await collect(anthropic(server).stream(request))
    assert error is None
    body = server.requests[0].body
    assert body["system"] == [
        {"type": "text", "text": "preamble", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["tools"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"] == {"type": "object", "properties": {}}
    assert body["max_tokens"] == 1024
    content = body["messages"][0]["content"]
    assert content[0] == {
        "type": "text",
        "text": "project context",
        "cache_control": {"type": "ephemeral"},
    }
    assert content[1] == {"type": "text", "text": "question"}
    assert json.dumps(body).count("cache_control") == 3


async def test_closing_the_stream_early_stops_cleanly_and_client_stays_usable(
    anthropic: Any,
) -> None:
    stalled = [message_start(), block_start(0, {"type": "text", "text": ""}), text(0, "first")]
    complete = [message_start(), *message_end("end_turn", 1)]
    with LoopbackServer(sse_reply(stalled, end="stall"), sse_reply(complete)) as server:
        provider = anthropic(server)
        stream = provider.stream(REQUEST)
        assert await anext(stream) == StreamText("first")
        await stream.aclose()
        events, error = await collect(provider.stream(REQUEST))
    assert error is None
    assert events[-1] == StreamDone(stop_reason="stop")
