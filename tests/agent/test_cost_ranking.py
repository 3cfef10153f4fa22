"""The cost ranking of the next request, and masking from it, through the real runner."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.masking import MASK_MODE
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.events import CompactionApplied
from steiner_tui.engine.messages import ToolCall
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import build_session


async def test_dropping_a_files_reads_masks_them_in_a_new_generation(
    project: Path, clock: ManualClock
) -> None:
    (project / "big.md").write_text("line of text\n" * 600, encoding="utf-8")
    read = ToolCall("c1", "read", {"path": "big.md"})
    again = ToolCall("c2", "read", {"path": "big.md"})
    replies = [
        Reply(tool_calls=[read]),
        Reply(tool_calls=[again]),
        Reply(["read it twice"]),
    ]
    session = build_session(project, clock, window=32_000, replies=replies, tools=True, answer=None)
    await session.say("read big.md")
    runner = session.runner
    rows = runner.cost_ranking()
    top = rows[0]
    assert (top.kind, top.label, top.count, top.action) == ("file", "big.md", 2, "drop_reads")
    assert top.call_ids == ("c1",)  # the second read is a dedup note: nothing to mask
    outcome = runner.mask_results(top.call_ids, reason=f"drop reads: {top.label}")
    assert outcome is not None and outcome.modes == (MASK_MODE,)
    assert outcome.steering == "drop reads: big.md" and len(outcome.edits) == 1
    generations = runner.lineage.generations
    assert len(generations) == 2 and generations[1].outcome == outcome
    original = [m for m in generations[0].messages if m.role == "tool"]
    assert all(not m.content.startswith(MASK_PREFIX) for m in original)  # never rewritten
    masked = [m for m in generations[1].messages if m.role == "tool"]
    assert masked[0].content.startswith(MASK_PREFIX) and masked[1] == original[1]
    assert session.sink.of(CompactionApplied)
    after = next(r for r in runner.cost_ranking() if r.kind == "file")
    assert after.action == "" and after.tokens < top.tokens // 10
