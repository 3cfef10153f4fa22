"""A screen whose refresh timer paints a frame as soon as one period has passed since the last.

Textual paints a screen from a timer that ticks on a fixed grid of frame periods (1/60 s) and
pauses while nothing needs painting. A grid costs a key press time twice over:

- A tick that falls inside a batch update (a key mounting a batch of conversation entries, say)
  paints nothing, yet the next tick still waits for the next slot: up to a whole period after
  the batch ends, with nothing painted in between.
- After a frame that overruns its slot, Textual 8.2.8 skips one slot too many, so the next tick
  comes one to two periods later instead of at the next slot.

``FrameTimer`` keeps the rate (at most one frame per period) without the grid: a tick is due one
period after the last frame began, or at once if that has passed. A tick that paints nothing
does not count as a frame. ``PacedScreen`` installs it and tells it which ticks paint.

A key press is the exception: the first frame after it may begin at once, even within a period
of the last frame. The rate is there to merge updates that come faster than a terminal can show
(a streaming reply, a burst of layout changes); a key is the one update a person waits for, and
a person's keys come far slower. Without it, a key pressed just after a frame (one of a
streaming reply's, or the frame a layout needed after the previous key) waited out the rest of
the period. Only one frame per period begins early, so keys that come faster than frames (a
paste the terminal does not bracket) get at most two frames a period. A tick already waiting is
not woken: the key's frame is at most a period away.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import _time
from textual.screen import UPDATE_PERIOD, Screen, ScreenResultType
from textual.timer import EventTargetGone, Timer

__all__ = ["FrameTimer", "PacedScreen", "frame_due"]


def frame_due(last_frame: float | None, interval: float, now: float) -> float:
    """When the next frame may begin: ``interval`` after the last one began, never before now."""
    if last_frame is None:
        return now
    return max(now, last_frame + interval)


class FrameTimer(Timer):
    """A repeating timer that ticks at most once per interval, counted from the last frame."""

    clock: Callable[[], float] = staticmethod(_time.get_time)
    """The monotonic clock the timer reads (tests give a fake one with ``sleep``)."""
    sleep: Callable[[float], Awaitable[None]] = staticmethod(_time.sleep)
    """How the timer waits; Textual's sleep (which may return up to 0.5 ms early)."""

    _last_frame: float | None = None
    _key_pressed = False
    _last_early: float | None = None
    """When the last frame began that came less than a period after the one before (for a key)."""

    @property
    def last_frame(self) -> float | None:
        """When the last frame began (None: none yet)."""
        return self._last_frame

    def frame_began(self) -> None:
        """The tick under way paints a frame (its callback says so)."""
        now, last = self.clock(), self._last_frame
        if last is not None and now < last + self._interval:
            self._last_early = now
        self._last_frame = now
        self._key_pressed = False

    @property
    def key_waiting(self) -> bool:
        """Whether a key arrived since the last frame began (the next frame begins at once)."""
        return self._key_pressed

    def key_pressed(self) -> None:
        """A key arrived: the next frame may begin at once."""
        self._key_pressed = True

    async def _run(self) -> None:
        # Textual's ``Timer._run`` with a due time instead of a grid. A paused timer ticks as
        # soon as it is resumed once its frame is due, as Textual's does at its slot.
        count = 0
        self._active  # noqa: B018 (creates the event in this task's loop, as Textual does)
        while self._repeat is None or count <= self._repeat:
            await self._active.wait()
            if self._reset:
                self._reset = False
                self._last_frame = self.clock()  # a reset timer waits a whole interval
                continue
            now = self.clock()
            due = frame_due(self._last_frame, self._interval, now)
            if self._key_pressed and frame_due(self._last_early, self._interval, now) == now:
                due = now  # a key, and no early frame in the last period
            if due > now:
                await self.sleep(due - now)
                if not self._active.is_set() or self._reset:
                    continue  # paused or reset meanwhile: due again once resumed
            count += 1
            framed = self._last_frame
            try:
                await self._tick(next_timer=due, count=count)
            except EventTargetGone:
                break
            if self._last_frame == framed and self._active.is_set():
                # Nothing painted, nor paused to wait for something to paint (the app is
                # closing, say): tick again a period later, as Textual's timer would.
                await self.sleep(self._interval)


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

    def key_pressed(self) -> None:
        """A key arrived for this screen: its frame need not wait for the period."""
        if self._frame_timer is not None:
            self._frame_timer.key_pressed()

    def _on_timer_update(self) -> None:
        # Textual's callback paints nothing while the app batches updates or another screen
        # shows; only a tick that paints counts as a frame.
        if self._frame_timer is not None and self.is_current and not self.app._batch_count:
            self._frame_timer.frame_began()
        super()._on_timer_update()
