"""The screens' refresh timer: after a long frame, the next tick is at the next slot."""

from __future__ import annotations

import pytest

from steiner_tui.app.frame_timer import FrameTimer, PacedScreen, next_slot
from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.lineage import LineageScreen
from tests.app.conftest import SIZE, AppFactory

PERIOD = 1 / 60


@pytest.mark.parametrize(
    ("now", "slot"),
    [
        (0.2 * PERIOD, 1),  # on time: the next slot
        (1.0 * PERIOD, 2),  # exactly on a slot that has passed: the one after
        (2.5 * PERIOD, 3),  # a frame ran 1.5 periods past its slot: the next one, not 4
        (7.01 * PERIOD, 8),
    ],
)
def test_the_next_slot_is_the_first_after_now(now: float, slot: int) -> None:
    assert next_slot(10.0, PERIOD, 10.0 + now) == slot


def test_a_late_slot_is_never_more_than_one_period_away() -> None:
    for step in range(1, 400):
        now = 3.0 + step * 0.37 * PERIOD
        wait = 3.0 + next_slot(3.0, PERIOD, now) * PERIOD - now
        assert -1e-9 <= wait <= PERIOD + 1e-9  # never in the past, never a period late


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
