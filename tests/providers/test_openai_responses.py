"""OpenAIResponsesProvider through the real SDK against a loopback Responses API server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ProviderError,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamToolInput,
    StreamUsage,
)
from steiner_tui.providers.openai_responses import OpenAIResponsesProvider
from tests.providers.loopback import LoopbackServer, collect, json_reply, sse_reply
from tests.providers.protocols import Script

USER = Message("user", "hi")
REQUEST = ChatRequest(model="gpt-4o", messages=(Message("system", "be brief"), USER))


@pytest.fixture
async def responses() -> AsyncIterator[Callable[..., OpenAIResponsesProvider]]:
    made: list[OpenAIResponsesProvider] = []

    def make(server: LoopbackServer, timeout: float = 5.0) -> OpenAIResponsesProvider:
        provider = OpenAIResponsesProvider(
            "openai_responses", "sk-test", f"{server.url}/v1", timeout=timeout, max_retries=0
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


async def test_streams_text_tool_calls_usage_and_new_backend_state(responses: Any) -> None:
    script = (
        Script("resp_A")
        .created()
        .text("Hel", "lo")
        .call(1, "call_1", "read", '{"pa', 'th": "a.py"}')
        .completed()
    )
    with LoopbackServer(sse_reply(script.parts)) as server:
        provider = responses(server)
        assert provider.stateful is True
        events, error = await collect(provider.stream(REQUEST))
    assert error is None
    assert [e.text for e in events if isinstance(e, StreamText)] == ["Hel", "lo"]
    call = next(e.call for e in events if isinstance(e, StreamToolCall))
    assert (call.id, call.name, call.raw_arguments) == ("call_1", "read", '{"path": "a.py"}')
    assert dict(call.arguments or {}) == {"path": "a.py"}
    progress = [e for e in events if isinstance(e, StreamToolInput)]
    assert progress == [StreamToolInput("read", 4), StreamToolInput("read", 16)]
    assert events[-2] == StreamUsage(500, 20, cache_read_tokens=384)
    assert events[-1] == StreamDone(stop_reason="tool_calls", backend_state="resp_A")
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/responses"
    assert body["instructions"] == "be brief"
    assert body["store"] is True
    assert "previous_response_id" not in body
    assert body["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    ]


async def test_continuation_sends_only_messages_the_backend_lacks(responses: Any) -> None:
    first = Script("resp_A").created().call(0, "call_1", "read", '{"path": "a.py"}').completed()
    second = Script("resp_B").created().text("done").completed()
    assistant = Message("assistant", "", tool_calls=(ToolCall("call_1", "read", {"path": "a.py"}),))
    result = Message("tool", "file body", tool_call_id="call_1")
    with LoopbackServer(sse_reply(first.parts), sse_reply(second.parts)) as server:
        provider = responses(server)
        events, _ = await collect(provider.stream(REQUEST))
        assert events[-1].backend_state == "resp_A"
        follow = ChatRequest(
            model="gpt-4o",
            messages=(Message("system", "be brief"), USER, assistant, result),
            backend_state="resp_A",
        )
        events, error = await collect(provider.stream(follow))
    assert error is None
    assert events[-1] == StreamDone(stop_reason="stop", backend_state="resp_B")
    body = server.requests[1].body
    assert body["previous_response_id"] == "resp_A"
    assert body["instructions"] == "be brief"
    assert body["input"] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "file body"}
    ]


async def test_retiring_summary_is_self_contained_and_clears_state(responses: Any) -> None:
    script = Script("resp_S").created().text("## 1. Task and Goal").completed()
    summary = ChatRequest(
        model="gpt-4o",
        messages=(USER, Message("assistant", "ok"), Message("user", "Summarize.")),
        backend_state="resp_A",
        retire_backend_state=True,
        compaction=True,
    )
    with LoopbackServer(sse_reply(script.parts)) as server:
        events, error = await collect(responses(server).stream(summary))
    assert error is None
    assert events[-1] == StreamDone(stop_reason="stop", clear_backend_state=True)
    body = server.requests[0].body
    assert body["store"] is False
    assert "previous_response_id" not in body
    assert len(body["input"]) == 3


async def test_error_of_a_retiring_call_is_marked(responses: Any) -> None:
    summary = ChatRequest(
        model="gpt-4o", messages=(USER,), backend_state="resp_A", retire_backend_state=True
    )
    body = {"error": {"message": "boom", "type": "server_error", "param": None, "code": None}}
    with LoopbackServer(json_reply(500, body)) as server:
        _, error = await collect(responses(server).stream(summary))
    assert isinstance(error, ProviderError)
    assert error.kind == "server"
    assert error.backend_state_retired


async def test_rate_limit_reports_retry_after(responses: Any) -> None:
    body = {"error": {"message": "Slow down", "type": "requests", "code": "rate_limit_exceeded"}}
    with LoopbackServer(json_reply(429, body, {"retry-after": "4"})) as server:
        _, error = await collect(responses(server).stream(REQUEST))
    assert isinstance(error, ProviderError)
    assert (error.kind, error.retry_after) == ("rate_limit", 4.0)
    assert not error.backend_state_retired
    assert "Slow down" in error.message


async def test_server_error_status(responses: Any) -> None:
    body = {"error": {"message": "internal", "type": "server_error", "param": None, "code": None}}
    with LoopbackServer(json_reply(500, body)) as server:
        _, error = await collect(responses(server).stream(REQUEST))
    assert isinstance(error, ProviderError)
    assert (error.kind, error.status) == ("server", 500)
    assert "openai_responses/gpt-4o" in error.message


async def test_failed_response_event_keeps_streamed_text(responses: Any) -> None:
    script = Script().created().text("partial")
    failed = script.response("failed", error={"code": "server_error", "message": "model crashed"})
    script.event("response.failed", response=failed)
    with LoopbackServer(sse_reply(script.parts)) as server:
        events, error = await collect(responses(server).stream(REQUEST))
    assert events == [StreamText("partial")]
    assert isinstance(error, ProviderError)
    assert error.kind == "server"
    assert "model crashed" in error.message


async def test_incomplete_response_ends_with_length(responses: Any) -> None:
    script = Script("resp_I").created().text("long")
    incomplete = script.response("incomplete", incomplete_details={"reason": "max_output_tokens"})
    script.event("response.incomplete", response=incomplete)
    with LoopbackServer(sse_reply(script.parts)) as server:
        events, error = await collect(responses(server).stream(REQUEST))
    assert error is None
    assert events[-1] == StreamDone(stop_reason="length", backend_state="resp_I")


async def test_connection_dropped_mid_stream(responses: Any) -> None:
    script = Script().created().text("so far")
    with LoopbackServer(sse_reply(script.parts, end="drop")) as server:
        events, error = await collect(responses(server).stream(REQUEST))
    assert events == [StreamText("so far")]
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"


async def test_malformed_sse_data_is_a_protocol_error(responses: Any) -> None:
    script = Script().created().text("ok")
    script.parts.append(b"event: response.output_text.delta\ndata: {oops}\n\n")
    with LoopbackServer(sse_reply(script.parts)) as server:
        events, error = await collect(responses(server).stream(REQUEST))
    assert events == [StreamText("ok")]
    assert isinstance(error, ProviderError)
    assert error.kind == "protocol"


async def test_error_event_mid_stream(responses: Any) -> None:
    script = Script().created().text("partial")
    script.event(
        "error", code="rate_limit_exceeded", message="Too many tokens per minute", param=None
    )
    with LoopbackServer(sse_reply(script.parts)) as server:
        events, error = await collect(responses(server).stream(REQUEST))
    assert events == [StreamText("partial")]
    assert isinstance(error, ProviderError)
    assert error.kind == "rate_limit"
    assert "Too many tokens per minute" in error.message
