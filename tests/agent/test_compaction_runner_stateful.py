"""Stateful transcript providers through the runner: usage trigger, floor, cap, retirement.

Window 10000: the selected threshold is 7000 (70%), the cap 9000 (90%), the floor step 1000.
The scripted stateful provider reports prompt usage per main reply and returns backend state
``resp-<n>``; it signals retirement (``clear_backend_state``) on main summaries.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from itertools import count
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.stateful import STATEFUL_CAP_STOP_ERROR
from steiner_tui.engine.events import ErrorEvent, HealthEvent, WarningEvent
from steiner_tui.engine.provider import ChatRequest, ProviderError
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    Session,
    build_session,
    final_user_text,
    padded,
    summary_text,
    wait_until_blocked,
)

WINDOW = 10_000
EMERGENCY = "EMERGENCY COMPACTION"


def _stateful(
    usage: list[int], summaries: Callable[[ChatRequest], Reply] | None = None
) -> Callable[[ChatRequest], Reply]:
    calls = count(1)

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return summaries(request) if summaries else Reply([summary_text("stateful")])
        n = next(calls)
        return Reply([f"ok {n}"], prompt_tokens=usage.pop(0), backend_state=f"resp-{n}")

    return answer


def _session(
    project: Path,
    clock: ManualClock,
    usage: list[int],
    summaries: Callable[[ChatRequest], Reply] | None = None,
) -> Session:
    return build_session(
        project,
        clock,
        window=WINDOW,
        stateful=True,
        signal_retirement=True,
        answer=_stateful(usage, summaries),
    )


async def test_floor_shifts_the_trigger_and_the_cap_stops_the_run(
    project: Path, clock: ManualClock
) -> None:
    usage = [1000, 2000, 3000, 7200, 7500, 8400, 8600, 9100]
    session = _session(project, clock, usage)
    for turn in range(4):
        await session.say(f"step {turn}")
    assert session.summary_requests() == []
    assert session.lineage.active.backend_state == "resp-4"

    # Reported usage 7200 >= 7000: the next decision compacts on main, retiring resp-4.
    await session.say("step 4")
    (summary,) = session.summary_requests()
    assert (summary.backend_state, summary.retire_backend_state) == ("resp-4", True)
    assert summary.transport_session == "s1"
    (outcome,) = session.outcomes()
    assert outcome.backend_state_cleared is True
    assert session.lineage.generations[0].backend_state is None
    assert session.main_requests()[-1].backend_state is None
    # The first response after it (7500: above 7000, below 9000) arms the floor.
    assert session.runner.state.parent_usage is not None
    assert session.runner.state.parent_usage.floor == 7500
    assert session.runner.state.parent_usage.soft_trigger == 8500

    # 7500 and 8400 are above 70% but below floor + 10%: no compaction.
    await session.say("step 5")
    await session.say("step 6")
    assert len(session.summary_requests()) == 1
    assert session.main_requests()[-1].backend_state == "resp-6"

    # 8600 reaches 8500: compaction; its first response (9100) reaches the cap.
    await session.say("step 7")
    assert len(session.summary_requests()) == 2
    assert session.runner.state.parent_usage.cap_reached is True
    requests = len(session.provider.requests)
    session.new_events()

    result = await session.driver.submit("step 8")

    assert result.status == "error"
    assert result.error.startswith(STATEFUL_CAP_STOP_ERROR)
    assert result.error.endswith("/compact or /clear clears the cap")
    assert len(session.provider.requests) == requests  # neither compactor nor model called
    events = session.new_events()
    health = [e for e in events if isinstance(e, HealthEvent)]
    assert [(e.severity, e.state) for e in health] == [("critical", "likely_lossy")]
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.message for e in errors] == [result.error]
    assert session.runner.conversation[-1].content == "step 8"


async def test_response_below_the_threshold_does_not_arm_the_floor(
    project: Path, clock: ManualClock
) -> None:
    usage = [1000, 2000, 3000, 7200, 5000, 7100, 2000]
    session = _session(project, clock, usage)
    for turn in range(5):
        await session.say(f"step {turn}")
    assert len(session.summary_requests()) == 1
    assert session.runner.state.parent_usage is not None
    assert session.runner.state.parent_usage.floor == 0

    await session.say("step 5")  # 5000 reported: continue
    assert len(session.summary_requests()) == 1
    await session.say("step 6")  # 7100 >= 7000 with no floor: compact
    assert len(session.summary_requests()) == 2


async def test_retirement_is_kept_when_the_summary_applies_nothing(
    project: Path, clock: ManualClock
) -> None:
    usage = [1000, 2000, 3000, 7200, 3000]
    session = _session(project, clock, usage, summaries=lambda request: Reply(["  \n"]))
    for turn in range(4):
        await session.say(f"step {turn}")

    await session.say("step 4")

    # Normal and emergency both returned an empty summary: nothing applied, but resp-4 is gone.
    assert len(session.summary_requests()) == 2
    assert session.outcomes() == []
    assert len(session.lineage.generations) == 1
    assert session.main_requests()[-1].backend_state is None
    assert session.lineage.active.backend_state == "resp-5"


async def test_retirement_survives_a_failed_summary(project: Path, clock: ManualClock) -> None:
    usage = [1000, 2000, 3000, 7200, 3000]
    failure = ProviderError("server", "stream reset", backend_state_retired=True)
    session = _session(project, clock, usage, summaries=lambda request: Reply(error=failure))
    for turn in range(4):
        await session.say(f"step {turn}")

    await session.say("step 4")

    warnings = [e.message for e in session.sink.of(WarningEvent)]  # type: ignore[attr-defined]
    assert warnings == ["compaction failed: stream reset"]
    assert len(session.lineage.generations) == 1
    assert session.main_requests()[-1].backend_state is None


async def test_compaction_calls_leave_last_main_request_alone(
    project: Path, clock: ManualClock
) -> None:
    usage = [1000, 2000, 3000, 4000]
    session = _session(project, clock, usage)
    for turn in range(4):
        await session.say(padded(f"step {turn}", 20))  # more than the summary of them
    before = session.runner.last_main_request
    assert before.at == clock.now()
    clock.advance(timedelta(minutes=3))

    outcome = await session.driver.compact()

    assert outcome is not None and outcome.applied
    assert session.runner.last_main_request == before
    # A manual main summary on a stateful provider retires the transcript too.
    assert session.summary_requests()[0].backend_state == "resp-4"
    assert session.lineage.generations[0].backend_state is None


async def test_retirement_survives_a_cancelled_emergency_stage(
    project: Path, clock: ManualClock
) -> None:
    gate = asyncio.Event()
    blocked = Reply(["## 1. Task"], block=gate)

    def summaries(request: ChatRequest) -> Reply:
        return blocked if EMERGENCY in final_user_text(request) else Reply([summary_text("n")])

    # Usage close to the estimates keeps the calibrated estimate near the raw one.
    usage = [900, 950, 1000, 1050, 1700, 2900, 1000]
    session = build_session(
        project,
        clock,
        stateful=True,
        signal_retirement=True,
        answer=_stateful(usage, summaries),
    )
    for turn in range(4):
        await session.say(f"step {turn}")
    for turn in range(2):
        await session.say(padded(f"big step {turn}", 190))
    before = session.runner.conversation
    assert session.lineage.active.backend_state == "resp-6"

    task = asyncio.create_task(session.driver.submit(padded("big step 2", 190)))
    await wait_until_blocked(blocked, task)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # The normal stage's main summary retired resp-6; the cancelled emergency stage applied
    # nothing, so the conversation is unchanged but the retired transcript is not continued.
    assert len(session.summary_requests()) == 2
    assert session.outcomes() == []
    assert session.runner.conversation[:-1] == before
    assert len(session.lineage.generations) == 1
    assert session.lineage.active.backend_state is None
    await session.say("go on")
    assert session.main_requests()[-1].backend_state is None
