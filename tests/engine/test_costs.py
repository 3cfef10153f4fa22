"""What costs the most: the ranking of a request's contents (``engine.costs``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.costs import rank_request
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.skills.envelopes import render_skill_activation
from steiner_tui.engine.snapshots import build_request_snapshot
from steiner_tui.engine.tokens import TokenEstimate
from steiner_tui.engine.tooldefs import ToolDefinition


class Chars:
    """One token per four characters."""

    def message_tokens(self, message: Message) -> int:
        return len(message.content) // 4

    def text_tokens(self, text: str) -> int:
        return len(text) // 4


def _read(call_id: str, path: str, size: int, turn: int) -> list[Message]:
    call = ToolCall(call_id, "read", {"path": path})
    body = json.dumps({"path": path, "output": "x" * size})
    return [
        Message("assistant", "", tool_calls=(call,), turn=turn),
        Message("tool", body, name="read", tool_call_id=call_id, turn=turn),
    ]


def _snapshot(conversation: list[Message]):  # type: ignore[no-untyped-def]
    blocks = (
        ContextBlock.of("preamble", "p" * 400),
        ContextBlock.of("project_agents_md", "a" * 800, path="/p/AGENTS.md"),
        ContextBlock.of("project_context", "n" * 200, path="NOTES.md"),
    )
    block_messages = (Message("system", "p" * 400 + "\n\n" + "a" * 800), Message("user", "n" * 200))
    tools = (ToolDefinition("read", "r" * 100, {"type": "object"}),)
    return build_request_snapshot(
        request_id="r1",
        index=1,
        model="m",
        provider="fake",
        time=datetime(2026, 1, 1, tzinfo=UTC),
        messages=(*block_messages, *conversation),
        blocks=blocks,
        block_message_count=2,
        tools=tools,
        max_tokens=100,
        estimate=TokenEstimate(10, 10, "heuristic", "low"),
    )


def test_rows_rank_reads_by_path_commands_skills_files_and_tools() -> None:
    envelope, _ = render_skill_activation("tdd", "t" * 600)
    bash = ToolCall("b1", "bash", {"command": "pytest -q"})
    conversation = [
        Message("user", f"{envelope}\n\nplease read", turn=1),
        *_read("c1", "src/big.py", 8000, 1),
        *_read("c2", "src/big.py", 8000, 1),
        Message("assistant", "", tool_calls=(bash,), turn=1),
        Message("tool", "y" * 3000, name="bash", tool_call_id="b1", turn=1),
        Message("assistant", "done " * 10, turn=1),
    ]
    rows = rank_request(_snapshot(conversation), Chars())
    top = rows[0]
    assert (top.kind, top.label, top.count, top.action) == ("file", "src/big.py", 2, "drop_reads")
    assert top.call_ids == ("c1", "c2")
    by_kind = {(r.kind, r.label): r for r in rows}
    assert by_kind[("command", "bash command=pytest -q")].action == "mask"
    assert by_kind[("skill", "tdd")].tokens > 150
    assert by_kind[("agents_md", "/p/AGENTS.md")].tokens == 200
    assert by_kind[("context_file", "NOTES.md")].tokens == 50
    assert ("tool_definition", "read") in by_kind and ("preamble", "preamble") in by_kind
    assert by_kind[("messages", "messages")].count == 1
    assert [r.tokens for r in rows] == sorted((r.tokens for r in rows), reverse=True)


def test_pinned_messages_are_marked_and_never_actionable() -> None:
    conversation = [Message("user", "keep the API stable", turn=1), *_read("c1", "a.py", 5000, 1)]
    pins = [pin_key(conversation[0]), pin_key(conversation[2])]
    rows = rank_request(_snapshot(conversation), Chars(), pins)
    file_row = next(r for r in rows if r.kind == "file")
    assert file_row.pinned and file_row.action == "" and file_row.call_ids == ()
    pinned = next(r for r in rows if r.kind == "pinned")
    assert pinned.label == 'user (turn 1): "keep the API stable"'
