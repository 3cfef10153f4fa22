"""A run counts long new text in worker threads, never on the event loop it runs on.

Claude's tokenizer (ctok) is pure Python: counting a 25,000-token tool result on the app's
event loop froze the screen for about half a second. Text under ``INLINE_CHARS`` is counted
where it is (a few milliseconds at most). A fake Claude tokenizer, given to the
estimator through its encoding loader, records the thread of every count it makes. A run
cancelled while a count is in its thread still answers every tool call of the reply.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from steiner_tui.agent.count_ahead import INLINE_CHARS, claim_on_loop
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.tokens import EncodingLoader, RequestEstimator
from steiner_tui.engine.tool_results import CANCELLED_RESULT
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply

CLAUDE = "claude-sonnet-4-5"
"""Counted with ctok's ``ctok-v3`` family."""


class RecordingEncoder:
    """A token per four characters; each text counted is kept with the thread that counted it.
    A text containing ``hold`` is counted only once ``release`` is set (``holding`` says when
    it is waiting)."""

    def __init__(self, hold: str) -> None:
        self.counted: list[tuple[int, str]] = []
        self.hold = hold
        self.holding = threading.Event()
        self.release = threading.Event()

    def encode_ordinary(self, text: str) -> Sequence[int]:
        self.counted.append((threading.get_ident(), text))
        if self.hold and self.hold in text:
            self.holding.set()
            self.release.wait(timeout=30)
        return range(max(1, len(text) // 4))


class RecordingSource:
    """The ``ctok-v3`` encoding as the fake above."""

    name = "ctok-v3"

    def __init__(self, hold: str = "") -> None:
        self.encoder = RecordingEncoder(hold)

    def available(self) -> bool:
        return True

    def build(self) -> RecordingEncoder:
        return self.encoder


async def test_a_turn_counts_its_new_text_off_the_event_loop(
    make_runner: RunnerFactory, project: Path
) -> None:
    lines = "".join(f"line {n}: the parser keeps spans for every token\n" for n in range(2_000))
    (project / "big.txt").write_text(lines, encoding="utf-8")
    source = RecordingSource()
    estimator = RequestEstimator(EncodingLoader([source]))
    read = ToolCall("c1", "read", {"path": "big.txt"})
    runner, provider, sink = make_runner(
        [Reply(["Reading."], [read]), Reply(["Done."])],
        info=ModelInfo(1_000_000, 8_192),
        estimator=estimator,
        model=CLAUDE,
    )
    pasted = "a pasted log line that the person wants explained\n" * 400

    result = await runner.run(Message("user", pasted))
    sent = sink.of(RequestSnapshot)[-1]
    runner.cost_ranking(sent)  # the panel's ranking of the request, on the app's loop

    assert result.status == "done", result.error
    assert estimator.choice(CLAUDE).strategy == "ctok"
    [tool] = [m for m in runner.conversation if m.role == "tool"]
    assert len(tool.content) > 60_000
    texts = [text for _, text in source.encoder.counted]
    assert texts.count(tool.content) == texts.count(pasted) == 1
    loop = threading.get_ident()
    on_loop = [text for thread, text in source.encoder.counted if thread == loop]
    assert [text[:60] for text in on_loop if len(text) >= INLINE_CHARS] == []
    # The same figures as counting inline: a fresh estimator counts the request as sent.
    request = provider.requests[1]
    fresh = RequestEstimator(EncodingLoader([RecordingSource()]))
    assert request.raw_prompt_tokens == fresh.raw_tokens(CLAUDE, request.messages, request.tools)


async def test_the_tokenizer_is_built_off_the_loop_and_counts_first_on_it(
    make_runner: RunnerFactory,
) -> None:
    # tiktoken counts fastest on the thread that used it first: the loop, which counts
    # nearly everything, even though the first request's prefix is counted in a thread.
    loop = threading.get_ident()
    built: list[int] = []

    class BuiltWhere(RecordingSource):
        def build(self) -> RecordingEncoder:
            built.append(threading.get_ident())
            return super().build()

    source = BuiltWhere()
    estimator = RequestEstimator(EncodingLoader([source]))
    runner, _, _ = make_runner(
        [Reply(["One."]), Reply(["Two."])], estimator=estimator, model=CLAUDE
    )
    await runner.run(Message("user", "first"))
    await runner.run(Message("user", "second"))
    assert built and built[0] != loop
    threads = [thread for thread, _ in source.encoder.counted]
    assert threads[0] == loop and loop in threads[1:] and set(threads) != {loop}
    assert estimator.claimed(CLAUDE)
    claim = source.encoder.counted[0][1]
    assert [text for _, text in source.encoder.counted].count(claim) == 1


async def test_a_claim_builds_off_the_loop_counts_once_on_it_and_leaves_failures() -> None:
    # The app's context panel claims before its dry run's thread counts (budget_panel).
    loop = threading.get_ident()
    source = RecordingSource()
    estimator = RequestEstimator(EncodingLoader([source]))
    await claim_on_loop(estimator, CLAUDE)
    await claim_on_loop(estimator, CLAUDE)
    assert [thread for thread, _ in source.encoder.counted] == [loop]
    assert estimator.claimed(CLAUDE)

    class Broken(RecordingSource):
        def build(self) -> RecordingEncoder:
            raise OSError("no data file")

    broken = RequestEstimator(EncodingLoader([Broken()]))
    await claim_on_loop(broken, CLAUDE)  # reported by the count that needs it
    assert not broken.claimed(CLAUDE)


async def test_a_run_cancelled_while_the_reply_is_counted_still_answers_its_calls(
    make_runner: RunnerFactory,
) -> None:
    source = RecordingSource(hold="counted slowly")
    read = ToolCall("c1", "read", {"path": "README.md"})
    runner, _, _ = make_runner(
        [Reply(["counted slowly"], [read])],
        estimator=RequestEstimator(EncodingLoader([source])),
        model=CLAUDE,
    )
    task = asyncio.create_task(runner.run(Message("user", "read it")))
    await asyncio.to_thread(source.encoder.holding.wait, 30)  # the reply, counted in a thread
    task.cancel()
    source.encoder.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [m.role for m in runner.conversation] == ["user", "assistant", "tool"]
    assert runner.conversation[-1].content == CANCELLED_RESULT
