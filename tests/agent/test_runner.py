"""The agent loop: streaming, tools, cancellation, errors, LastMainRequest and calibration."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import msgspec
import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.engine.compaction.history_render import render_history
from steiner_tui.engine.events import (
    ErrorEvent,
    RequestSnapshot,
    RequestStopped,
    TextDelta,
    ToolCallFinished,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.messages import INTERRUPTION_NOTE, Image, Message, ToolCall
from steiner_tui.engine.prices import FREE, PRICE_TABLE, ModelPrice
from steiner_tui.engine.provider import ModelInfo, ProviderError
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.engine.state.file_tracker import FileTracker
from steiner_tui.engine.tokens import EncodingLoader, RequestEstimator
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply

GPT_4O = PRICE_TABLE["gpt-4o"]


async def test_plain_reply_streams_and_is_stored(make_runner: RunnerFactory) -> None:
    runner, provider, sink = make_runner([Reply(["Hel", "lo"], prompt_tokens=500)])
    result = await runner.run(Message("user", "hi"))
    assert result.status == "done"
    assert result.reply == "Hello"
    assert [e.text for e in sink.of(TextDelta)] == ["Hel", "lo"]  # type: ignore[attr-defined]
    assert [m.role for m in runner.conversation] == ["user", "assistant"]
    assert runner.conversation[-1].content == "Hello"
    assert len(provider.requests) == 1
    # The request carries the static prefix, then the conversation.
    request = provider.requests[0]
    assert request.messages[-1] == Message("user", "hi", turn=1)
    assert request.cacheable_prefix_messages >= 1


async def test_tool_loop_feeds_results_back(make_runner: RunnerFactory) -> None:
    call = ToolCall("c1", "read", {"path": "README.md"})
    runner, provider, sink = make_runner([Reply(["Reading."], [call]), Reply(["It is a demo."])])
    result = await runner.run(Message("user", "what is this?"))
    assert result.reply == "It is a demo."
    roles = [m.role for m in runner.conversation]
    assert roles == ["user", "assistant", "tool", "assistant"]
    tool_message = runner.conversation[2]
    assert tool_message.tool_call_id == "c1"
    assert '"totalLines":3' in tool_message.content
    finished = sink.of(ToolCallFinished)
    assert [e.status for e in finished] == ["done"]  # type: ignore[attr-defined]
    # The second request includes the tool result.
    assert provider.requests[1].messages[-1].tool_call_id == "c1"


async def test_repeated_read_is_deduplicated(make_runner: RunnerFactory) -> None:
    call1 = ToolCall("c1", "read", {"path": "README.md"})
    call2 = ToolCall("c2", "read", {"path": "README.md"})
    runner, _, _ = make_runner(
        [Reply([], [call1]), Reply(["ok"]), Reply([], [call2]), Reply(["again"])]
    )
    await runner.run(Message("user", "read it"))
    await runner.run(Message("user", "read it again"))
    second = next(m for m in runner.conversation if m.tool_call_id == "c2")
    assert "[file unchanged since turn 1: lines 1-3 of 3 in README.md]" in second.content


async def test_an_adopted_conversations_reads_are_tracked_at_the_first_tool_call(
    make_runner: RunnerFactory,
) -> None:
    first, _, _ = make_runner(
        [Reply([], [ToolCall("c1", "read", {"path": "README.md"})]), Reply(["ok"])]
    )
    await first.run(Message("user", "read it"))
    call = ToolCall("c2", "read", {"path": "README.md"})
    runner, _, _ = make_runner([Reply([], [call]), Reply(["again"])])
    runner.replace_conversation(first.lineage)
    assert not isinstance(runner.state.tracked, FileTracker)  # no request needs it before
    runner.preview()
    assert not isinstance(runner.state.tracked, FileTracker)
    await runner.run(Message("user", "read it again"))
    second = next(m for m in runner.conversation if m.tool_call_id == "c2")
    assert "[file unchanged since turn 1: lines 1-3 of 3 in README.md]" in second.content
    assert (runner.state.tracker.reads[0].path, runner.state.tracker.reads[0].turn) == (
        "README.md",
        1,
    )


async def test_cancellation_keeps_partial_reply_as_incomplete(
    make_runner: RunnerFactory,
) -> None:
    gate = asyncio.Event()
    blocked = Reply(["partial ", "answer"], block=gate)
    runner, provider, _ = make_runner([blocked, Reply(["fine"])])
    task = asyncio.create_task(runner.run(Message("user", "long task")))
    await blocked.reached.wait()  # every chunk was streamed; the call is still open
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    stored = runner.conversation[-1]
    assert stored.role == "assistant"
    assert stored.incomplete is True
    assert stored.content == "partial answer"  # exactly what streamed, no note
    assert runner.last_main_request.is_zero  # a cancelled call sets nothing

    await runner.run(Message("user", "continue"))
    projected = [m for m in provider.requests[1].messages if m.role == "assistant"]
    assert projected[-1].content == "partial answer" + INTERRUPTION_NOTE
    assert runner.conversation[1].content == "partial answer"


@pytest.mark.parametrize(("price", "cost"), [(FREE, 0.0), (None, None), (GPT_4O, None)])
async def test_a_request_stopped_before_its_usage_costs_nothing_only_on_a_free_model(
    make_runner: RunnerFactory, price: ModelPrice | None, cost: float | None
) -> None:
    """A cancelled request on a local server showed its cost as unknown: nothing it read can
    be billed there, so it is $0. A priced model may bill the prompt it read: unknown."""
    gate = asyncio.Event()
    blocked = Reply(["partial"], block=gate)
    error = ProviderError("connection", "fake: connection dropped")
    runner, _, sink = make_runner([blocked, Reply(["half"], error=error)])
    runner.model = msgspec.structs.replace(runner.model, price=price, priced=True)
    task = asyncio.create_task(runner.run(Message("user", "long task")))
    await blocked.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await runner.run(Message("user", "again"))
    stopped = sink.of(RequestStopped)
    assert [(e.error, e.cost_usd) for e in stopped] == [  # type: ignore[attr-defined]
        ("", cost),
        ("fake/fake-model: fake: connection dropped", cost),
    ]
    store = SnapshotStore()
    for event in sink.events:
        store.emit(event)
    assert [(r.cancelled, r.cost_usd) for r in store.summaries()] == [(True, cost), (False, cost)]


async def test_provider_error_mid_stream_ends_with_error_and_keeps_text(
    make_runner: RunnerFactory,
) -> None:
    error = ProviderError("connection", "fake: connection dropped")
    runner, _, sink = make_runner([Reply(["half"], error=error)])
    result = await runner.run(Message("user", "go"))
    assert result.status == "error"
    assert result.error_kind == "connection"
    assert [e.code for e in sink.of(ErrorEvent)] == ["connection"]  # type: ignore[attr-defined]
    assert runner.conversation[-1] == Message("assistant", "half", turn=1, incomplete=True)
    assert runner.last_main_request.is_zero


async def test_last_main_request_set_after_success_with_clock_time(
    make_runner: RunnerFactory, clock: ManualClock
) -> None:
    runner, _, _ = make_runner([Reply(["a"]), Reply(["b"])])
    await runner.run(Message("user", "1"))
    first = runner.last_main_request
    assert (first.provider_alias, first.backend_model, first.prompt_cache_key) == (
        "fake",
        "fake-model",
        "key-1",
    )
    assert first.at == clock.now()
    clock.advance(timedelta(minutes=5))
    await runner.run(Message("user", "2"))
    assert runner.last_main_request.at == clock.now()


async def test_usage_calibrates_and_raw_estimate_is_reused(make_runner: RunnerFactory) -> None:
    runner, provider, sink = make_runner([Reply(["a"], prompt_tokens=10_000), Reply(["b"])])
    await runner.run(Message("user", "1"))
    snapshot = next(e for e in sink.events if isinstance(e, RequestSnapshot))
    assert provider.requests[0].raw_prompt_tokens == snapshot.raw_prompt_tokens
    usage = sink.of(UsageReported)[0]
    assert usage.estimated_prompt_tokens == snapshot.estimated_prompt_tokens  # type: ignore[attr-defined]
    calibration = runner.context.estimator.calibration
    assert calibration.samples("fake-model") == 1
    await runner.run(Message("user", "2"))
    second = [e for e in sink.events if isinstance(e, RequestSnapshot)][1]
    assert second.estimate_strategy == "provider_usage"
    assert second.estimated_prompt_tokens > second.raw_prompt_tokens


@pytest.mark.parametrize("reported", [10**30, -5])
async def test_an_absurd_usage_report_is_ignored_with_a_warning(
    make_runner: RunnerFactory, reported: int
) -> None:
    """Issue 29: one report of 10^30 input tokens made every later message "too big for the
    window" until restart. It is neither calibrated on nor reported as the request's usage."""
    runner, _, sink = make_runner(
        [Reply(["a"], prompt_tokens=reported), Reply(["b"]), Reply(["c"])]
    )
    await runner.run(Message("user", "1"))
    [warning] = [e for e in sink.of(WarningEvent) if e.code == "usage_ignored"]  # type: ignore[attr-defined]
    assert "reported usage ignored" in warning.message  # type: ignore[attr-defined]
    assert sink.of(UsageReported) == []
    assert runner.context.estimator.calibration.samples("fake-model") == 0
    for text in ("2", "3"):
        result = await runner.run(Message("user", text))
        assert result.status == "done", result.error
    snapshots = [e for e in sink.events if isinstance(e, RequestSnapshot)]
    assert snapshots[-1].estimated_prompt_tokens < 32768


async def test_images_stripped_for_models_without_vision(make_runner: RunnerFactory) -> None:
    runner, provider, _ = make_runner([Reply(["no eyes"])], info=ModelInfo(32768, 4096))
    image = Image("image/png", "aGVsbG8=")
    await runner.run(Message("user", "look", images=(image,)))
    sent = provider.requests[0].messages[-1]
    assert sent.images == ()
    assert "[image omitted: image/png" in sent.content
    assert runner.conversation[0].images == (image,)  # the stored message keeps it


async def test_image_rejection_retries_once_without_images(make_runner: RunnerFactory) -> None:
    rejected = ProviderError("image_rejected", "fake: image not supported")
    runner, provider, _ = make_runner(
        [Reply(error=rejected), Reply(["described"])],
        info=ModelInfo(32768, 4096, vision=True),
    )
    result = await runner.run(Message("user", "look", images=(Image("image/png", "eA=="),)))
    assert result.reply == "described"
    assert provider.requests[0].messages[-1].images != ()
    retry = provider.requests[1]
    assert retry.messages[-1].images == ()
    assert retry.raw_prompt_tokens != provider.requests[0].raw_prompt_tokens


async def test_each_request_sent_has_its_own_snapshot(make_runner: RunnerFactory) -> None:
    # The image-free retry is a new request: its snapshot shows its own hashes and estimate.
    rejected = ProviderError("image_rejected", "fake: image not supported")
    runner, provider, sink = make_runner(
        [Reply(error=rejected), Reply(["described"])],
        info=ModelInfo(32768, 4096, vision=True),
    )
    await runner.run(Message("user", "look", images=(Image("image/png", "eA=="),)))
    snapshots: list[RequestSnapshot] = sink.of(RequestSnapshot)  # type: ignore[assignment]
    assert [s.index for s in snapshots] == [1, 2]
    for snapshot, request in zip(snapshots, provider.requests, strict=True):
        assert snapshot.messages == request.messages
        assert snapshot.raw_prompt_tokens == request.raw_prompt_tokens
    assert snapshots[0].message_hashes[-1] != snapshots[1].message_hashes[-1]


async def test_request_too_large_for_window_is_a_clear_error(make_runner: RunnerFactory) -> None:
    runner, provider, _ = make_runner([], info=ModelInfo(context_window=600, max_output=100))
    result = await runner.run(Message("user", "x " * 2000))
    assert result.status == "error"
    assert "exceeds context window" in result.error
    assert provider.requests == []


async def test_tool_status_book_marks_failed_calls_for_the_archive(
    make_runner: RunnerFactory,
) -> None:

    call = ToolCall("c1", "read", {"path": "missing.py"})
    runner, _, sink = make_runner([Reply([], [call]), Reply(["not there"])])
    book = ToolStatusBook()
    await runner.run(Message("user", "read missing.py"))
    for event in sink.events:
        book.emit(event)
    result = runner.conversation[2]
    assert result.content.startswith("cannot read missing.py")
    assert book(result) == "failed"
    assert "✗" in render_history(runner.conversation, tool_status=book)


async def test_a_missing_tokenizer_ends_the_run_with_an_error(make_runner: RunnerFactory) -> None:
    class Missing:
        name = "cl100k_base"

        def available(self) -> bool:
            return False

        def build(self) -> object:
            raise AssertionError("never built")

    estimator = RequestEstimator(EncodingLoader([Missing()]))  # type: ignore[list-item]
    runner, provider, sink = make_runner([Reply(["never"])], estimator=estimator)
    for _ in range(2):  # reported on every turn, never replaced by another tokenizer
        result = await runner.run(Message("user", "hi"))
        assert (result.status, result.error_kind) == ("error", "tokenizer")
        assert "'cl100k_base' is not installed" in result.error
    assert provider.requests == []
    assert [e.code for e in sink.of(ErrorEvent)] == ["tokenizer", "tokenizer"]  # type: ignore[attr-defined]


async def test_the_ledger_path_prepares_exactly_the_whole_request(
    make_runner: RunnerFactory,
) -> None:
    call = ToolCall("c1", "read", {"path": "README.md"})
    runner, _, _ = make_runner([Reply(["Reading."], [call]), Reply(["done"]), Reply(["ok"])])
    await runner.run(Message("user", "what is this?"))
    await runner.run(Message("user", "and again", images=(Image("image/png", "eA=="),)))
    fast = runner.prepare()
    whole = runner.prepare(runner.conversation)
    assert fast.request.messages == whole.request.messages
    assert fast.estimate == whole.estimate
    assert fast.hashes == tuple(m.digest() for m in whole.request.messages)
    assert fast.prompt_bytes == sum(m.prompt_bytes for m in whole.request.messages)
