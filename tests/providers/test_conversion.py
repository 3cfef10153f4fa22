"""Request conversion rules: Anthropic blocks and breakpoints, Responses continuation."""

from __future__ import annotations

import json

from steiner_tui.engine.messages import Image, Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.providers.anthropic_convert import to_anthropic_params
from steiner_tui.providers.openai_chat_convert import uses_max_completion_tokens
from steiner_tui.providers.openai_responses_convert import new_input_start, to_responses_params
from steiner_tui.providers.streaming import ToolCallBuffer

EPHEMERAL = {"type": "ephemeral"}
TOOLS = (
    ToolDefinition("glob", "Find files", {"type": "object"}),
    ToolDefinition("read", "Read a file", {"type": "object"}),
)


def marked(params: dict[str, object]) -> list[str]:
    """The text/type of every block carrying a cache breakpoint, in request order."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            if "cache_control" in value:
                found.append(str(value.get("text") or value.get("name") or value.get("type")))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(params.get("tools"))
    walk(params.get("system"))
    walk(params.get("messages"))
    return found


def test_breakpoints_on_tools_system_summary_and_prefix() -> None:
    request = ChatRequest(
        model="claude-sonnet-4-6",
        messages=(
            Message("system", "preamble"),
            Message("user", "AGENTS.md"),
            Message("system", "summary of earlier work"),
            Message("user", "next question"),
        ),
        tools=TOOLS,
        cacheable_prefix_messages=2,
    )
    params = to_anthropic_params(request)
    assert [b["text"] for b in params["system"]] == ["preamble", "summary of earlier work"]
    assert marked(params) == ["read", "preamble", "summary of earlier work", "AGENTS.md"]
    assert params["tools"][0] == {
        "name": "glob",
        "description": "Find files",
        "input_schema": {"type": "object"},
    }


def test_prefix_ending_on_a_system_message_marks_no_message() -> None:
    request = ChatRequest(
        model="m",
        messages=(Message("system", "preamble"), Message("user", "q")),
        cacheable_prefix_messages=1,
    )
    params = to_anthropic_params(request)
    assert marked(params) == ["preamble"]
    assert json.dumps(params).count("cache_control") == 1


def test_tool_turns_images_and_merging() -> None:
    call_a = ToolCall("toolu_a", "read", {"path": "a.png"}, '{"path": "a.png"}')
    call_b = ToolCall("toolu_b", "bash", None, '{"command": ')
    request = ChatRequest(
        model="m",
        messages=(
            Message("user", "look", images=(Image("image/png", "AAA"),)),
            Message("assistant", "", reasoning="hidden", tool_calls=(call_a, call_b)),
            Message("tool", "", tool_call_id="toolu_a", images=(Image("image/png", "BBB"),)),
            Message("tool", "error: bad args", tool_call_id="toolu_b"),
            Message("user", "go on"),
            Message("assistant", ""),
        ),
    )
    turns = to_anthropic_params(request)["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    image = {"type": "base64", "media_type": "image/png", "data": "AAA"}
    assert turns[0]["content"] == [
        {"type": "image", "source": image},
        {"type": "text", "text": "look"},
    ]
    assert turns[1]["content"] == [
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a.png"}},
        {"type": "tool_use", "id": "toolu_b", "name": "bash", "input": {}},
    ]
    results = turns[2]["content"]
    assert results[0]["type"] == "tool_result"
    assert results[0]["content"][0]["source"]["data"] == "BBB"
    assert results[1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_b",
        "content": "error: bad args",
    }
    assert results[2] == {"type": "text", "text": "go on"}


def test_max_completion_tokens_models() -> None:
    assert uses_max_completion_tokens("o3-mini")
    assert uses_max_completion_tokens("gpt-5.1")
    assert uses_max_completion_tokens("openai/o4-mini")
    assert not uses_max_completion_tokens("gpt-4o")
    assert not uses_max_completion_tokens("qwen2.5-coder:7b")


USER1, USER2, USER3 = Message("user", "1"), Message("user", "2"), Message("user", "3")
REPLY1 = Message("assistant", "a1")
PARTIAL = Message("assistant", "a2 partial", incomplete=True)


def test_known_response_sends_after_its_output() -> None:
    assert new_input_start([USER1, REPLY1, USER2], held=1) == 2


def test_cancelled_turn_is_resent_after_the_last_known_response() -> None:
    # resp for [USER1] -> REPLY1; then USER2 got a cancelled, never-stored reply; now USER3.
    conversation = [USER1, REPLY1, USER2, PARTIAL, USER3]
    assert new_input_start(conversation, held=1) == 2


def test_output_never_stored_sends_from_held() -> None:
    assert new_input_start([USER1, USER2], held=1) == 1


def test_unknown_response_id_sends_after_last_assistant() -> None:
    assert new_input_start([USER1, REPLY1, USER2, PARTIAL, USER3], held=None) == 4
    assert new_input_start([USER1, USER2], held=None) == 0
    assert new_input_start([USER1], held=5) == 0


def test_responses_params_without_state_send_everything() -> None:
    request = ChatRequest(
        model="gpt-4o",
        messages=(Message("system", "a"), Message("system", "b"), USER1, REPLY1, USER2),
        tools=TOOLS[:1],
        prompt_cache_key="key",
    )
    params, sent = to_responses_params(request, held=None, official=True)
    assert sent == 3
    assert params["instructions"] == "a\n\nb"
    assert len(params["input"]) == 3
    assert params["input"][1] == {"type": "message", "role": "assistant", "content": "a1"}
    assert params["prompt_cache_key"] == "key"
    assert params["tools"][0]["name"] == "glob"


def test_tool_call_buffer_name_fragments_and_repeats() -> None:
    split = ToolCallBuffer("c1")
    for piece in ("gl", "ob"):
        split.add_name(piece)
    repeated = ToolCallBuffer("c2")
    for piece in ("read", "read"):
        repeated.add_name(piece)
    assert (split.name, repeated.name) == ("glob", "read")
    assert repeated.to_call().arguments == {}
