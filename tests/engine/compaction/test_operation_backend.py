"""Backend state retirement on stateful providers: recorded independently of applied."""

from __future__ import annotations

import asyncio

import pytest

from steiner_tui.engine.compaction.failures import (
    CompactionCancelled,
    CompactionFailed,
    lineage_after_failure,
)
from steiner_tui.engine.compaction.host import SummaryResponse
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import compact_with_lineage
from steiner_tui.engine.provider import ProviderError
from tests.engine.compaction.fakes import (
    FakeHost,
    conversation,
    heavy_tail_conversation,
    main_target,
    make_env,
    said,
)


def stateful_lineage() -> ConversationLineage:
    first = ConversationLineage.start(conversation(2), backend_state="resp_0")
    return first.advance(conversation(6), "S0", None, None).with_backend_state("resp_1")


async def test_main_summary_carries_and_retires_backend_state() -> None:
    host = FakeHost([SummaryResponse(said("S"), clear_backend_state=True)])
    env = make_env(host, main=main_target(stateful=True), main_session="sess-1")
    result = await compact_with_lineage(stateful_lineage(), env)
    request, _ = host.calls[0]
    assert request.backend_state == "resp_1"
    assert request.retire_backend_state is True
    assert request.transport_session == "main-session"  # the host's main identity is kept
    assert result.backend_state_retired and result.outcome.backend_state_cleared
    assert [g.backend_state for g in result.lineage.generations] == ["resp_0", None, None]


async def test_clear_recorded_when_nothing_applies() -> None:
    host = FakeHost([SummaryResponse("", clear_backend_state=True), SummaryResponse("")])
    env = make_env(host, main=main_target(stateful=True))
    original = stateful_lineage()
    result = await compact_with_lineage(original, env)
    assert not result.outcome.applied
    assert result.backend_state_retired and result.outcome.backend_state_cleared
    assert [g.id for g in result.lineage.generations] == [0, 1]
    assert [g.backend_state for g in result.lineage.generations] == ["resp_0", None]
    assert result.lineage.active.messages == original.active.messages


async def test_failed_summary_marked_retired_by_host_clears_only_latest_state() -> None:
    error = ProviderError("connection", "stream lost", backend_state_retired=True)
    host = FakeHost([error])
    original = stateful_lineage()
    with pytest.raises(CompactionFailed) as raised:
        await compact_with_lineage(original, make_env(host, main=main_target(stateful=True)))
    assert raised.value.error is error and raised.value.__cause__ is error
    assert raised.value.backend_state_retired and not raised.value.cancelled
    kept = lineage_after_failure(original, raised.value)
    assert [g.backend_state for g in kept.generations] == ["resp_0", None]
    assert [g.id for g in kept.generations] == [0, 1]


async def test_failure_without_retirement_keeps_the_lineage() -> None:
    host = FakeHost([ProviderError("connection", "stream lost")])
    original = stateful_lineage()
    with pytest.raises(CompactionFailed) as raised:
        await compact_with_lineage(original, make_env(host, main=main_target()))
    assert not raised.value.backend_state_retired
    assert lineage_after_failure(original, raised.value) is original


async def test_a_retiring_request_counts_once_handed_over_even_if_its_error_is_unmarked() -> None:
    # The request itself is the signal: the call may fail before its end event says so.
    host = FakeHost([ProviderError("connection", "stream lost")])
    original = stateful_lineage()
    with pytest.raises(CompactionFailed) as raised:
        await compact_with_lineage(original, make_env(host, main=main_target(stateful=True)))
    assert raised.value.backend_state_retired
    assert lineage_after_failure(original, raised.value).active.backend_state is None


async def test_a_cancelled_retiring_stage_is_marked_retired() -> None:
    host = FakeHost([asyncio.CancelledError()])
    original = stateful_lineage()
    with pytest.raises(CompactionCancelled) as raised:
        await compact_with_lineage(original, make_env(host, main=main_target(stateful=True)))
    assert raised.value.backend_state_retired
    assert lineage_after_failure(original, raised.value).active.backend_state is None


async def test_emergency_stage_never_sends_the_id_the_normal_stage_retired() -> None:
    # Normal applies but leaves too much, so emergency follows in the same operation.
    host = FakeHost(
        [SummaryResponse(said("S1"), clear_backend_state=True), SummaryResponse(said("S2"))]
    )
    original = ConversationLineage.start(heavy_tail_conversation(), backend_state="resp_1")
    result = await compact_with_lineage(original, make_env(host, main=main_target(stateful=True)))
    assert result.outcome.modes == ("normal", "emergency")
    normal, emergency = (request for request, _ in host.calls)
    assert normal.backend_state == "resp_1"
    assert emergency.backend_state is None
    assert result.lineage.active.backend_state is None


async def test_error_after_a_clear_reports_retirement_with_text_and_chain_kept() -> None:
    cause = OSError("socket closed")
    error = ProviderError("connection", "stream lost")
    error.__cause__ = cause
    host = FakeHost([SummaryResponse(said("S"), clear_backend_state=True), error])
    original = ConversationLineage.start(heavy_tail_conversation(), backend_state="resp_1")
    with pytest.raises(CompactionFailed) as raised:
        await compact_with_lineage(original, make_env(host, main=main_target(stateful=True)))
    assert raised.value.error is error and raised.value.__cause__ is error
    assert str(raised.value) == "stream lost" and error.__cause__ is cause
    assert not error.backend_state_retired  # the provider's error is left as it was raised
    assert raised.value.backend_state_retired
    assert lineage_after_failure(original, raised.value).active.backend_state is None


async def test_non_stateful_main_never_retires() -> None:
    host = FakeHost([SummaryResponse(said("S"))])
    result = await compact_with_lineage(
        ConversationLineage.start(conversation(6), backend_state="ignored"), make_env(host)
    )
    request, _ = host.calls[0]
    assert request.retire_backend_state is False
    assert not result.backend_state_retired
