"""Summary requests are assembled, snapshotted and projected like normal turns.

(docs/design.md, "8. Compaction: turns, stages and the summary")
"""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Image, Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    build_session,
    final_user_text,
    padded,
    summary_text,
)


async def test_summary_snapshots_carry_their_blocks(project: Path, clock: ManualClock) -> None:
    (project / "AGENTS.md").write_text("Be brief.\n", encoding="utf-8")
    session = build_session(project, clock, window=8000)
    for turn in range(4):
        await session.say(padded(f"turn {turn}", 10))
    assert await session.driver.compact() is not None
    snapshots: list[RequestSnapshot] = session.sink.of(RequestSnapshot)  # type: ignore[assignment]
    normal = [s for s in snapshots if not s.compaction][-1]
    summaries = [s for s in snapshots if s.compaction]
    assert summaries
    for summary, sent in zip(summaries, session.summary_requests(), strict=True):
        assert summary.blocks == normal.blocks
        assert summary.blocks_bytes == normal.blocks_bytes > 0
        assert summary.messages == sent.messages  # the snapshot is of the request sent
        assert summary.raw_prompt_tokens > 0


async def test_summary_keeps_images_for_a_model_with_vision(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, window=8000, vision=True)
    image = Image("image/png", "aGVsbG8=")
    await session.driver.submit("look at this")
    session.runner.append(Message("user", "and", images=(image,)))
    for turn in range(4):
        await session.say(padded(f"turn {turn}", 10))
    await session.driver.compact()
    summary = session.summary_requests()[-1]
    assert any(m.images == (image,) for m in summary.messages)


async def test_summary_strips_images_for_a_model_without_vision(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, window=8000)
    image = Image("image/png", "aGVsbG8=")
    await session.driver.submit("look at this")
    session.runner.append(Message("user", "and", images=(image,)))
    for turn in range(4):
        await session.say(padded(f"turn {turn}", 10))
    await session.driver.compact()
    summary = session.summary_requests()[-1]
    assert all(m.images == () for m in summary.messages)
    assert any("[image omitted: image/png" in m.content for m in summary.messages)


async def test_the_context_state_is_rebuilt_every_turn_and_carried_by_the_summary(
    project: Path, clock: ManualClock
) -> None:
    calls = iter(range(100))

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("s")])
        if request.messages[-1].role == "user":  # each new message: read a file first
            n = next(calls)
            return Reply([], [ToolCall(f"c{n}", "read", {"path": "README.md", "limit": 2.0})])
        return Reply(["done"])

    session = build_session(project, clock, window=8000, tools=True, answer=answer)
    for turn in range(3):
        await session.say(padded(f"turn {turn}", 10))
        assert session.runner.state.context.turn_count == turn + 1
    assert session.runner.state.context.recent_tool_calls == ("read path=README.md, limit=2",) * 3
    await session.driver.compact()
    instruction = final_user_text(session.summary_requests()[-1])
    assert instruction.endswith(
        "Turns so far: 3\nRecent tool calls (oldest first):\n"
        + "\n".join(["- read path=README.md, limit=2"] * 3)
    )
