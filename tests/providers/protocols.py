"""The three wire protocols as a loopback server speaks them: event builders and ``Wire``s.

Builders write the SSE events of Anthropic's Messages API, OpenAI Chat Completions chunks and the
OpenAI Responses API, shaped like the real services' (trimmed to the fields around the ones
read). A ``Wire`` says the same things in each protocol (a text reply, a tool call, the start of
a reply that never finishes, an HTTP error, a malformed event) and builds its provider, so the
fault suite runs every fault over all three.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from steiner_tui.providers.anthropic_provider import AnthropicProvider
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from steiner_tui.providers.openai_responses import OpenAIResponsesProvider
from steiner_tui.providers.sdk_base import SdkProvider
from tests.providers.loopback import LoopbackServer, Reply, json_reply, sse, sse_data

__all__ = [
    "ANTHROPIC",
    "DONE",
    "CHAT",
    "RESPONSES",
    "WIRES",
    "Script",
    "Wire",
    "anthropic_error",
    "block_start",
    "block_stop",
    "chunk",
    "delta",
    "message_end",
    "message_start",
    "openai_error",
    "text",
    "tool_delta",
]

# -- Anthropic Messages API -----------------------------------------------------------------


def message_start(
    input_tokens: int = 25, read: int = 1000, write: int = 100, *, usage: bool = True
) -> bytes:
    message: dict[str, Any] = {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
    }
    if usage:
        message["usage"] = {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": 1,
        }
    return sse("message_start", {"type": "message_start", "message": message})


def block_start(index: int, block: dict[str, Any]) -> bytes:
    payload = {"type": "content_block_start", "index": index, "content_block": block}
    return sse("content_block_start", payload)


def delta(index: int, body: dict[str, Any]) -> bytes:
    return sse(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": body}
    )


def text(index: int, value: str) -> bytes:
    return delta(index, {"type": "text_delta", "text": value})


def block_stop(index: int) -> bytes:
    return sse("content_block_stop", {"type": "content_block_stop", "index": index})


def message_end(stop_reason: str, output_tokens: int | None) -> list[bytes]:
    body: dict[str, Any] = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
    }
    if output_tokens is not None:
        body["usage"] = {"output_tokens": output_tokens}
    return [sse("message_delta", body), sse("message_stop", {"type": "message_stop"})]


def anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


# -- OpenAI Chat Completions ----------------------------------------------------------------


def chunk(
    delta: dict[str, Any] | None = None,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
) -> bytes:
    choices = (
        []
        if delta is None
        else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    )
    return sse_data(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_1",
            "choices": choices,
            "usage": usage,
        }
    )


def tool_delta(index: int, **fields: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index}
    function = {k: fields.pop(k) for k in ("name", "arguments") if k in fields}
    call.update(fields)
    if function:
        call["function"] = function
    return {"tool_calls": [call]}


def openai_error(message: str, code: str | None = None, kind: str = "x") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


DONE = sse_data("[DONE]")


# -- OpenAI Responses API -------------------------------------------------------------------


class Script:
    """Builds one response's event sequence with increasing sequence numbers."""

    def __init__(self, response_id: str = "resp_1") -> None:
        self.id = response_id
        self.seq = 0
        self.parts: list[bytes] = []

    def event(self, kind: str, **fields: Any) -> Script:
        self.parts.append(sse(kind, {"type": kind, "sequence_number": self.seq, **fields}))
        self.seq += 1
        return self

    def response(self, status: str, **extra: Any) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "response",
            "created_at": 1700000000,
            "status": status,
            "model": "gpt-4o-2024-08-06",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            **extra,
        }

    def created(self) -> Script:
        return self.event("response.created", response=self.response("in_progress"))

    def text(self, *deltas: str) -> Script:
        item = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant"}
        self.event("response.output_item.added", output_index=0, item={**item, "content": []})
        for piece in deltas:
            self.event(
                "response.output_text.delta",
                item_id="msg_1",
                output_index=0,
                content_index=0,
                delta=piece,
                logprobs=[],
            )
        return self

    def call(self, index: int, call_id: str, name: str, *fragments: str) -> Script:
        item = {"id": f"fc_{index}", "type": "function_call", "call_id": call_id, "name": name}
        self.event(
            "response.output_item.added",
            output_index=index,
            item={**item, "status": "in_progress", "arguments": ""},
        )
        for piece in fragments:
            self.event(
                "response.function_call_arguments.delta",
                item_id=f"fc_{index}",
                output_index=index,
                delta=piece,
            )
        whole = "".join(fragments)
        self.event(
            "response.function_call_arguments.done",
            item_id=f"fc_{index}",
            output_index=index,
            arguments=whole,
        )
        return self.event(
            "response.output_item.done",
            output_index=index,
            item={**item, "status": "completed", "arguments": whole},
        )

    def completed(
        self, input_tokens: int = 500, cached: int = 384, output: int = 20, *, usage: bool = True
    ) -> Script:
        if not usage:
            return self.event("response.completed", response=self.response("completed"))
        body = {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": output,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output,
        }
        return self.event("response.completed", response=self.response("completed", usage=body))


# -- the same things said in each protocol --------------------------------------------------


class Wire(ABC):
    """One protocol: its provider, and a few replies said in it."""

    name: str
    model: str
    prompt_tokens: int
    """The prompt tokens ``text_reply`` reports in its usage."""
    key_env: str
    """The environment variable the provider is told its key came from."""

    @abstractmethod
    def provider(
        self, server: LoopbackServer, *, timeout: float, max_retries: int
    ) -> SdkProvider[Any, Any]: ...

    @property
    def label(self) -> str:
        return f"{self.name}/{self.model}"

    @abstractmethod
    def text_reply(self, *pieces: str, usage: bool = True) -> list[bytes]:
        """A complete reply streaming ``pieces`` of text."""

    @abstractmethod
    def tool_reply(self, call_id: str, name: str, raw_arguments: str) -> list[bytes]:
        """A complete reply calling one tool with ``raw_arguments`` (sent as they are)."""

    @abstractmethod
    def opening(self, piece: str) -> list[bytes]:
        """The start of a reply: ``piece`` of text, and no end."""

    @abstractmethod
    def malformed(self) -> bytes:
        """An event whose data is not JSON."""

    @abstractmethod
    def misshapen(self) -> bytes:
        """A JSON event missing a field the SDK's types require (``left_out``)."""

    left_out: str
    """The field ``misshapen`` leaves out, as the error names it."""

    @abstractmethod
    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The API's error body for an HTTP ``status``."""

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Reply:
        return json_reply(status, self.error_body(status, message), headers)


_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


class AnthropicWire(Wire):
    name = "anthropic"
    model = "claude-sonnet-4-6"
    prompt_tokens = 1125
    key_env = "TEST_ANTHROPIC_KEY"
    left_out = "delta"

    def provider(
        self, server: LoopbackServer, *, timeout: float, max_retries: int
    ) -> AnthropicProvider:
        return AnthropicProvider(
            self.name,
            "sk-ant-test",
            server.url,
            timeout=timeout,
            max_retries=max_retries,
            key_env=self.key_env,
        )

    def text_reply(self, *pieces: str, usage: bool = True) -> list[bytes]:
        return [
            message_start(usage=usage),
            block_start(0, {"type": "text", "text": ""}),
            *(text(0, piece) for piece in pieces),
            block_stop(0),
            *message_end("end_turn", 12 if usage else None),
        ]

    def tool_reply(self, call_id: str, name: str, raw_arguments: str) -> list[bytes]:
        return [
            message_start(),
            block_start(0, {"type": "tool_use", "id": call_id, "name": name, "input": {}}),
            delta(0, {"type": "input_json_delta", "partial_json": raw_arguments}),
            block_stop(0),
            *message_end("tool_use", 9),
        ]

    def opening(self, piece: str) -> list[bytes]:
        return [message_start(), block_start(0, {"type": "text", "text": ""}), text(0, piece)]

    def malformed(self) -> bytes:
        return b'event: content_block_delta\ndata: {"type": "content_block_delta", "ind\n\n'

    def misshapen(self) -> bytes:
        return sse("content_block_delta", {"type": "content_block_delta", "index": 0})

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return anthropic_error(_ANTHROPIC_ERROR_TYPES.get(status, "api_error"), message)


_CHAT_USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 30,
    "total_tokens": 1230,
    "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0},
}


class ChatWire(Wire):
    name = "openai"
    model = "gpt-4o"
    prompt_tokens = 1200
    key_env = "TEST_OPENAI_KEY"
    left_out = "choices[0].delta"

    def provider(
        self, server: LoopbackServer, *, timeout: float, max_retries: int
    ) -> OpenAIChatProvider:
        return OpenAIChatProvider(
            self.name,
            "sk-test",
            f"{server.url}/v1",
            timeout=timeout,
            max_retries=max_retries,
            key_env=self.key_env,
        )

    def text_reply(self, *pieces: str, usage: bool = True) -> list[bytes]:
        parts = [chunk({"role": "assistant", "content": ""})]
        parts += [chunk({"content": piece}) for piece in pieces]
        parts.append(chunk({}, finish="stop"))
        if usage:
            parts.append(chunk(None, usage=_CHAT_USAGE))
        return [*parts, DONE]

    def tool_reply(self, call_id: str, name: str, raw_arguments: str) -> list[bytes]:
        call = tool_delta(0, id=call_id, type="function", name=name, arguments=raw_arguments)
        return [chunk(call), chunk({}, finish="tool_calls"), chunk(None, usage=_CHAT_USAGE), DONE]

    def opening(self, piece: str) -> list[bytes]:
        return [chunk({"role": "assistant", "content": ""}), chunk({"content": piece})]

    def malformed(self) -> bytes:
        return b'data: {"choices": [\n\n'

    def misshapen(self) -> bytes:
        return chunk(None).replace(b'"choices": []', b'"choices": [{"index": 0}]')

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        codes = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
        return openai_error(message, codes.get(status))


class ResponsesWire(ChatWire):
    name = "openai_responses"
    prompt_tokens = 500
    left_out = "response"

    def provider(
        self, server: LoopbackServer, *, timeout: float, max_retries: int
    ) -> OpenAIResponsesProvider:
        return OpenAIResponsesProvider(
            self.name,
            "sk-test",
            f"{server.url}/v1",
            timeout=timeout,
            max_retries=max_retries,
            key_env=self.key_env,
        )

    def text_reply(self, *pieces: str, usage: bool = True) -> list[bytes]:
        return Script().created().text(*pieces).completed(usage=usage).parts

    def tool_reply(self, call_id: str, name: str, raw_arguments: str) -> list[bytes]:
        return Script().created().call(0, call_id, name, raw_arguments).completed().parts

    def opening(self, piece: str) -> list[bytes]:
        return Script().created().text(piece).parts

    def malformed(self) -> bytes:
        return b'event: response.output_text.delta\ndata: {"type": "response.out\n\n'

    def misshapen(self) -> bytes:
        kind = "response.completed"  # without its response
        return sse(kind, {"type": kind, "sequence_number": 99})


ANTHROPIC = AnthropicWire()
CHAT = ChatWire()
RESPONSES = ResponsesWire()
WIRES = (ANTHROPIC, CHAT, RESPONSES)
