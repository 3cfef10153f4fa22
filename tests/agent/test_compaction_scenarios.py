"""Whole sessions driven through the runner with a scripted provider, crossing the window."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import CompactionApplied, HealthEvent, ListSink
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE
from steiner_tui.engine.provider import ChatRequest, ModelInfo
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from tests.agent.fakes import Reply, ScriptedProvider

SUMMARY = "\n\n".join(
    f"## {i}. {title}\n- summary item {i}"
    for i, title in enumerate(
        [
            "Task and Goal",
            "Current Repository / Project State",
            "Work Completed",
            "Key Findings and Decisions",
            "Problems Encountered",
            "Remaining Work",
            "Verification and Acceptance",
            "User Preferences and Interaction Context",
        ],
        start=1,
    )
)


def _answer(request: ChatRequest) -> Reply:
    if request.compaction:
        return Reply([SUMMARY])
    return Reply([f"answer {len(request.messages)}"], prompt_tokens=0)


def _driver(
    project: Path, clock: ManualClock, window: int, pending: list[tuple[str, str, str]]
) -> tuple[InteractiveDriver, ScriptedProvider, ListSink]:
    provider = ScriptedProvider([], info=ModelInfo(window, 400), on_request=_answer)
    main = MainModel("fake", "fake-model", provider, provider.info, prompt_cache_key="k")
    sink = ListSink()
    request = SessionRequest(
        project,
        model=main,
        session_id="scenario",
        record=False,
        delegation=None,
        tools=(),
        compaction=CompactionSettings(pending_sub_agents=lambda: tuple(pending)),
        sink=sink,
        clock=clock,
    )
    return build_session(request).driver, provider, sink


async def test_session_crossing_the_threshold_several_times(
    project: Path, clock: ManualClock
) -> None:
    pending: list[tuple[str, str, str]] = []
    driver, provider, sink = _driver(project, clock, 4000, pending)
    driver.toggle_skill("code-review")
    for turn in range(24):
        if turn == 12:
            pending.append(("explore-1", "explore", "running"))
        result = await driver.submit(f"request {turn}: " + "lorem ipsum dolor " * 60)
        assert result.status == "done", result.error

    lineage = driver.lineage
    applied = sink.of(CompactionApplied)
    assert len(applied) >= 2
    assert len(lineage.generations) == len(applied) + 1
    # Every generation is kept; ids count up; the latest is active.
    assert [g.id for g in lineage.generations] == list(range(len(lineage.generations)))
    for generation in lineage.generations[1:]:
        assert generation.outcome is not None and generation.outcome.applied
        assert generation.messages[0].role == "summary"
        assert generation.outcome.before_tokens > generation.outcome.after_tokens

    active = lineage.active.messages
    # The skill survives exactly once: one leading activation envelope in the whole generation.
    envelopes = [
        block for m in active if m.role == "user" for block in split_skill_blocks(m.content)[1]
    ]
    assert [(b.name, b.state) for b in envelopes] == [("code-review", "active")]
    # The pending sub-agents line appears once pending work exists at compaction time.
    last_with_pending = [
        g
        for g in lineage.generations[1:]
        if any(m.source == SUB_AGENT_RESULT_SOURCE for m in g.messages)
    ]
    assert last_with_pending, "no generation carried the pending sub-agents line"
    line = next(m for m in last_with_pending[-1].messages if m.source == SUB_AGENT_RESULT_SOURCE)
    assert line.content == (
        "<steiner-sub-agents-pending>explore-1 (explore, running)</steiner-sub-agents-pending>"
    )
    # The retained tail is the last turns of the previous generation, verbatim (envelopes aside).
    assert any(m.role == "user" and m.content.startswith("request ") for m in active)
    assert sink.of(HealthEvent)
    # Summary requests were marked and never set LastMainRequest.
    assert any(r.compaction for r in provider.requests)
