"""Summary requests are assembled, snapshotted and projected like normal turns.

(docs/design.md, "8. Compaction: turns, stages and the summary")
"""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Image, Message
from tests.agent.test_compaction_runner_kit import build_session, padded


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
    for summary in summaries:
        assert summary.blocks == normal.blocks
        assert summary.blocks_bytes == normal.blocks_bytes > 0
        # The snapshot is of the request sent.
        sent = session.summary_requests()[-1]
        assert summary.messages == sent.messages
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
