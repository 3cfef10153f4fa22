"""Stages and escalation through the runner: emergency after normal, health per run.

Window 4000 tokens (soft trigger 2800, hard limit 3744). The escalation table: below 2 stages
info/stable (warning/fragile when fragile), at 2 warning/fragile (critical/likely_lossy when
fragile), from 3 critical/likely_lossy; fragile means the prompt after compaction exceeds the
hard limit by at least 20%. The stage count is per run (episode); a new episode starts at zero.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, count
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.events import ErrorEvent, WarningEvent
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest, ProviderError
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import (
    build_session,
    final_user_text,
    padded,
    summary_text,
)

EMERGENCY = "EMERGENCY COMPACTION"


def _by_mode(request: ChatRequest) -> Reply:
    if request.compaction:
        emergency = EMERGENCY in final_user_text(request)
        return Reply([summary_text("emergency" if emergency else "normal")])
    return Reply(["noted"])


async def test_normal_not_enough_so_emergency_runs_in_the_same_operation(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, answer=_by_mode)
    for turn in range(4):
        await session.say(f"small request {turn}")
    for turn in range(2):
        await session.say(padded(f"big request {turn}", 230))
    assert session.summary_requests() == []
    last = padded("big request 2", 230)
    assert session.would_compact(last)

    await session.say(last)

    # One operation, two stages, one new generation.
    (outcome,) = session.outcomes()
    assert (outcome.stage_count, outcome.modes) == (2, ("normal", "emergency"))
    assert outcome.before_tokens >= 2800 > outcome.after_tokens
    assert len(session.lineage.generations) == 2
    assert session.health() == [("warning", "fragile", 2)]
    normal, emergency = session.summary_requests()
    assert EMERGENCY not in final_user_text(normal)
    assert EMERGENCY in final_user_text(emergency)
    # The emergency stage summarizes the normal stage's result, its summary included.
    assert any(m.content == summary_text("normal") for m in emergency.messages)
    # Emergency retains one turn: the summary, then the last request and its answer.
    active = session.lineage.active
    assert active.summary == summary_text("emergency")
    assert [(m.role, m.content) for m in active.messages] == [
        ("summary", summary_text("emergency")),
        ("user", last),
        ("assistant", "noted"),
    ]
    assert active.outcome == outcome


async def test_a_huge_request_is_cut_to_fit_and_the_run_goes_on(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, answer=_by_mode)
    await session.say("small request")

    result = await session.driver.submit(padded("huge request", 1500))

    # The last resort: the oversized user message is cut with a visible marker, so the next
    # request fits and the episode is answered.
    assert result.status == "done"
    (outcome,) = session.outcomes()
    # The normal stage moves the small first turn into its summary; the emergency stage cuts.
    assert outcome.modes == ("normal", "emergency")
    cuts = [e for e in outcome.edits if e.kind == "cut"]
    assert [(e.where, e.role) for e in cuts] == [("retained", "user")]
    assert cuts[0].bytes_before == len(padded("huge request", 1500).encode())
    assert cuts[0].bytes_after < cuts[0].bytes_before
    kept = session.runner.conversation[1]
    assert kept.content.startswith("huge request: lorem")
    assert "[... cut by compaction: " in kept.content
    assert session.sink.of(ErrorEvent) == []
    assert session.runner.prepare().fit.fits


async def test_two_stages_and_a_cut_are_reported_as_fragile(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, answer=_by_mode)
    for turn in range(4):
        await session.say(f"small request {turn}")

    result = await session.driver.submit(padded("huge request", 1500))

    (outcome,) = session.outcomes()
    assert outcome.modes == ("normal", "emergency")
    assert session.health() == [("warning", "fragile", 2)]
    assert [e.kind for e in outcome.edits] == ["summarized", "summarized", "cut"]
    assert result.status == "done"


def _write_sources(project: Path, files: int) -> None:
    for i in range(files):
        body = "\n".join(f"def helper_{i}_{n}(x):\n    return x * {n}" for n in range(28))
        (project / f"big_{i}.py").write_text(body + "\n", encoding="utf-8")


def _reader(rounds_per_episode: int) -> Callable[[ChatRequest], Reply]:
    """Each episode reads ``rounds_per_episode`` new files, one per model step, then answers."""
    files = count()
    steps = count()

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("summary")])
        if next(steps) % (rounds_per_episode + 1) == rounds_per_episode:
            return Reply(["all read"])
        n = next(files)
        return Reply([], [ToolCall(f"call-{n}", "read", {"path": f"big_{n}.py"})])

    return answer


async def test_escalation_counts_stages_per_run(project: Path, clock: ManualClock) -> None:
    _write_sources(project, 30)
    session = build_session(project, clock, window=8000, tools=True, answer=_reader(15))

    await session.say("read the first batch of files")
    first = session.health()
    first_outcomes = session.outcomes()
    await session.say("now read the second batch")
    second = session.health()[len(first) :]
    second_outcomes = session.outcomes()[len(first_outcomes) :]

    # One episode, several compactions: the stage count escalates run-wide, and each one
    # after the first in the same turn says why.
    assert len(first) >= 3
    assert "again in turn" not in first_outcomes[0].trigger
    assert all(
        "; again in turn 1: this turn's tool results" in o.trigger for o in first_outcomes[1:]
    )
    again = [w for w in session.sink.of(WarningEvent) if w.code == "compaction_again"]
    assert len(again) >= len(first_outcomes) - 1
    assert [stages for _, _, stages in first] == list(
        accumulate(o.stage_count for o in first_outcomes)
    )
    # A compaction that cannot leave room (this turn's reads stay) escalates to emergency.
    assert first[0][:2] in (("info", "stable"), ("warning", "fragile"))
    assert all(
        (severity, state) == ("critical", "likely_lossy")
        for severity, state, stages in first
        if stages >= 3
    )
    # A new episode starts from zero.
    assert second[0][2] == second_outcomes[0].stage_count
    assert [stages for _, _, stages in second] == list(
        accumulate(o.stage_count for o in second_outcomes)
    )
    assert len(session.lineage.generations) == len(session.outcomes()) + 1
    # Every call id still has its result next to it in the active generation.
    active = session.lineage.active.messages
    calls = {c.id for m in active for c in m.tool_calls}
    results = {m.tool_call_id for m in active if m.role == "tool"}
    assert calls <= results


async def test_manual_compaction_starts_its_own_count(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock, answer=_by_mode)
    for turn in range(6):
        await session.say(padded(f"request {turn}", 10))  # more than the summary of them

    outcome = await session.driver.compact()

    assert outcome is not None and outcome.manual
    assert session.health() == [("info", "stable", 1)]
    assert session.lineage.active.messages[0] == Message("summary", summary_text("normal"))


async def test_a_resend_after_a_failed_run_is_not_compacting_again(
    project: Path, clock: ManualClock
) -> None:
    """A llama.cpp server stopped mid-compaction, started again, F5: the resend's compaction
    said "compacting again in turn N: this turn's tool results took the prompt to …" though
    the turn had no tools and the first run had ended in an error."""
    down = False

    def answer(request: ChatRequest) -> Reply:
        if down:
            return Reply(error=ProviderError("connection", "fake: could not connect"))
        return _by_mode(request)

    session = build_session(project, clock, answer=answer)
    for turn in range(4):
        await session.say(f"small request {turn}")
    for turn in range(2):
        await session.say(padded(f"big request {turn}", 230))
    last = padded("big request 2", 230)
    down = True
    assert (await session.driver.submit(last)).status == "error"
    down = False
    await session.say(last)
    assert [w for w in session.sink.of(WarningEvent) if w.code == "compaction_again"] == []
    assert "again in turn" not in session.outcomes()[-1].trigger
