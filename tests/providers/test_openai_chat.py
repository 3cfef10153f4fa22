"""OpenAIChatProvider through the real SDK against a loopback Chat Completions server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from steiner_tui.engine.messages import Image, Message, ToolCall
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
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from tests.providers.loopback import LoopbackServer, collect, json_reply, sse_data, sse_reply
from tests.providers.protocols import DONE, chunk, tool_delta

REQUEST = ChatRequest(model="gpt-4o", messages=(Message("user", "hi"),), max_tokens=256)


USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 30,
    "total_tokens": 1230,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0},
}


@pytest.fixture
async def chat() -> AsyncIterator[Callable[..., OpenAIChatProvider]]:
    made: list[OpenAIChatProvider] = []

    def make(server: LoopbackServer, timeout: float = 5.0) -> OpenAIChatProvider:
        provider = OpenAIChatProvider(
            "openai", "sk-test", f"{server.url}/v1", timeout=timeout, max_retries=0
        )
        made.append(provider)
        return provider

    yield make
    for provider in made:
        await provider.aclose()


async def test_streams_text_split_tool_calls_and_usage(chat: Any) -> None:
    parts = [
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Look"}),
        chunk({"content": "ing."}),
        chunk(tool_delta(0, id="call_a", type="function", name="read", arguments="")),
        chunk(tool_delta(0, arguments='{"pa')),
        chunk(tool_delta(1, id="call_b", type="function", name="gl", arguments="")),
        chunk(tool_delta(1, name="ob", arguments='{"pattern": "*.py"}')),
        chunk(tool_delta(0, arguments='th": "a.py"}')),
        chunk({}, finish="tool_calls"),
        chunk(None, usage=USAGE),
        DONE,
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert error is None
    assert [e.text for e in events if isinstance(e, StreamText)] == ["Look", "ing."]
    calls = [e.call for e in events if isinstance(e, StreamToolCall)]
    assert [(c.id, c.name, c.raw_arguments) for c in calls] == [
        ("call_a", "read", '{"path": "a.py"}'),
        ("call_b", "glob", '{"pattern": "*.py"}'),
    ]
    assert dict(calls[0].arguments or {}) == {"path": "a.py"}
    assert events[-2] == StreamUsage(1200, 30, cache_read_tokens=1024)
    assert events[-1] == StreamDone(stop_reason="tool_calls")
    body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 256
    assert "max_completion_tokens" not in body


@pytest.mark.parametrize(
    ("usage_extra", "cached"),
    [
        ({"prompt_cache_hit_tokens": 900, "prompt_cache_miss_tokens": 300}, 900),
        ({"cached_tokens": 700}, 700),
        ({}, 0),
    ],
)
async def test_cached_tokens_of_compatible_servers(
    chat: Any, usage_extra: dict[str, Any], cached: int
) -> None:
    usage = {"prompt_tokens": 1200, "completion_tokens": 3, "total_tokens": 1203, **usage_extra}
    parts = [chunk({"content": "ok"}), chunk({}, finish="stop"), chunk(None, usage=usage), DONE]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert error is None
    assert StreamUsage(1200, 3, cache_read_tokens=cached) in events
    assert events[-1] == StreamDone(stop_reason="stop")


async def test_reasoning_content_extra_becomes_reasoning(chat: Any) -> None:
    parts = [
        chunk({"role": "assistant", "content": None, "reasoning_content": "think "}),
        chunk({"content": "answer"}),
        chunk({}, finish="stop"),
        DONE,
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert error is None
    assert events[:2] == [StreamReasoning("think "), StreamText("answer")]


async def test_o_series_uses_max_completion_tokens_and_cache_key(chat: Any) -> None:
    request = ChatRequest(
        model="o3-mini", messages=(Message("user", "hi"),), max_tokens=99, prompt_cache_key="k1"
    )
    parts = [chunk({"content": "ok"}, finish="stop"), DONE]
    with LoopbackServer(sse_reply(parts)) as server:
        _, error = await collect(chat(server).stream(request))
    assert error is None
    body = server.requests[0].body
    assert body["max_completion_tokens"] == 99
    assert "max_tokens" not in body
    assert "prompt_cache_key" not in body  # a loopback base_url is not OpenAI's own API


async def test_conversation_is_sent_in_chat_shape(chat: Any) -> None:
    request = ChatRequest(
        model="qwen2.5-coder:7b",
        messages=(
            Message("system", "sys"),
            Message("user", "look", images=(Image("image/png", "AAAA"),)),
            Message(
                "assistant",
                "",
                tool_calls=(ToolCall("c1", "read", {"path": "x.png"}, '{"path":"x.png"}'),),
            ),
            Message("tool", "image shown", tool_call_id="c1", images=(Image("image/png", "BB"),)),
            Message("user", "and?"),
        ),
    )
    parts = [chunk({"content": "ok"}, finish="stop"), DONE]
    with LoopbackServer(sse_reply(parts)) as server:
        _, error = await collect(chat(server).stream(request))
    assert error is None
    sent = server.requests[0].body["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "user", "user"]
    assert sent[1]["content"][1]["image_url"]["url"] == "data:image/png;base64,AAAA"
    assert sent[2]["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"path":"x.png"}'}
    assert sent[3] == {"role": "tool", "tool_call_id": "c1", "content": "image shown"}
    assert sent[4]["content"][1]["image_url"]["url"] == "data:image/png;base64,BB"
    assert server.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_rate_limit_reports_retry_after(chat: Any) -> None:
    body = {
        "error": {
            "message": "Rate limit reached for gpt-4o",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    with LoopbackServer(json_reply(429, body, {"retry-after": "2.5"})) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == []
    assert isinstance(error, ProviderError)
    assert (error.kind, error.status, error.retry_after) == ("rate_limit", 429, 2.5)
    assert "openai/gpt-4o" in error.message
    assert "Rate limit reached" in error.message


@pytest.mark.parametrize(
    ("status", "code", "message", "expected"),
    [
        (500, None, "The server had an error while processing your request.", "server"),
        (401, "invalid_api_key", "Incorrect API key provided", "auth"),
        (
            400,
            "context_length_exceeded",
            "This model's maximum context length is 128000",
            "context_length",
        ),
        # Without images in the request, a message about one is a plain rejection.
        (400, "invalid_image_format", "Invalid image: unsupported format", "bad_request"),
        (404, "model_not_found", "The model `gpt-9` does not exist", "bad_request"),
    ],
)
async def test_http_errors_map_to_kinds(
    chat: Any, status: int, code: str | None, message: str, expected: str
) -> None:
    body = {"error": {"message": message, "type": "x", "param": None, "code": code}}
    with LoopbackServer(json_reply(status, body)) as server:
        _, error = await collect(chat(server).stream(REQUEST))
    assert isinstance(error, ProviderError)
    assert (error.kind, error.status) == (expected, status)
    assert f"HTTP {status}" in error.message
    assert message in error.message


async def test_error_chunk_mid_stream_keeps_streamed_text(chat: Any) -> None:
    error_chunk = sse_data({"error": {"message": "upstream overloaded", "type": "server_error"}})
    parts = [chunk({"content": "part"}), error_chunk]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == [StreamText("part")]
    assert isinstance(error, ProviderError)
    assert error.kind == "server"
    assert "upstream overloaded" in error.message


async def test_connection_dropped_mid_stream(chat: Any) -> None:
    parts = [chunk({"content": "so far"}), chunk(tool_delta(0, id="c", name="read"))]
    with LoopbackServer(sse_reply(parts, end="drop")) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == [StreamText("so far")]
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"


async def test_a_reply_ended_by_done_without_finish_reason_is_finished(chat: Any) -> None:
    """Local servers and proxies that end with data: [DONE] and never send a finish_reason:
    each reply was said to be "dropped mid-stream" (the SDK ends at [DONE] as at the body's
    end)."""
    call = tool_delta(0, id="c1", type="function", name="read", arguments='{"path": "a"}')
    replies = [sse_reply([chunk({"content": "done"}), DONE]), sse_reply([chunk(call), DONE])]
    with LoopbackServer(*replies) as server:
        provider = chat(server)
        text, error = await collect(provider.stream(REQUEST))
        calls, called_error = await collect(provider.stream(REQUEST))
    assert (error, called_error) == (None, None)
    assert text == [StreamText("done"), StreamDone(stop_reason="stop")]
    assert calls == [
        StreamToolInput("read", 13),
        StreamToolCall(ToolCall("c1", "read", {"path": "a"}, '{"path": "a"}')),
        StreamDone(stop_reason="tool_calls"),
    ]


async def test_an_empty_finish_reason_on_every_chunk_is_no_finish_reason(chat: Any) -> None:
    """Servers that send ``"finish_reason": ""`` until the last chunk: the first one ended the
    reply's tool calls, so a call's arguments that came after it made a second, nameless call."""
    parts = [
        chunk(tool_delta(0, id="c1", type="function", name="read", arguments=""), finish=""),
        chunk(tool_delta(0, arguments='{"path": '), finish=""),
        chunk(tool_delta(0, arguments='"a.py"}'), finish=""),
        chunk({}, finish="tool_calls"),
        DONE,
    ]
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert error is None
    assert events == [
        # Each fragment of the arguments, as it comes: the call's progress (9, then 16 chars).
        StreamToolInput("read", 9),
        StreamToolInput("read", 16),
        StreamToolCall(ToolCall("c1", "read", {"path": "a.py"}, '{"path": "a.py"}')),
        StreamDone(stop_reason="tool_calls"),
    ]


@pytest.mark.parametrize(
    "said", ["cut", "data: [DONE]"], ids=["text", "the marker inside the text"]
)
async def test_a_stream_without_finish_reason_or_done_is_cut(chat: Any, said: str) -> None:
    with LoopbackServer(sse_reply([chunk({"content": said})])) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == [StreamText(said)]
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"
    assert error.message == (
        "openai/gpt-4o: the connection was cut mid-reply: the stream ended after 1 event "
        "without a finish_reason or data: [DONE]"
    )


async def test_malformed_sse_data_is_a_protocol_error(chat: Any) -> None:
    parts = [chunk({"content": "ok"}), b'data: {"choices": [\n\n']
    with LoopbackServer(sse_reply(parts)) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == [StreamText("ok")]
    assert isinstance(error, ProviderError)
    assert error.kind == "protocol"


@pytest.mark.parametrize(
    ("choice", "wrong"),
    [
        ({"index": 0, "delta": None}, "choices[0].delta is null where an object belongs"),
        ({"index": 0, "delta": {"content": 7}}, "choices[0].delta.content is 7 where a string"),
    ],
)
async def test_a_malformed_chunk_says_what_is_wrong_in_it(
    chat: Any, choice: dict[str, Any], wrong: str
) -> None:
    """A chunk whose delta was null said "malformed ChatCompletionChunk event in the stream:
    'NoneType' object has no attribute 'content'"; a number for content went on as text."""
    kind = "chat.completion.chunk"
    bad = sse_data({"id": "c", "object": kind, "created": 1, "model": "m", "choices": [choice]})
    with LoopbackServer(sse_reply([chunk({"content": "so far"}), bad, DONE])) as server:
        events, error = await collect(chat(server).stream(REQUEST))
    assert events == [StreamText("so far")]
    assert isinstance(error, ProviderError)
    assert error.kind == "protocol"
    assert error.message.startswith(
        "openai/gpt-4o: the server sent a malformed chat.completion.chunk (stream event 2): "
        + wrong
    )


async def test_unreachable_server_is_a_connection_error(chat: Any) -> None:
    server = LoopbackServer()
    server.stop()
    _, error = await collect(chat(server).stream(REQUEST))
    assert isinstance(error, ProviderError)
    assert error.kind == "connection"
    assert f"could not connect to the API at {server.url}/v1/chat/completions" in error.message
