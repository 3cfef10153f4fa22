"""Manual ``/compact [steering]`` through the interactive driver.

Steering reaches the summary request's final user message with the exact wire suffix, tools come
from the last recorded parent request (none recorded: no tools), the prefix matches a normal turn,
and the driver refuses while a run generates or sub-agents are still running.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.interactive import DriverRefusal
from steiner_tui.engine.compaction.summary_request import compaction_instruction
from steiner_tui.engine.events import CompactionProgress
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.context_state import CONTEXT_STATE_HEADER
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    build_session,
    default_answer,
    final_user_text,
    long_lineage,
    summary_text,
    wait_until_blocked,
)

STEERING_SUFFIX = "\n\nAdditional user steering for this compaction:\n\n"


async def test_steering_and_tools_of_the_last_parent_request(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, window=16000, tools=True)
    for turn in range(5):
        await session.say(f"request {turn}")
    parent = session.main_requests()[-1]
    assert parent.tools

    outcome = await session.driver.compact("  focus on X  ")

    assert outcome is not None and outcome.applied and outcome.manual
    assert outcome.steering == "  focus on X  "
    (request,) = session.summary_requests()
    instruction = final_user_text(request)
    assert instruction.endswith(STEERING_SUFFIX + "focus on X")
    # The durable context state rides along, before the steering.
    carried = "\n\n" + CONTEXT_STATE_HEADER + "\nTurns so far: 5"
    assert instruction == (
        compaction_instruction("normal") + carried + STEERING_SUFFIX + "focus on X"
    )
    assert request.tools == parent.tools
    # The runner's assembly: the summary request opens with the same cached prefix.
    prefix = parent.cacheable_prefix_messages
    assert prefix > 0 and request.cacheable_prefix_messages == prefix
    assert request.messages[:prefix] == parent.messages[:prefix]
    # Normal stage: the older turns summarized, three turns retained after the summary.
    assert [m.content for m in session.lineage.active.messages[1::2]] == [
        "request 2",
        "request 3",
        "request 4",
    ]
    assert session.lineage.active.summary == summary_text("summary")


async def test_no_recorded_parent_request_means_no_tools(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock, window=16000, tools=True, lineage=long_lineage(6))
    assert session.runner.tool_definitions  # the runner has tools ...

    outcome = await session.driver.compact()

    assert outcome is not None and outcome.applied
    (request,) = session.summary_requests()
    assert request.tools == ()  # ... but no parent request was recorded yet
    assert STEERING_SUFFIX not in final_user_text(request)
    # A resumed lineage of six turns: its turn count rides along.
    carried = "\n\n" + CONTEXT_STATE_HEADER + "\nTurns so far: 6"
    assert final_user_text(request) == compaction_instruction("normal") + carried


async def test_refused_while_a_run_is_generating(project: Path, clock: ManualClock) -> None:
    gate = asyncio.Event()
    blocked = Reply(["thinking"], block=gate)
    replies = [Reply(["one"]), Reply(["two"]), Reply(["three"]), Reply(["four"]), blocked]

    def answer(request: ChatRequest) -> Reply | None:
        return default_answer(request) if request.compaction else None

    session = build_session(project, clock, answer=answer, replies=replies)
    for turn in range(4):
        await session.say(f"request {turn}")
    task = asyncio.create_task(session.driver.submit("request 4"))
    await wait_until_blocked(blocked, task)

    with pytest.raises(DriverRefusal, match="cannot compact now: a run is still generating"):
        await session.driver.compact("focus on X")

    assert session.summary_requests() == []
    gate.set()
    assert (await task).status == "done"
    assert await session.driver.compact("focus on X") is not None
    assert len(session.summary_requests()) == 1


async def test_refused_while_sub_agents_run(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock)
    for turn in range(4):
        await session.say(f"request {turn}")
    session.driver.pending_sub_agents = 2

    with pytest.raises(DriverRefusal, match="2 sub-agents are still running"):
        await session.driver.compact()

    assert session.summary_requests() == []
    assert len(session.lineage.generations) == 1


async def test_compacting_again_with_nothing_new_sends_no_summary_request(
    project: Path, clock: ManualClock
) -> None:
    """``/compact`` again and again: each time there was only the summary left to summarize,
    a summary request was sent for it (a model call, the cache broken) and a generation of
    the same size recorded ("3,522 -> 3,522 tok"). Now the second keeps one turn (the
    emergency stage, as for a short conversation), and one with nothing new to summarize
    applies nothing."""
    session = build_session(project, clock, window=16000, tools=True)
    for turn in range(5):
        await session.say(f"request {turn}")
    outcomes = []
    for _ in range(4):
        outcome = await session.driver.compact()
        if outcome is None or not outcome.applied:
            break
        outcomes.append(outcome)
    assert [o.modes for o in outcomes] == [("normal",), ("emergency",)]  # 3 turns kept, then 1
    assert outcomes[1].after_tokens < outcomes[1].before_tokens  # not a same-size copy
    assert len(session.summary_requests()) == 2
    assert len(session.lineage.generations) == 3
    # A turn later there is something to summarize again.
    await session.say("request 5")
    later = await session.driver.compact()
    assert later is not None and later.applied
    assert len(session.lineage.generations) == 4


async def test_a_stage_says_it_runs_before_its_plan(project: Path, clock: ManualClock) -> None:
    """On a 10,000-message session the stage's plan took 2.8 s while the screen still said
    "generating": the progress came only with the summary call. It now comes as the stage
    starts, so a stage that finds nothing new to summarize (no call) says it ran too."""
    session = build_session(project, clock, window=16000, tools=True)
    for turn in range(5):
        await session.say(f"request {turn}")
    while (outcome := await session.driver.compact()) is not None and outcome.applied:
        pass
    calls, told = len(session.summary_requests()), len(session.sink.of(CompactionProgress))
    await session.driver.compact()  # nothing new: the plan ends the stage, no summary call
    assert len(session.summary_requests()) == calls
    assert len(session.sink.of(CompactionProgress)) > told
