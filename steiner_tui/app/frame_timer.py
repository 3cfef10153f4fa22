"""A screen whose refresh timer waits at most one frame period after a frame that ran long.

Textual paints a screen from a timer that ticks on a fixed grid of frame periods (1/60 s) and
pauses while nothing needs painting. When a frame takes longer than its period, the timer skips
the slots it missed, but Textual 8.2.8 counts one slot too many: the next tick comes one to two
periods after the long frame instead of at the next slot. A key pressed just after a long frame
(mounting a batch of conversation entries, say) therefore waits up to 33 ms before its frame even
starts. ``PacedScreen`` replaces the screen's timer with a ``FrameTimer``, the same loop with the
skip counted to the next slot, so that wait is never more than one period.
"""

from __future__ import annotations

import math

from textual import _time
from textual.screen import UPDATE_PERIOD, Screen, ScreenResultType
from textual.timer import EventTargetGone, Timer

__all__ = ["FrameTimer", "PacedScreen", "next_slot"]


def next_slot(start: float, interval: float, now: float) -> int:
    """The index of the first slot of the grid ``start + n * interval`` after ``now``.

    A slot that falls on ``now`` within rounding may be returned: it is due at once.
    """
    return max(1, math.floor((now - start) / interval) + 1)


class FrameTimer(Timer):
    """A repeating timer that, after a late tick, ticks again at the next slot of its grid."""

    async def _run(self) -> None:
        # Textual's ``Timer._run`` with the skip worked out by ``next_slot``; a paused timer
        # still ticks as soon as it is resumed, as Textual's does.
        count = 0
        self._active  # noqa: B018 (creates the event in this task's loop, as Textual does)
        await self._active.wait()
        start = _time.get_time()
        while self._repeat is None or count <= self._repeat:
            slot = count + 1
            now = _time.get_time()
            if self._skip and start + slot * self._interval < now:
                slot = next_slot(start, self._interval, now)
            await _time.sleep(max(0.0, start + slot * self._interval - _time.get_time()))
            count = slot
            await self._active.wait()
            if self._reset:
                start = _time.get_time()
                count = 0
                self._reset = False
                continue
            try:
                await self._tick(next_timer=start + slot * self._interval, count=count)
            except EventTargetGone:
                break


class PacedScreen(Screen[ScreenResultType]):
    """A screen painted by a ``FrameTimer``."""

    _frame_timer: FrameTimer | None = None

    @property
    def _update_timer(self) -> Timer:
        """The timer that paints the screen (created paused, on first use, as Textual's)."""
        if self._frame_timer is None:
            timer = FrameTimer(
                self, UPDATE_PERIOD, name="screen_update", callback=self._on_timer_update,
                pause=True,
            )  # fmt: skip
            timer._start()
            self._timers.add(timer)
            self._frame_timer = timer
        return self._frame_timer
