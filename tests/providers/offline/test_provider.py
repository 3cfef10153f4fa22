"""The offline provider's contract: streaming shape, usage, limits, determinism."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest, StreamDone, StreamText, StreamUsage
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json
from steiner_tui.providers.offline import OFFLINE_MODEL_INFO, OfflineProvider
from tests.providers.offline.support import ask, make_project, tool_defs


def _request(prompt: str, tools: tuple[ToolDefinition, ...] = ()) -> ChatRequest:
    messages = (Message("system", "You are a coding agent."), Message("user", prompt))
    return ChatRequest("offline", messages, tools)


def test_identity_and_model_info(tmp_path: Path) -> None:
    provider = OfflineProvider(tmp_path)
    assert (provider.alias, provider.stateful, provider.model) == ("offline", False, "offline")
    info = provider.model_info("offline")
    assert info == OFFLINE_MODEL_INFO
    assert (info.context_window, info.max_output, info.vision, info.tokenizer) == (
        32768,
        4096,
        False,
        "heuristic",
    )


async def test_answer_streams_in_word_chunks_then_usage_then_done(tmp_path: Path) -> None:
    reply = await ask(OfflineProvider(tmp_path), _request("hello there, how are you today?"))
    texts = [e for e in reply.events if isinstance(e, StreamText)]
    assert len(texts) > 10
    assert all(t.text.strip() and len(t.text.split()) == 1 for t in texts)
    kinds = [type(e) for e in reply.events]
    assert kinds[-2:] == [StreamUsage, StreamDone]
    assert kinds.count(StreamUsage) == 1
    assert reply.done.stop_reason == "stop"


async def test_usage_is_the_heuristic_count_of_what_was_sent_and_produced(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    request = _request("what is in this project?", tools=tool_defs("glob", "read"))
    reply = await ask(OfflineProvider(root), request)
    # Everything sent counts (roles, contents, the tool list), as the heuristic estimator
    # counts it, so the offline model's reported usage never drifts from the estimate.
    chars = sum(len(m.role) + len(m.content) for m in request.messages)
    chars += len(tools_json(request.tools))
    assert reply.usage.prompt_tokens == 8 + (chars + 3) // 4
    produced = len(reply.text) + sum(len(c.raw_arguments) for c in reply.calls)
    assert reply.usage.completion_tokens == 8 + (produced + 3) // 4
    assert reply.calls and reply.done.stop_reason == "tool_calls"


async def test_same_request_gives_the_same_events(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    request = _request("what is in this project?", tools=tool_defs("glob", "grep", "read"))
    first = await ask(OfflineProvider(root), request)
    second = await ask(OfflineProvider(root), request)
    assert first.events == second.events
    chat = _request("tell me a joke")
    assert (await ask(OfflineProvider(root), chat)).events == (
        await ask(OfflineProvider(root), chat)
    ).events


async def test_tool_call_ids_are_unique_across_rounds(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    provider = OfflineProvider(root)
    first = await ask(provider, _request("what is in this project?", tools=tool_defs("glob")))
    longer = ChatRequest(
        "offline",
        (
            Message("user", "a"),
            Message("assistant", "b"),
            Message("user", "what is in this project?"),
        ),
        tool_defs("glob"),
    )
    second = await ask(provider, longer)
    assert first.calls[0].id != second.calls[0].id
