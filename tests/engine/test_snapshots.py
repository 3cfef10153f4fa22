"""Request snapshots: the event's figures, immutability, the store and prefix stability."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from steiner_tui.engine.events import ListSink, RequestSnapshot, TextDelta
from steiner_tui.engine.messages import Message, ToolCall, message_hash
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.snapshots import SnapshotStore, build_request_snapshot, prefix_stability
from steiner_tui.engine.tooldefs import ToolDefinition, tools_json

T0 = datetime(2026, 9, 13, 12, 0, tzinfo=UTC)


@dataclasses.dataclass(frozen=True)
class Estimate:
    tokens: int = 120
    raw_tokens: int = 100
    strategy: str = "heuristic"
    confidence: str = "low"


BLOCKS = (
    ContextBlock.of("preamble", "You are Steiner."),
    ContextBlock.of("project_context", "notes", path="/p/notes.md"),
    ContextBlock.of("session_date", "Current date: today."),
)


def snap(
    conversation: Sequence[Message],
    *,
    index: int = 0,
    blocks: Sequence[ContextBlock] = BLOCKS,
    tools: Sequence[ToolDefinition] = (),
    compaction: bool = False,
) -> RequestSnapshot:
    block_messages = render_blocks(blocks)
    return build_request_snapshot(
        request_id=f"req-{index}",
        index=index,
        model="gpt-4o",
        provider="openai",
        time=T0,
        messages=[*block_messages, *conversation],
        blocks=blocks,
        block_message_count=len(block_messages),
        tools=tools,
        max_tokens=4096,
        estimate=Estimate(),
        compaction=compaction,
        generation_id="g1",
    )


def conversation(turns: int) -> list[Message]:
    out: list[Message] = []
    for t in range(turns):
        out.append(Message("user", f"question {t}", turn=t))
        out.append(Message("assistant", f"answer {t}", turn=t))
    return out


def read_tool() -> ToolDefinition:
    return ToolDefinition("read", "Read a file.", {"type": "object", "properties": {}})


def test_snapshot_figures() -> None:
    convo = [Message("user", "héllo")]
    tools = [read_tool()]
    s = snap(convo, tools=tools)
    assert s.kind == "request"
    assert s.message_hashes == tuple(message_hash(m) for m in s.messages)
    assert s.prompt_bytes == sum(len(m.role.encode()) + len(m.content.encode()) for m in s.messages)
    assert s.blocks_bytes == sum(b.byte_size for b in BLOCKS)
    assert s.tools_bytes == len(tools_json(tools).encode())
    assert s.block_message_count == 2
    assert (s.estimated_prompt_tokens, s.raw_prompt_tokens) == (120, 100)
    assert (s.estimate_strategy, s.estimate_confidence) == ("heuristic", "low")
    assert s.max_tokens == 4096
    assert isinstance(s.messages, tuple)
    assert isinstance(s.tools, tuple)
    assert s.messages[-1] is convo[0]


def test_tools_bytes_is_computed_for_every_request() -> None:
    assert snap([], tools=[]).tools_bytes == 0
    one = snap([], tools=[read_tool()]).tools_bytes
    two = snap([], tools=[read_tool(), ToolDefinition("grep", "Search.", {})]).tools_bytes
    assert 0 < one < two


def test_nothing_the_caller_holds_can_change_a_stored_snapshot() -> None:
    params: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}
    args: dict[str, Any] = {"path": "a.py", "lines": [1, 2]}
    convo = [
        Message("user", "read it"),
        Message("assistant", tool_calls=[ToolCall("c1", "read", args)]),
    ]
    tools = [ToolDefinition("read", "Read a file.", params)]
    blocks = list(BLOCKS)
    event = snap(convo, tools=tools, blocks=blocks)
    store = SnapshotStore()
    store.store(event)
    before = store.latest()
    assert before is not None
    expected = (
        before.messages,
        before.message_hashes,
        before.tools,
        before.tools_bytes,
        before.blocks,
    )

    convo.append(Message("user", "sneaky"))
    convo[0] = Message("user", "rewritten")
    params["properties"]["path"]["type"] = "integer"
    params["extra"] = True
    args["path"] = "/etc/passwd"
    args["lines"].append(3)
    tools.clear()
    blocks.clear()

    for s in (event, store.latest(), store.snapshot(0), store.parent_snapshot()):
        assert s is not None
        assert (s.messages, s.message_hashes, s.tools, s.tools_bytes, s.blocks) == expected
        assert s.messages[-1].tool_calls[0].arguments == {"path": "a.py", "lines": (1, 2)}
        assert "integer" not in tools_json(s.tools)


def test_snapshots_are_frozen() -> None:
    s = snap(conversation(1), tools=[read_tool()])
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.max_tokens = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.tools[0].parameters["type"] = "array"  # type: ignore[index]
    call = ToolCall("c", "read", {"path": "x"})
    with pytest.raises(TypeError):
        call.arguments["path"] = "y"  # type: ignore[index]


def test_store_shares_messages_between_snapshots() -> None:
    store = SnapshotStore()
    convo = conversation(1)
    for i in range(1, 6):
        store.store(snap(convo, index=i))
        convo = [*convo, *conversation(i + 1)[-2:]]
    snaps = store.all()
    assert [s.index for s in snaps] == [1, 2, 3, 4, 5]
    first, last = snaps[0], snaps[-1]
    assert len(last.messages) == 2 + 10
    for i, message in enumerate(first.messages):
        assert last.messages[i] is message
    # Each snapshot still reads back exactly as stored.
    assert last.messages[2:] == tuple(conversation(5))


def test_store_keeps_exact_messages_when_the_prefix_breaks() -> None:
    store = SnapshotStore()
    store.store(snap(conversation(3), index=1))
    compacted = [Message("summary", "sum"), *conversation(3)[-2:]]
    store.store(snap(compacted, index=2, compaction=True))
    # Same hash input, different tool_call_id: must not be confused with the stored message.
    a = Message("tool", "ok", tool_call_id="c1")
    b = Message("tool", "ok", tool_call_id="c2")
    store.store(snap([a], index=3))
    store.store(snap([b], index=4))
    assert store.snapshot(1).messages[2:] == tuple(conversation(3))  # type: ignore[union-attr]
    assert store.snapshot(2).messages[2:] == tuple(compacted)  # type: ignore[union-attr]
    assert store.snapshot(3).messages[-1].tool_call_id == "c1"  # type: ignore[union-attr]
    assert store.snapshot(4).messages[-1].tool_call_id == "c2"  # type: ignore[union-attr]
    assert store.snapshot(99) is None


def test_parent_snapshot_is_the_last_non_compaction_request() -> None:
    store = SnapshotStore()
    assert store.parent_snapshot() is None
    assert store.latest() is None
    store.store(snap(conversation(1), index=1, tools=[read_tool()]))
    store.store(snap(conversation(1), index=2, compaction=True))
    parent = store.parent_snapshot()
    latest = store.latest()
    assert parent is not None and latest is not None
    assert parent.index == 1
    assert parent.tools == (read_tool(),)
    assert latest.index == 2


def test_store_is_a_sink_for_request_events() -> None:
    store = SnapshotStore()
    store.emit(TextDelta("hi"))
    store.emit(snap([], index=7))
    assert len(store) == 1
    assert store.snapshot(7) is not None
    sink = ListSink()
    sink.emit(snap([]))
    assert sink.events[0].kind == "request"


def test_prefix_stability_when_the_conversation_grows() -> None:
    a = snap(conversation(1))
    b = snap(conversation(2))
    result = prefix_stability(a, b)
    assert (result.matching, result.first_broken, result.stable) == (4, None, True)


def test_prefix_stability_names_the_block_source() -> None:
    a = snap(conversation(1))
    changed_context = (BLOCKS[0], ContextBlock.of("project_context", "new notes"), BLOCKS[2])
    b = snap(conversation(1), blocks=changed_context)
    result = prefix_stability(a, b)
    assert (result.matching, result.first_broken, result.broken_source) == (1, 1, "project_context")

    changed_preamble = (ContextBlock.of("preamble", "Different."), *BLOCKS[1:])
    result = SnapshotStore().prefix_stability(a, snap(conversation(1), blocks=changed_preamble))
    assert (result.matching, result.first_broken, result.broken_source) == (0, 0, "preamble")


def test_prefix_stability_in_the_conversation() -> None:
    a = snap(conversation(2))
    edited = conversation(2)
    edited[1] = Message("assistant", "edited")
    result = prefix_stability(a, snap(edited))
    assert (result.matching, result.first_broken, result.broken_source) == (3, 3, "conversation")
    shorter = prefix_stability(a, snap(conversation(1)))
    assert (shorter.matching, shorter.first_broken, shorter.broken_source) == (
        4,
        4,
        "conversation",
    )
