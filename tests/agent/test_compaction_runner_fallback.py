"""Compaction fallback through the runner: used, skipped (not fit, error), cancelled, warm cache.

Each test is a whole session: turns at one instant until the next one crosses the soft trigger,
then the clock moves (or not) and the trigger turn compacts with a second scripted provider
configured as the fallback target.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from itertools import count
from pathlib import Path

import pytest

from steiner_tui.agent.cache_diagnostics import ColdStartMark
from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.events import (
    CacheDiagnostic,
    CompactionApplied,
    CompactionProgress,
    WarningEvent,
)
from steiner_tui.engine.provider import ChatRequest, ModelInfo, ProviderError
from tests.agent.fakes import Reply, ScriptedProvider
from tests.agent.test_compaction_runner_kit import (
    FALLBACK_REF,
    MAIN_REF,
    Session,
    build_session,
    fallback_settings,
    long_lineage,
    padded,
    summary_text,
    wait_until_blocked,
)


def _fallback(info: ModelInfo | None = None, **reply: object) -> ScriptedProvider:
    provider = ScriptedProvider([Reply(**reply)], alias="fb")  # type: ignore[arg-type]
    provider.info = info or ModelInfo(32768, 4096)
    return provider


async def _session_at_trigger(
    project: Path, clock: ManualClock, fallback: ScriptedProvider
) -> Session:
    session = build_session(project, clock, compaction=fallback_settings(fallback))
    assert await session.fill("warm-up") >= 4
    assert session.summary_requests() == []
    return session


def _stateful_answer(usage: list[int]) -> Callable[[ChatRequest], Reply]:
    """Main replies numbered from 1, each reporting the next scripted prompt usage."""
    calls = count(1)

    def answer(request: ChatRequest) -> Reply:
        assert not request.compaction, "the main model must not write this summary"
        n = next(calls)
        return Reply([f"ok {n}"], prompt_tokens=usage.pop(0), backend_state=f"resp-{n}")

    return answer


async def test_fallback_used_when_main_cache_went_cold(project: Path, clock: ManualClock) -> None:
    fallback = _fallback(chunks=[summary_text("fallback")])
    # A stateful main model decides from reported usage: 2900 of 4000 crosses the 70% trigger.
    usage = [1000, 1200, 1300, 2900, 1500]
    session = build_session(
        project,
        clock,
        stateful=True,
        answer=_stateful_answer(usage),
        compaction=fallback_settings(fallback),
        signal_retirement=True,
    )
    for turn in range(4):
        await session.say(f"step {turn}")
    assert session.lineage.active.backend_state == "resp-4"
    last_main = session.runner.last_main_request
    clock.advance(timedelta(minutes=12))

    await session.say("step 4")

    (outcome,) = session.outcomes()
    assert outcome.summary_model == FALLBACK_REF
    assert (outcome.fallback_status, outcome.fallback_reason) == ("used", "idle 12m > 10m")
    assert outcome.modes == ("normal",)
    assert outcome.backend_state_cleared is False
    # The conversation pane is told which stage and model write the summary, and its output.
    progress: list[CompactionProgress] = session.sink.of(CompactionProgress)  # type: ignore[assignment]
    started = CompactionProgress("normal", FALLBACK_REF, fallback=True, trigger="soft threshold")
    assert progress[0] == started
    streamed = len(summary_text("fallback")) // 4
    assert [p.tokens for p in progress[1:]] == ([streamed] if streamed >= 16 else [])
    # Backend isolation: no main backend state, its own transport identity, nothing retired.
    (request,) = fallback.requests
    assert request.compaction is True
    assert request.backend_state is None
    assert request.retire_backend_state is False
    assert request.transport_session not in ("", "s1")
    assert request.transport_session.startswith("s1-compaction-")
    # The main provider wrote no summary; main's old transcript is left alone.
    assert session.summary_requests() == []
    assert session.lineage.generations[0].backend_state == "resp-4"
    assert session.lineage.active.summary.startswith(summary_text("fallback"))
    # The next main call starts the new generation's transcript and sets LastMainRequest.
    assert session.main_requests()[-1].backend_state is None
    assert session.runner.last_main_request.at == clock.now() != last_main.at


async def test_fallback_skipped_when_the_plan_does_not_fit_it(
    project: Path, clock: ManualClock
) -> None:
    fallback = _fallback(ModelInfo(1500, 400), chunks=["never asked"])
    session = await _session_at_trigger(project, clock, fallback)
    clock.advance(timedelta(minutes=30))

    await session.say(padded("trigger"))

    (outcome,) = session.outcomes()
    assert (outcome.fallback_status, outcome.fallback_reason) == (
        "skipped",
        f"context too large for {FALLBACK_REF}",
    )
    assert outcome.summary_model == MAIN_REF
    assert fallback.requests == []
    assert len(session.summary_requests()) == 1


async def test_fallback_skipped_after_a_provider_error_reruns_on_main(
    project: Path, clock: ManualClock
) -> None:
    fallback = _fallback(error=ProviderError("server", "overloaded"))
    session = await _session_at_trigger(project, clock, fallback)
    clock.advance(timedelta(minutes=11))

    await session.say(padded("trigger"))

    (outcome,) = session.outcomes()
    assert (outcome.fallback_status, outcome.fallback_reason) == (
        "skipped",
        "fallback failed: overloaded",
    )
    assert outcome.summary_model == MAIN_REF
    assert len(fallback.requests) == 1
    # The rerun on main summarizes exactly what the fallback was asked to summarize.
    (main_summary,) = session.summary_requests()
    assert main_summary.messages == fallback.requests[0].messages
    assert session.lineage.active.summary == summary_text("summary")
    assert session.sink.of(WarningEvent) == []


async def test_cancelled_fallback_does_not_rerun_on_main(project: Path, clock: ManualClock) -> None:
    gate = asyncio.Event()
    fallback = _fallback(chunks=["## 1. Task"], block=gate)
    blocked = fallback.replies[0]
    session = await _session_at_trigger(project, clock, fallback)
    before = session.runner.conversation
    last_main = session.runner.last_main_request
    requests = len(session.provider.requests)
    clock.advance(timedelta(minutes=15))

    task = asyncio.create_task(session.driver.submit(padded("trigger")))
    await wait_until_blocked(blocked, task)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert len(session.provider.requests) == requests  # no rerun, no main call
    after = session.runner.conversation
    assert after[:-1] == before
    assert (after[-1].role, after[-1].content) == ("user", padded("trigger"))
    assert len(session.lineage.generations) == 1
    assert session.runner.last_main_request == last_main
    assert session.sink.of(CompactionApplied) == []
    assert session.sink.of(WarningEvent) == []
    assert session.driver.busy is False


async def test_warm_cache_stays_on_main(project: Path, clock: ManualClock) -> None:
    fallback = _fallback(chunks=["never asked"])
    session = await _session_at_trigger(project, clock, fallback)
    clock.advance(timedelta(minutes=9))

    await session.say(padded("trigger"))

    (outcome,) = session.outcomes()
    assert (outcome.summary_model, outcome.fallback_status, outcome.fallback_reason) == (
        MAIN_REF,
        "",
        "",
    )
    assert fallback.requests == []
    assert len(session.summary_requests()) == 1


async def test_same_model_target_is_not_selected(project: Path, clock: ManualClock) -> None:
    fallback = _fallback(chunks=["never asked"])
    settings = fallback_settings(fallback, alias="fake", model="fake-model")
    session = build_session(project, clock, compaction=settings)
    await session.fill("warm-up")
    clock.advance(timedelta(hours=2))

    await session.say(padded("trigger"))

    (outcome,) = session.outcomes()
    assert (outcome.summary_model, outcome.fallback_status) == (MAIN_REF, "")
    assert fallback.requests == []


async def test_resumed_lineage_without_a_recent_request_uses_the_fallback(
    project: Path, clock: ManualClock
) -> None:
    fallback = _fallback(chunks=[summary_text("fallback")])
    session = build_session(
        project, clock, compaction=fallback_settings(fallback), lineage=long_lineage(11)
    )
    assert session.runner.last_main_request.is_zero

    await session.say("continue where we left off")

    (outcome,) = session.outcomes()
    assert (outcome.summary_model, outcome.fallback_status, outcome.fallback_reason) == (
        FALLBACK_REF,
        "used",
        "no recent request",
    )
    assert session.summary_requests() == []
    assert len(session.main_requests()) == 1


@pytest.mark.parametrize(
    ("cache_key", "minutes_ago", "expected"),
    [
        ("key-1", 3, (MAIN_REF, "", "")),  # the seed matches: warm, main writes
        ("key-1", 25, (FALLBACK_REF, "used", "idle 25m > 10m")),
        ("other-key", 3, (FALLBACK_REF, "used", "no recent request")),  # seed dropped
    ],
)
async def test_seeded_last_main_request_decides_the_cache_state(
    project: Path,
    clock: ManualClock,
    cache_key: str,
    minutes_ago: int,
    expected: tuple[str, str, str],
) -> None:
    fallback = _fallback(chunks=[summary_text("fallback")])
    seed = LastMainRequest("fake", "fake-model", cache_key, clock.now())
    clock.advance(timedelta(minutes=minutes_ago))
    session = build_session(
        project,
        clock,
        compaction=fallback_settings(fallback),
        lineage=long_lineage(11),
        seed=seed,
    )

    await session.say("continue")

    (outcome,) = session.outcomes()
    assert (outcome.summary_model, outcome.fallback_status, outcome.fallback_reason) == expected


async def test_fallback_calls_leave_the_cold_start_mark_and_the_baseline_alone(
    project: Path, clock: ManualClock
) -> None:
    fallback = _fallback(chunks=[summary_text("fallback")])
    session = build_session(
        project, clock, compaction=fallback_settings(fallback), lineage=long_lineage(11)
    )
    session.runner.cache.mark = ColdStartMark()  # this test's own "process"

    await session.say("continue where we left off")  # the fallback summarizes first
    await session.say("and then?")

    diagnostics: list[CacheDiagnostic] = session.sink.of(CacheDiagnostic)  # type: ignore[assignment]
    assert [(d.fallback, d.compaction) for d in diagnostics] == [
        (True, True),
        (False, False),
        (False, False),
    ]
    summary, first, second = diagnostics
    assert not summary.cold_start and not summary.prefix_stable
    # The first main request after the fallback's call is still the cold start.
    assert first.cold_start and not first.prefix_stable
    assert not second.cold_start and second.prefix_stable
    assert second.prefix_hash == first.prefix_hash != ""


async def test_a_model_switch_drops_the_old_models_last_request(
    project: Path, clock: ManualClock
) -> None:
    # The last main request is re-checked on every run, not only when the runner is built:
    # after /model, the old model's request must not make the new model's cache look warm.
    fallback = _fallback(chunks=[summary_text("fallback")])
    session = await _session_at_trigger(project, clock, fallback)
    old = session.runner.model
    assert not session.runner.last_main_request.is_zero
    session.runner.switch_model(
        MainModel("other", "other-model", old.provider, old.info, prompt_cache_key="key-1")
    )
    clock.advance(timedelta(minutes=1))

    await session.say(padded("trigger"))

    (outcome,) = session.outcomes()
    assert (outcome.summary_model, outcome.fallback_status, outcome.fallback_reason) == (
        FALLBACK_REF,
        "used",
        "no recent request",
    )
    assert session.runner.last_main_request.provider_alias == "other"
