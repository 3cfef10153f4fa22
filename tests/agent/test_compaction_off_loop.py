"""A compaction's own work runs off the event loop: the screen stays live while it masks.

Resuming a 10,000-message session and sending froze the app for about 3 s: the compaction
that the send triggered split, masked (saving 2,500 whole outputs), built and estimated on
the loop. A ticker coroutine runs beside the send here, and the result store only saves once
the ticker has ticked: a save made on the loop waits for ticks that cannot come.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from steiner_tui.agent.runner import Runner
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.events import CompactionApplied
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.tools.results import DirectoryResultStore
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply

TICKS = 3
"""Ticks of the loop the store waits for before each save."""
GUARD = 10.0
"""Seconds a save waits at most (only a failing run waits that long)."""


class GatedStore(DirectoryResultStore):
    """Saves only once the loop has ticked ``TICKS`` times since the save began; says whether
    each save saw those ticks."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.ticks = 0
        self.ticked = threading.Condition()
        self.saves: list[bool] = []

    def tick(self) -> None:
        with self.ticked:
            self.ticks += 1
            self.ticked.notify_all()

    def save(self, key: str, text: str) -> str:
        with self.ticked:
            until = self.ticks + TICKS
            self.saves.append(self.ticked.wait_for(lambda: self.ticks >= until, GUARD))
        return super().save(key, text)


def _seed(runner: Runner) -> None:
    """Ten turns, each reading a 13 KB module: the next send compacts on an 8k window."""
    module = "".join(f"def helper_{n}(value):\n    return value * {n}\n" for n in range(300))
    for turn in range(1, 11):
        call = ToolCall(f"c{turn}", "read", {"path": f"mod{turn}.py"})
        runner.append(Message("user", f"read mod{turn}.py", turn=turn))
        runner.append(Message("assistant", "Reading.", tool_calls=(call,), turn=turn))
        runner.append(Message("tool", module, tool_call_id=call.id, name="read", turn=turn))
        runner.append(Message("assistant", f"mod{turn}.py holds helpers.", turn=turn))
    for _ in range(11):
        runner.next_turn()


async def test_a_compaction_masks_and_saves_while_the_loop_keeps_ticking(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    summary = "The person had the agent read ten modules one by one; nothing was changed yet."
    runner, _, sink = make_runner(
        [Reply([summary]), Reply(["Done."])], info=ModelInfo(8_192, 1_024)
    )
    store = GatedStore(tmp_path / "results")
    runner.compactor.results = store
    _seed(runner)

    async def tick() -> None:
        while True:
            await asyncio.sleep(0)
            store.tick()

    ticker = asyncio.create_task(tick())
    try:
        result = await runner.run(Message("user", "what next?"))
    finally:
        ticker.cancel()

    assert result.status == "done", result.error
    [applied] = [e for e in sink.events if isinstance(e, CompactionApplied)]
    masked = [m for m in runner.conversation if m.content.startswith(MASK_PREFIX)]
    assert masked and len(store.saves) == len(masked)
    assert all(store.saves)  # every save saw the loop tick: it ran in a worker thread
    assert applied.outcome.applied


class HeldStore(DirectoryResultStore):
    """Holds its first save until ``release`` is set (``holding`` says it is waiting)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.holding = threading.Event()
        self.release = threading.Event()

    def save(self, key: str, text: str) -> str:
        self.holding.set()
        self.release.wait(GUARD)
        return super().save(key, text)


async def test_a_send_cancelled_while_its_compaction_works_ends_with_nothing_applied(
    make_runner: RunnerFactory, tmp_path: Path
) -> None:
    summary = "The person had the agent read ten modules one by one; nothing was changed yet."
    runner, _, sink = make_runner(
        [Reply([summary]), Reply(["Done."])], info=ModelInfo(8_192, 1_024)
    )
    store = HeldStore(tmp_path / "results")
    runner.compactor.results = store
    _seed(runner)
    before = list(runner.conversation)

    task = asyncio.create_task(runner.run(Message("user", "what next?")))
    await asyncio.to_thread(store.holding.wait, GUARD)  # the compaction is masking
    task.cancel()  # Esc, while the worker thread still holds the save
    try:
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        store.release.set()
    assert not [e for e in sink.events if isinstance(e, CompactionApplied)]
    assert list(runner.conversation)[: len(before)] == before
