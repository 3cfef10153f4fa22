"""Request snapshots: the event's figures, immutability, the store and prefix stability."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.events import (
    ListSink,
    RequestSnapshot,
    RequestStopped,
    TextDelta,
    UsageReported,
)
from steiner_tui.engine.messages import Message, ToolCall, message_hash, messages_bytes
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.skills.delta import compose_user_message
from steiner_tui.engine.skills.envelopes import render_skill_activation
from steiner_tui.engine.snapshots import (
    TOOLS_SOURCE,
    SnapshotStore,
    SourceCounter,
    build_request_snapshot,
    prefix_stability,
)
from steiner_tui.engine.tokens import EncodingLoader, RequestEstimator
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
    with pytest.raises(AttributeError):
        s.max_tokens = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.tools[0].parameters["type"] = "array"  # type: ignore[index]
    given = {"path": "x"}
    call = ToolCall("c", "read", given)
    with pytest.raises(TypeError):
        call.arguments["path"] = "y"  # type: ignore[index]
    given["path"] = "y"  # the caller's dict: the call holds a copy
    assert call.arguments == {"path": "x"}


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


def test_store_keeps_a_chain_of_messages_as_it_is() -> None:
    # The runner's requests carry the conversation and its hashes as chains growing from the
    # ones before: they are shared as they are, and a list after them is stored (and read
    # back) whole.
    store = SnapshotStore()
    convo = Chain(conversation(1))
    chains = []
    for i in range(1, 4):
        hashes = Chain([m.digest() for m in convo])
        event = msgspec.structs.replace(snap(convo, index=i), messages=convo, message_hashes=hashes)
        store.store(event)
        chains.append(convo)
        convo = convo.plus(conversation(i + 1)[-2:])
    store.store(snap(conversation(2), index=4))
    for i, chain in enumerate(chains, start=1):
        assert store.snapshot(i).messages is chain  # type: ignore[union-attr]
    assert store.snapshot(4).messages == (*render_blocks(BLOCKS), *conversation(2))  # type: ignore[union-attr]
    assert store.latest() == snap(conversation(2), index=4)


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
    result = prefix_stability(a, snap(conversation(1), blocks=changed_preamble))
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


# -- what each source costs ------------------------------------------------------------------


@dataclasses.dataclass
class _CountingEncoder:
    """One token per character; records every text it encodes."""

    texts: list[str] = dataclasses.field(default_factory=list)

    def encode_ordinary(self, text: str) -> Sequence[int]:
        self.texts.append(text)
        return [0] * len(text)


@dataclasses.dataclass
class _Source:
    name: str
    encoder: _CountingEncoder = dataclasses.field(default_factory=_CountingEncoder)

    def available(self) -> bool:
        return True

    def build(self) -> _CountingEncoder:
        return self.encoder


def _counted(
    estimator: RequestEstimator,
    conversation: Sequence[Message],
    tools: Sequence[ToolDefinition],
    sources: SourceCounter | None = None,
) -> RequestSnapshot:
    block_messages = render_blocks(BLOCKS)
    messages = [*block_messages, *conversation]
    return build_request_snapshot(
        request_id="req-1",
        index=1,
        model="gpt-4",  # cl100k_base
        provider="openai",
        time=T0,
        messages=messages,
        blocks=BLOCKS,
        block_message_count=len(block_messages),
        tools=tools,
        max_tokens=4096,
        estimate=estimator.estimate("gpt-4", messages, tools),
        counter=sources or SourceCounter(estimator),
    )


def test_sources_split_blocks_envelopes_conversation_and_tools() -> None:
    source = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([source]))  # type: ignore[list-item]
    envelope, _ = render_skill_activation("review", "Check everything.")
    asked = Message("user", compose_user_message("please review", [envelope]))
    snapshot = _counted(estimator, [asked, Message("assistant", "done")], [read_tool()])
    rows = [(r.source, r.path, r.name) for r in snapshot.sources]
    assert rows == [
        ("preamble", "", ""),
        ("project_context", "/p/notes.md", ""),
        ("session_date", "", ""),
        ("skill", "", "review"),
        ("conversation", "", ""),
        (TOOLS_SOURCE, "", ""),
    ]
    assert sum(r.tokens for r in snapshot.sources) == snapshot.raw_prompt_tokens
    by_name = {r.name or r.source: r for r in snapshot.sources}
    assert by_name["review"].bytes == len(envelope.encode())
    assert by_name["review"].tokens == len(envelope)  # one token per character
    # The user block message "notes\nCurrent date: today.": its framing (4), role and joiner go
    # to its first block; the date, its second block, costs its own text.
    assert by_name["project_context"].tokens == len("notes") + 4 + len("user") + len("\n")
    assert by_name["session_date"].tokens == len("Current date: today.")
    assert by_name["conversation"].bytes == messages_bytes(
        [asked, Message("assistant", "done")]
    ) - len(envelope.encode())
    assert by_name[TOOLS_SOURCE].tokens == len(tools_json([read_tool()]))


def test_sources_give_tool_results_a_row_of_their_own() -> None:
    """What a read or a command brought in is counted apart from the rest of the conversation:
    the tool message's bytes and tokens, the call that asked for it staying conversation."""
    source = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([source]))  # type: ignore[list-item]
    call = ToolCall("c1", "read", {"path": "README.md"})
    result = Message("tool", "# Title\nA long file.", tool_call_id="c1", name="read")
    conversation = [
        Message("user", "read it"),
        Message("assistant", "", tool_calls=(call,)),
        result,
        Message("assistant", "done"),
    ]
    snapshot = _counted(estimator, conversation, [read_tool()])
    rows = {r.source: r for r in snapshot.sources}
    assert list(rows)[-3:] == ["conversation", "tool_results", TOOLS_SOURCE]
    assert rows["tool_results"].bytes == result.prompt_bytes
    assert rows["tool_results"].tokens == estimator.message_tokens("gpt-4", [result])[0]
    assert sum(r.tokens for r in snapshot.sources) == snapshot.raw_prompt_tokens


def test_sources_count_each_message_and_text_once() -> None:
    source = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([source]))  # type: ignore[list-item]
    sources = SourceCounter(estimator)
    envelope, _ = render_skill_activation("review", "Check everything.")
    history = [Message("user", compose_user_message("go", [envelope])), Message("assistant", "ok")]
    first = _counted(estimator, history, [read_tool()], sources)
    encoded = len(source.encoder.texts)
    grown = [*history, Message("user", "next")]
    snapshot = _counted(estimator, grown, [read_tool()], sources)
    new = source.encoder.texts[encoded:]
    assert new == ["next"]  # only the new text: the role, blocks, envelope, tools are cached
    assert sum(r.tokens for r in snapshot.sources) == snapshot.raw_prompt_tokens
    # A conversation that leaves the one counted last (compaction, /clear) is counted afresh.
    again = _counted(estimator, history, [read_tool()], sources)
    assert again.sources == first.sources


def test_rows_over_many_messages_match_counting_from_scratch() -> None:
    source = _Source("cl100k_base")
    estimator = RequestEstimator(EncodingLoader([source]))  # type: ignore[list-item]
    envelope, _ = render_skill_activation("review", "Check everything.")
    messages: list[Message] = []
    remembered = SourceCounter(estimator)
    for turn in range(150):  # past two checkpoints of running totals
        text = compose_user_message(f"q{turn}", [envelope] if turn % 40 == 0 else [])
        messages += [Message("user", text), Message("assistant", f"a{turn}")]
        if turn % 7 == 0:
            kept = _counted(estimator, messages, (), remembered)
            fresh = _counted(estimator, messages, ())
            assert kept.sources == fresh.sources
    cut = messages[:90]  # a shorter conversation sharing a prefix
    assert _counted(estimator, cut, (), remembered).sources == _counted(estimator, cut, ()).sources


def test_sources_with_the_heuristic_add_up_to_its_count() -> None:
    estimator = RequestEstimator(EncodingLoader([]))
    block_messages = render_blocks(BLOCKS)
    messages = [*block_messages, Message("user", "hello " * 40)]
    snapshot = build_request_snapshot(
        request_id="req-1",
        index=1,
        model="offline",
        provider="offline",
        time=T0,
        messages=messages,
        blocks=BLOCKS,
        block_message_count=len(block_messages),
        tools=[read_tool()],
        max_tokens=4096,
        estimate=estimator.estimate("offline", messages, [read_tool()]),
        counter=SourceCounter(estimator),
    )
    assert snapshot.estimate_strategy == "heuristic"
    assert sum(r.tokens for r in snapshot.sources) == snapshot.raw_prompt_tokens
    assert all(r.tokens >= 0 for r in snapshot.sources)


def test_a_rows_cache_reuse_is_what_the_providers_cache_read_of_its_prompt() -> None:
    """A row's cache reuse was the share of its messages the request before had: 50% on a
    request whose provider read 12,418 of its 12,488 tokens from cache (the preamble is one
    message), and 82% on one it read nothing of (the cache had expired). It is the share of the
    reported prompt read from cache; unknown before usage, for a request stopped before it, and
    for a provider that reports no prompt cache (the offline model)."""
    store = SnapshotStore()
    convo = conversation(1)
    for i in range(1, 5):
        store.store(snap(convo, index=i))
        convo = [*convo, *conversation(i + 1)[-2:]]
    store.emit(UsageReported("gpt-4o", 12_488, 10, 12_418, 0, request_id="req-2"))
    store.emit(UsageReported("gpt-4o", 12_600, 10, 0, 0, request_id="req-3"))  # expired
    store.emit(RequestStopped("req-4", error="overloaded"))
    assert [r.reuse for r in store.summaries()] == [None, 12_418 / 12_488, 0.0, None]
    offline = SnapshotStore()
    for i in (1, 2):
        offline.store(msgspec.structs.replace(snap(convo, index=i), model="offline"))
        offline.emit(UsageReported("offline", 900, 10, request_id=f"req-{i}"))
    assert [r.reuse for r in offline.summaries()] == [None, None]


def test_a_summary_is_its_own_source() -> None:
    estimator = RequestEstimator(EncodingLoader([_Source("cl100k_base")]))  # type: ignore[list-item]
    snapshot = _counted(estimator, [Message("system", "## 1. Task\n- x")], ())
    assert [r.source for r in snapshot.sources][-1] == "conversation_summary"


def test_summaries_give_each_requests_figures() -> None:
    store = SnapshotStore()
    convo = conversation(1)
    for i in range(1, 4):
        store.store(snap(convo, index=i))
        convo = [*convo, *conversation(i + 1)[-2:]]
    compacted = [Message("summary", "sum"), *convo[-2:]]
    store.store(snap(compacted, index=4, compaction=True))
    rows = store.summaries()
    assert [r.index for r in rows] == [1, 2, 3, 4]
    assert [r.message_count for r in rows] == [4, 6, 8, 5]
    assert rows[3].compaction
    assert store.summaries(1, 3) == rows[1:3]
    assert store.position_of(3) == 2 and store.position_of(99) is None
    assert store.at(2) == store.snapshot(3)


def test_the_heuristics_rounding_stays_with_the_conversation_not_the_preamble() -> None:
    """Each message's share under the heuristic is rounded down; over 10,000 messages that
    came to thousands of tokens, all shown on the first block (a 4,960-byte preamble read
    4,661 tokens). The remainder is the conversation's: the block rows do not move."""
    estimator = RequestEstimator(EncodingLoader([]))
    block_messages = render_blocks(BLOCKS)

    def rows(conversation: Sequence[Message]) -> dict[str, int]:
        messages = [*block_messages, *conversation]
        snapshot = build_request_snapshot(
            request_id="req-1",
            index=1,
            model="offline",
            provider="offline",
            time=T0,
            messages=messages,
            blocks=BLOCKS,
            block_message_count=len(block_messages),
            tools=[read_tool()],
            max_tokens=4096,
            estimate=estimator.estimate("offline", messages, [read_tool()]),
            counter=SourceCounter(estimator),
        )
        assert sum(r.tokens for r in snapshot.sources) == snapshot.raw_prompt_tokens
        return {r.source: r.tokens for r in snapshot.sources}

    short = rows([Message("user", "hi")])
    long = rows([Message("user" if i % 2 else "assistant", f"m{i}") for i in range(4000)])
    assert long["preamble"] == short["preamble"]
    assert long["session_date"] == short["session_date"]
