"""A change on disk waiting for the next compaction: where it breaks the prefix, and the cost."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.blocks import ContextBlock, render_blocks
from steiner_tui.engine.prompt.pending_reload import pending_reload, reload_break_index
from steiner_tui.engine.prompt.static_cache import StaticPartition
from steiner_tui.engine.snapshots import build_request_snapshot


class _Estimate:
    tokens = raw_tokens = 1
    strategy = "heuristic"
    confidence = "low"


def _snapshot(blocks: Sequence[ContextBlock]) -> RequestSnapshot:
    rendered = render_blocks(blocks)
    conversation = (Message("user", "hi"), Message("assistant", "hello"))
    return build_request_snapshot(
        request_id="r",
        index=0,
        model="m",
        provider="p",
        time=datetime(2026, 1, 1, tzinfo=UTC),
        messages=(*rendered, *conversation),
        blocks=blocks,
        block_message_count=len(rendered),
        tools=(),
        max_tokens=1,
        estimate=_Estimate(),
    )


BLOCKS = (
    ContextBlock.of("preamble", "You are Steiner."),
    ContextBlock.of("project_agents_md", "Be brief."),
    ContextBlock.of("project_context", "notes", path="/p/notes.md"),
    ContextBlock.of("session_date", "Current date: today."),
)


def _count(messages: Sequence[Message]) -> int:
    return sum(len(m.content) for m in messages)


def test_agents_md_breaks_the_first_system_message() -> None:
    snapshot = _snapshot(BLOCKS)
    assert reload_break_index(snapshot, [StaticPartition.AGENTS]) == 0
    pending = pending_reload([StaticPartition.AGENTS], snapshot, _count)
    assert pending is not None
    assert pending.resent_tokens == _count(snapshot.messages)
    assert pending.notice == (
        "AGENTS.md changed on disk: applies at the next compaction, or reload now "
        f"(reloading now re-sends ~{pending.resent_tokens:,} cached tokens)"
    )


def test_project_context_breaks_from_its_user_block() -> None:
    snapshot = _snapshot(BLOCKS)
    assert reload_break_index(snapshot, [StaticPartition.PROJECT_CONTEXT]) == 1
    pending = pending_reload([StaticPartition.PROJECT_CONTEXT], snapshot, _count)
    assert pending is not None and pending.resent_tokens == _count(snapshot.messages[1:])


def test_a_partition_without_blocks_breaks_where_its_blocks_would_go() -> None:
    without_agents = tuple(b for b in BLOCKS if b.source != "project_agents_md")
    snapshot = _snapshot(without_agents)
    # A new AGENTS.md joins the system message (index 0); new project context the user block.
    assert reload_break_index(snapshot, [StaticPartition.AGENTS]) == 0
    only_preamble = _snapshot(BLOCKS[:1])
    assert reload_break_index(only_preamble, [StaticPartition.PROJECT_CONTEXT]) == 1


def test_nothing_pending_or_nothing_sent() -> None:
    assert pending_reload([], _snapshot(BLOCKS), _count) is None
    free = pending_reload([StaticPartition.PROJECT_CONTEXT, StaticPartition.AGENTS], None, _count)
    assert free is not None and free.break_index is None and free.resent_tokens == 0
    assert free.label == "AGENTS.md and project context"
