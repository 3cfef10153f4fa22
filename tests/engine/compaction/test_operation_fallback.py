"""The operation with a compaction fallback: used, skipped (rerun on main), cancelled, isolated."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import msgspec
import pytest

from steiner_tui.engine.compaction.failures import CompactionCancelled, CompactionFailed
from steiner_tui.engine.compaction.fallback import CompactionFallback, LastMainRequest
from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import CompactionEnv, compact_with_lineage
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest, ProviderError
from tests.engine.compaction.fakes import (
    T0,
    Clock,
    FakeHost,
    FakeProvider,
    budget,
    conversation,
    heavy_tail_conversation,
    main_target,
    make_env,
    said,
    text,
)

TEN = timedelta(minutes=10)
MAIN = "anthropic/main-model"
FB = "offline/summarizer"


def fallback_target(
    window: int = 100_000, alias: str = "offline", model: str = "summarizer"
) -> SummaryTarget:
    return SummaryTarget(alias, model, budget(window), FakeProvider())


class Resolver:
    def __init__(self, result: SummaryTarget | Exception) -> None:
        self.result = result
        self.calls = 0
        self.scopes: list[str] = []

    def __call__(self, cache_scope: str = "") -> SummaryTarget:
        self.calls += 1
        self.scopes.append(cache_scope)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def env_with(host: FakeHost, resolver: Resolver, *, stateful: bool = False) -> CompactionEnv:
    return make_env(
        host,
        main=main_target(stateful=stateful),
        fallback=CompactionFallback(FB, TEN, resolver),
        main_session="sess-1",
    )


def lineage(state: str | None = None) -> ConversationLineage:
    return ConversationLineage.start(conversation(6), backend_state=state)


async def test_fallback_used_on_a_cold_cache() -> None:
    host = FakeHost([SummaryResponse("From fallback.", clear_backend_state=True)])
    env = env_with(host, Resolver(fallback_target()), stateful=True)
    result = await compact_with_lineage(lineage("resp_main"), env)
    outcome = result.outcome
    assert outcome.applied
    assert (outcome.summary_model, outcome.fallback_status, outcome.fallback_reason) == (
        FB,
        "used",
        "no recent request",
    )
    assert host.targets == [FB]
    request, target = host.calls[0]
    assert target.fallback
    assert request.backend_state is None
    assert request.retire_backend_state is False
    assert request.transport_session not in ("", "sess-1", "main-session")
    # The fallback's retirement signal is discarded: main's transcript was never touched.
    assert result.backend_state_retired is False and outcome.backend_state_cleared is False
    assert result.lineage.generations[0].backend_state == "resp_main"


async def test_idle_reason_with_recorded_main_request() -> None:
    host = FakeHost([SummaryResponse(said("S"))])
    env = env_with(host, Resolver(fallback_target()))
    last = LastMainRequest("anthropic", "main-model", "", T0 - timedelta(minutes=10, seconds=30))
    result = await compact_with_lineage(lineage(), env, last_main_request=last)
    assert result.outcome.fallback_reason == "idle 11m > 10m"
    last = LastMainRequest("anthropic", "main-model", "", T0 - timedelta(minutes=10, seconds=20))
    host.script.append(SummaryResponse(said("S")))
    result = await compact_with_lineage(lineage(), env, last_main_request=last)
    assert result.outcome.fallback_reason == "idle 10m20s > 10m0s"


async def test_warm_cache_stays_on_main() -> None:
    host = FakeHost([SummaryResponse(said("S"))])
    resolver = Resolver(fallback_target())
    last = LastMainRequest("anthropic", "main-model", "", T0 - timedelta(minutes=3))
    result = await compact_with_lineage(lineage(), env_with(host, resolver), last_main_request=last)
    assert host.targets == [MAIN]
    assert resolver.calls == 0
    assert result.outcome.fallback_status == "" and result.outcome.summary_model == MAIN


async def test_same_model_target_is_not_selected() -> None:
    host = FakeHost([SummaryResponse(said("S"))])
    resolver = Resolver(fallback_target(alias="anthropic", model="main-model"))
    result = await compact_with_lineage(lineage(), env_with(host, resolver))
    assert resolver.calls == 1
    assert [t.fallback for _, t in host.calls] == [False]
    assert result.outcome.fallback_status == ""


async def test_skipped_when_the_plan_does_not_fit_the_fallback() -> None:
    host = FakeHost([SummaryResponse("From main.")])
    result = await compact_with_lineage(lineage(), env_with(host, Resolver(fallback_target(4_000))))
    outcome = result.outcome
    assert host.targets == [MAIN]
    assert (outcome.fallback_status, outcome.fallback_reason) == (
        "skipped",
        "context too large for offline/summarizer",
    )
    assert outcome.summary_model == MAIN
    assert result.lineage.active.summary == "From main."


async def test_a_plan_too_large_for_the_fallback_is_never_cut_to_fit_it() -> None:
    # The summarized part (a 7k-token turn) does not fit a 10k fallback's plan; cutting it would
    # (48,000 -> 3,104 tokens once): the design fails the attempt and reruns on main instead.
    messages = [Message("user", text(3500, "u1")), Message("assistant", text(3500, "a1"))]
    messages += conversation(3)
    host = FakeHost([SummaryResponse(said("From main."))])
    env = env_with(host, Resolver(fallback_target(10_000)))
    result = await compact_with_lineage(ConversationLineage.start(messages), env)
    outcome = result.outcome
    assert host.targets == [MAIN]
    assert (outcome.fallback_status, outcome.fallback_reason) == (
        "skipped",
        "context too large for offline/summarizer",
    )
    assert outcome.edits == ()
    assert host.builds[-1][0][:2] == tuple(messages[:2])


async def test_skipped_after_a_provider_error_reruns_whole_operation_on_main() -> None:
    host = FakeHost([ProviderError("server", "upstream 502"), SummaryResponse("From main.")])
    original = lineage()
    result = await compact_with_lineage(original, env_with(host, Resolver(fallback_target())))
    assert host.targets == [FB, MAIN]
    assert result.outcome.fallback_status == "skipped"
    assert result.outcome.fallback_reason == "fallback failed: upstream 502"
    assert [g.id for g in result.lineage.generations] == [0, 1]
    assert result.lineage.generations[0] == original.active


async def test_skipped_for_resolve_error_missing_provider_and_empty_summary() -> None:
    host = FakeHost([SummaryResponse(said("S"))])
    result = await compact_with_lineage(lineage(), env_with(host, Resolver(KeyError("o"))))
    assert result.outcome.fallback_reason == "fallback failed: 'o'"
    assert host.targets == [MAIN]
    bare = SummaryTarget("offline", "summarizer", budget(100_000))
    host = FakeHost([SummaryResponse(said("S"))])
    result = await compact_with_lineage(lineage(), env_with(host, Resolver(bare)))
    assert result.outcome.fallback_reason == (
        "fallback failed: compaction fallback offline/summarizer has no provider"
    )
    host = FakeHost([SummaryResponse(" "), SummaryResponse(said("S"))])
    result = await compact_with_lineage(lineage(), env_with(host, Resolver(fallback_target())))
    assert host.targets == [FB, MAIN]
    assert result.outcome.fallback_reason == (
        "fallback failed: empty compaction summary from offline/summarizer"
    )


async def test_main_rerun_error_is_returned() -> None:
    host = FakeHost([ProviderError("server", "fb down"), ProviderError("auth", "main down")])
    with pytest.raises(CompactionFailed, match="main down") as raised:
        await compact_with_lineage(lineage(), env_with(host, Resolver(fallback_target())))
    assert isinstance(raised.value.error, ProviderError) and raised.value.error.kind == "auth"


async def test_task_cancellation_is_not_rerun() -> None:
    error = asyncio.CancelledError("stop")
    host = FakeHost([error])
    with pytest.raises(CompactionCancelled) as raised:
        await compact_with_lineage(lineage(), env_with(host, Resolver(fallback_target())))
    assert isinstance(raised.value, asyncio.CancelledError)
    assert raised.value.__cause__ is error and raised.value.args == ("stop",)
    assert not raised.value.backend_state_retired
    assert host.targets == [FB]


async def test_provider_cancellation_is_not_rerun() -> None:
    error = ProviderError("cancelled", "stopped")
    host = FakeHost([error])
    with pytest.raises(CompactionFailed) as raised:
        await compact_with_lineage(lineage(), env_with(host, Resolver(fallback_target())))
    assert raised.value.cancelled and raised.value.error is error
    assert host.targets == [FB]


@pytest.mark.parametrize(
    "error",
    [asyncio.CancelledError(), ProviderError("cancelled", "stopped", backend_state_retired=True)],
    ids=["task", "provider"],
)
async def test_cancelled_fallback_never_reports_main_retired(error: BaseException) -> None:
    first = SummaryResponse(said("S"), clear_backend_state=True)  # the fallback's normal stage
    host = FakeHost([first, error])
    env = env_with(host, Resolver(fallback_target()), stateful=True)
    big = ConversationLineage.start(heavy_tail_conversation(), backend_state="r")
    with pytest.raises((CompactionCancelled, CompactionFailed)) as raised:
        await compact_with_lineage(big, env)
    failure = raised.value
    assert isinstance(failure, CompactionCancelled | CompactionFailed)
    assert not failure.backend_state_retired
    assert host.targets == [FB, FB]


async def test_fallback_applying_nothing_returns_without_fields_or_rerun() -> None:
    host = FakeHost()
    one_turn = ConversationLineage.start(conversation(1))
    result = await compact_with_lineage(one_turn, env_with(host, Resolver(fallback_target())))
    assert not result.outcome.applied
    assert result.outcome.fallback_status == "" and result.outcome.summary_model == ""
    assert host.calls == []
    assert result.lineage == one_turn


async def test_both_stages_share_the_fallback_target() -> None:
    big = heavy_tail_conversation()
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    clock = Clock()
    env = make_env(
        host, clock=clock, fallback=CompactionFallback(FB, TEN, Resolver(fallback_target()))
    )
    result = await compact_with_lineage(ConversationLineage.start(big), env)
    assert host.targets == [FB, FB]
    assert result.outcome.stage_count == 2
    assert result.outcome.fallback_status == "used"


async def test_pending_cancellation_request_blocks_the_rerun() -> None:
    def reset_as_the_time_limit_ran_out(
        request: ChatRequest, target: SummaryTarget
    ) -> SummaryResponse:
        task = asyncio.current_task()
        assert task is not None
        # The turn's time limit ran out during the call: a cancellation is pending. (One
        # pending before the compaction ends it at its first step, run in a worker thread.)
        task.cancel()
        raise ProviderError("connection", "reset by peer")

    host = FakeHost([reset_as_the_time_limit_ran_out])
    env = env_with(host, Resolver(fallback_target()))

    async def cancelled_while_compacting() -> object:
        return await compact_with_lineage(lineage(), env)

    with pytest.raises(CompactionFailed, match="reset by peer") as raised:
        await asyncio.ensure_future(cancelled_while_compacting())
    assert raised.value.cancelled
    assert host.targets == [FB]


async def test_the_target_is_resolved_for_the_compacting_runs_cache_scope() -> None:
    host = FakeHost([SummaryResponse("fallback summary")])
    resolver = Resolver(fallback_target())
    env = msgspec.structs.replace(env_with(host, resolver), cache_scope="steiner-s1-explore-1")
    await compact_with_lineage(lineage(), env)
    assert resolver.scopes == ["steiner-s1-explore-1"]
