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
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session as build_offline_session
from steiner_tui.config import parse_config
from steiner_tui.engine.compaction.summary_request import compaction_instruction
from steiner_tui.engine.events import CompactionApplied, CompactionProgress, ListSink, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.state.context_state import CONTEXT_STATE_HEADER
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    build_session,
    default_answer,
    final_user_text,
    long_lineage,
    padded,
    summary_text,
    wait_until_blocked,
)

STEERING_SUFFIX = "\n\nAdditional user steering for this compaction:\n\n"


async def test_steering_and_tools_of_the_last_parent_request(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, window=16000, tools=True)
    for turn in range(5):
        await session.say(padded(f"request {turn}", 20))
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
        padded(f"request {turn}", 20) for turn in (2, 3, 4)
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
        await session.say(padded(f"request {turn}", 20))
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
        await session.say(padded(f"request {turn}", 20))
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
        await session.say(padded(f"request {turn}", 20))
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
    await session.say(padded("request 5", 20))
    later = await session.driver.compact()
    assert later is not None and later.applied
    assert len(session.lineage.generations) == 4


async def test_a_stage_says_it_runs_before_its_plan(project: Path, clock: ManualClock) -> None:
    """On a 10,000-message session the stage's plan took 2.8 s while the screen still said
    "generating": the progress came only with the summary call. It now comes as the stage
    starts, so a stage that finds nothing new to summarize (no call) says it ran too."""
    session = build_session(project, clock, window=16000, tools=True)
    for turn in range(5):
        await session.say(padded(f"request {turn}", 20))
    while (outcome := await session.driver.compact()) is not None and outcome.applied:
        pass
    calls, told = len(session.summary_requests()), len(session.sink.of(CompactionProgress))
    await session.driver.compact()  # nothing new: the plan ends the stage, no summary call
    assert len(session.summary_requests()) == calls
    assert len(session.sink.of(CompactionProgress)) > told


def test_a_summary_that_would_grow_the_conversation_is_not_applied(tmp_path: Path) -> None:
    """``/compact`` after one offline turn in a fresh session applied a generation larger than
    the one it replaced (2,923 -> 3,056 tokens, "ineffective: freed 0%"): the summary, its
    artifact ledger and its sections outweighed the three short messages they replaced. A
    summary that does not make the conversation smaller is rejected as one larger than its
    input is: a ``summary_rejected`` warning says why, no generation is recorded."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    sink = ListSink()
    session = build_offline_session(
        SessionRequest(tmp_path, parse_config([]), env={}, session_id="s1", record=False, sink=sink)
    )
    try:
        asyncio.run(session.runner.run(Message("user", "read calc.py and explain it")))
        conversation = session.runner.conversation
        outcome = asyncio.run(session.runner.compact(manual=True))
    finally:
        session.close()
    assert outcome is not None and not outcome.applied
    assert len(session.runner.lineage.generations) == 1
    assert session.runner.conversation == conversation
    assert not [e for e in sink.events if isinstance(e, CompactionApplied)]
    (rejected,) = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert rejected.code == "summary_rejected"
    assert "would not make the conversation smaller" in rejected.message, rejected.message
