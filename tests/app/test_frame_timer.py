"""The screens' refresh timer: a frame is due one period after the last frame, or at once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar

import pytest
from textual.screen import Screen

from steiner_tui.app.frame_timer import FrameTimer, PacedScreen, frame_due
from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.lineage import LineageScreen
from tests.app.conftest import SIZE, AppFactory

PERIOD = 1 / 60


@pytest.mark.parametrize(
    ("last", "now", "due"),
    [
        (None, 5.0, 5.0),  # no frame yet: at once
        (5.0, 5.0 + 0.25 * PERIOD, 5.0 + PERIOD),  # too soon: a period after the last frame
        (5.0, 5.0 + PERIOD, 5.0 + PERIOD),
        (5.0, 5.0 + 1.5 * PERIOD, 5.0 + 1.5 * PERIOD),  # later than a period: at once
    ],
)
def test_a_frame_is_due_a_period_after_the_last_one(
    last: float | None, now: float, due: float
) -> None:
    assert frame_due(last, PERIOD, now) == pytest.approx(due)


class FakeClockTimer(FrameTimer):
    """A frame timer on a clock that only moves when the timer sleeps or the test says."""

    now: ClassVar[float] = 100.0

    @staticmethod
    def clock() -> float:
        return FakeClockTimer.now

    @staticmethod
    async def sleep(seconds: float) -> None:
        FakeClockTimer.now += seconds
        await asyncio.sleep(0)


class DrivenTimer:
    """A ``FakeClockTimer`` whose ticks the test resumes at given times and watches.

    Each tick pauses the timer, as the screen's callback does, and counts as a frame while
    ``painting`` (a tick inside a batch update paints nothing).
    """

    def __init__(self, screen: Screen[object]) -> None:
        self.ticks: list[float] = []
        self.painting = True
        self.timer = FakeClockTimer(screen, PERIOD, callback=self._tick, pause=True)

    def _tick(self) -> None:
        self.timer.pause()
        self.ticks.append(FakeClockTimer.now)
        if self.painting:
            self.timer.frame_began()

    async def resume_at(self, when: float) -> float:
        """Resume the timer at ``when``; how long after that it ticked."""
        FakeClockTimer.now = when
        count = len(self.ticks)
        self.timer.resume()
        for _ in range(100):  # a bounded number of turns of the loop, not a wait on time
            if len(self.ticks) > count:
                return self.ticks[-1] - when
            await asyncio.sleep(0)
        raise AssertionError("the timer did not tick")


@asynccontextmanager
async def _driven_timer(app_for: AppFactory) -> AsyncIterator[DrivenTimer]:
    app = app_for()
    async with app.run_test(size=SIZE):
        driven = DrivenTimer(app.screen)
        driven.timer._start()
        try:
            yield driven
        finally:
            driven.timer.stop()


async def test_a_tick_that_paints_nothing_does_not_delay_the_next_frame(
    app_for: AppFactory,
) -> None:
    async with _driven_timer(app_for) as driven:
        resume_at, timer = driven.resume_at, driven.timer
        assert await resume_at(100.0) == 0.0  # the first frame: at once
        assert await resume_at(100.0 + 0.2 * PERIOD) == pytest.approx(0.8 * PERIOD)
        # A tick inside a batch update paints nothing ...
        driven.painting = False
        assert await resume_at(100.0 + 5 * PERIOD) == 0.0
        # ... so once the batch is over, the frame is not a period later but at once.
        driven.painting = True
        assert await resume_at(100.0 + 5.25 * PERIOD) == 0.0
        assert timer.last_frame == pytest.approx(100.0 + 5.25 * PERIOD)
        # Resumed more than a period after the last frame: at once, not at a later slot.
        assert await resume_at(100.0 + 6.9 * PERIOD) == 0.0


async def test_the_first_frame_after_a_key_begins_at_once(app_for: AppFactory) -> None:
    async with _driven_timer(app_for) as driven:
        resume_at, timer = driven.resume_at, driven.timer
        assert await resume_at(300.0) == 0.0
        timer.key_pressed()  # a key a fifth of a period after that frame
        assert await resume_at(300.0 + 0.2 * PERIOD) == 0.0
        assert not timer.key_waiting
        # The frames after it keep the period, counted from the key's frame.
        assert await resume_at(300.0 + 0.5 * PERIOD) == pytest.approx(0.7 * PERIOD)
        # A key whose first tick paints nothing (a batch update) still gets the next at once.
        timer.key_pressed()
        driven.painting = False
        assert await resume_at(300.0 + 1.5 * PERIOD) == 0.0
        assert timer.key_waiting
        driven.painting = True
        assert await resume_at(300.0 + 1.6 * PERIOD) == 0.0
        assert not timer.key_waiting
        # One early frame per period: keys faster than frames get at most two a period.
        timer.key_pressed()
        assert await resume_at(300.0 + 1.7 * PERIOD) == pytest.approx(0.9 * PERIOD)
        timer.key_pressed()  # a period after the last early frame: early again
        assert await resume_at(300.0 + 2.7 * PERIOD) == 0.0


async def test_a_key_press_reaches_the_screens_frame_timer(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        timer = app.screen._update_timer
        assert isinstance(timer, FrameTimer)
        with app.batch_update():  # no frame begins, so the key stays waiting
            assert not timer.key_waiting
            await pilot.press("x")
            assert timer.key_waiting
        await pilot.pause()
        assert not timer.key_waiting  # the frame after the batch took it


async def test_a_tick_that_neither_paints_nor_pauses_waits_a_period(app_for: AppFactory) -> None:
    """As when the app is closing: the timer must not spin (and so can be cancelled)."""
    ticks: list[float] = []
    app = app_for()
    async with app.run_test(size=SIZE):
        timer = FakeClockTimer(
            app.screen, PERIOD, callback=lambda: ticks.append(FakeClockTimer.now), pause=True
        )
        timer._start()
        FakeClockTimer.now = 200.0
        timer.resume()
        for _ in range(100):  # a bounded number of turns of the loop
            if len(ticks) >= 3:
                break
            await asyncio.sleep(0)
        timer.stop()
        assert ticks[:3] == pytest.approx([200.0, 200.0 + PERIOD, 200.0 + 2 * PERIOD])


async def test_only_a_tick_that_paints_counts_as_a_frame(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        timer = screen._update_timer
        assert isinstance(timer, FrameTimer)
        before = timer.last_frame
        with app.batch_update():
            screen._on_timer_update()
        assert timer.last_frame == before
        screen._on_timer_update()
        assert timer.last_frame is not None and (before is None or timer.last_frame > before)


async def test_the_screens_are_painted_by_a_frame_timer(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for open_screen, kind in [
            (None, PacedScreen),
            (app.action_lineage, LineageScreen),
            (app.action_inspector, InspectorScreen),
        ]:
            if open_screen is not None:
                open_screen()
                await pilot.pause()
            screen = app.screen
            assert isinstance(screen, kind) and isinstance(screen, PacedScreen)
            timer = screen._update_timer
            assert isinstance(timer, FrameTimer) and timer in screen._timers
