"""The status line: execution mode, model, run state, the share of the window the context
takes, compaction mode, what the action about to be taken does to the prompt cache, project and
pending file changes.

While a run goes, the run state counts its seconds, as Claude Code's spinner does, and says what
streams that the conversation does not show: reasoning ("thinking"), a tool call being written
("write call, 12,345 chars"), and which tool runs ("bash running": a test run of two minutes is
not the model generating). A reply that stalls (a server that stopped sending) shows as time
passing with nothing new, instead of a "generating" that never changes until the timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from steiner_tui.app.budget_view import WindowFigures
from steiner_tui.engine.events import (
    EngineEvent,
    ErrorEvent,
    MessageAppended,
    ReasoningDelta,
    TextDelta,
    ToolCallStarted,
    ToolInputDelta,
    UsageReported,
)
from steiner_tui.units import count, run_time

__all__ = ["StatusLine", "streaming_note"]

_MODEL_MIN = 8
"""The fewest characters of the model's label a narrow row keeps."""


def streaming_note(event: EngineEvent, current: str) -> str:
    """What the status line says streams once ``event`` came (``current``: what it said)."""
    if isinstance(event, ReasoningDelta):
        return "thinking"
    if isinstance(event, ToolInputDelta):
        return f"{event.name or 'tool'} call, {count(event.chars)} chars"
    if isinstance(event, ToolCallStarted):  # until its result is stored
        return f"{event.call.name} running"
    if isinstance(event, _SHOWN_OR_OVER):
        return ""
    return current


_SHOWN_OR_OVER = (TextDelta, MessageAppended, UsageReported, ErrorEvent)
"""Events after which nothing unseen streams: the text shows, the call is over (a call that
starts is named until its result is stored)."""


class StatusLine(Widget):
    """One row of session state (display only); ``-busy`` and ``-plan`` mirror the reactives."""

    DEFAULT_CSS = """
    StatusLine { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    mode: reactive[str] = reactive("build")
    """The execution mode (``build`` or ``plan``)."""
    busy: reactive[bool] = reactive(False, toggle_class="-busy")
    """Whether a run is generating."""
    compacting: reactive[str] = reactive("")
    """The stage of the compaction running ("normal", "emergency, fallback model"), or ""."""
    waiting: reactive[bool] = reactive(False)
    """Whether the run waits on a question (``ask`` mode's, a permission, pins to drop)."""
    model: reactive[str] = reactive("")
    """How the model is named."""
    project: reactive[str] = reactive("")
    """The project folder's name."""
    compaction: reactive[str] = reactive("auto")
    """The compaction mode (``auto``, ``ask``, ``off``)."""
    generation: reactive[int] = reactive(0)
    """The active conversation generation."""
    cache_hint: reactive[str] = reactive("")
    """What the action about to be taken does to the prompt cache (``app.cache_hint``; "" when
    nothing about to be done touches it)."""
    pending_reload: reactive[str] = reactive("")
    """Files changed on disk that wait for the next compaction, and the cost of reloading now
    ("" when nothing is pending)."""
    elapsed: reactive[int] = reactive(0)
    """Whole seconds the run has been going (shown from the first one on)."""
    window: reactive[WindowFigures | None] = reactive(None)
    """The context panel's window figures: the share of the window the request shown takes
    (the panel is hidden below 100 columns; Codex's status line says it too)."""
    streaming: reactive[str] = reactive("")
    """What the model streams that the conversation does not show yet ("thinking", "write
    call, 12,345 chars"), or ""."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock: Callable[[], float] = time.monotonic
        """The interval clock (tests may replace it)."""
        self._started = 0.0
        self._ticks: Timer | None = None

    def on_mount(self) -> None:
        self._ticks = self.set_interval(1.0, self._tick, pause=not self.busy)

    def watch_mode(self, mode: str) -> None:
        self.set_class(mode == "plan", "-plan")

    def watch_busy(self, busy: bool) -> None:
        self._started = self.clock()
        self.elapsed = 0
        self.streaming = ""
        if self._ticks is not None:
            # Each tick reads the clock: its phase does not matter (a reset would skip one).
            if busy:
                self._ticks.resume()
            else:
                self._ticks.pause()

    def _tick(self) -> None:
        self.elapsed = int(self.clock() - self._started) if self.busy else 0

    def render(self) -> Content:
        """The row, fitted to the width: the key hint goes first, then the project, then
        "Esc cancels" (the footer has Esc too), then, while a cache hint is shown, the default
        compaction mode (the hint's dollars were cut at 80 columns), then the model's label is
        shortened; the run state, the context's share, a compaction mode set, generation, the
        cache hint and a pending reload stay (the row is one line high: what wrapped was never
        seen)."""
        width = self.size.width
        line = Content()
        auto = not self.cache_hint
        for hint, project, cancel, default in (
            (True, True, True, True),
            (False, True, True, True),
            (False, False, True, True),
            (False, False, False, auto),
        ):
            line = self._assemble(
                hint=hint, project=project, cancel=cancel, auto=default, model=self.model
            )
            if width <= 0 or line.cell_length <= width:
                return line
        over = line.cell_length - width
        keep = max(_MODEL_MIN, len(self.model) - over - 1)
        model = self.model if keep >= len(self.model) else self.model[:keep].rstrip() + "…"
        return self._assemble(hint=False, project=False, cancel=False, auto=auto, model=model)

    def _assemble(
        self, *, hint: bool, project: bool, cancel: bool, auto: bool, model: str
    ) -> Content:
        mode_style = "bold $text-warning" if self.mode == "plan" else "bold $text-success"
        seconds = f" {run_time(self.elapsed)}" if self.elapsed else ""
        streaming = f" · {self.streaming}" if self.streaming else ""
        generating = f"● generating{seconds}{streaming}" + (" · Esc cancels" if cancel else "")
        if self.compacting:
            generating = f"● compacting ({self.compacting}){seconds}"
            generating += " · Esc abandons" if cancel else ""
        if self.waiting:
            generating = "● waiting for your answer · F8" if cancel else "● waiting · F8"
        state = (generating, "$text-warning") if self.busy else ("idle", "")
        window = self.window
        context: tuple[str, str] | str = ""
        if window is not None and window.known:
            over = window.used > window.hard_limit
            near = window.used >= window.soft_threshold
            style = "$text-error" if over else "$text-warning" if near else ""
            # A share of the default guess is said as one: the server's own window may be a
            # quarter of it (llama.cpp's default is 4,096).
            of = "the guessed window" if window.guessed else "the window"
            if window.used > window.context_size:  # a resumed long session: many windows long
                said = f"context over {of}"
            else:
                share = f"{window.used * 100 / max(window.context_size, 1):.0f}%"
                said = f"{share} of a guessed window" if window.guessed else f"{share} context"
            context = (f" │ {said}", style)
        compaction_style = "" if self.compaction == "auto" else "$text-warning"
        parts: list[Content | str | tuple[str, str]] = [
            (f" {self.mode.upper()} ", f"reverse {mode_style}"),
            " ⇧Tab  │ " if hint else " │ ",
            (model, "$text-accent"),
            " │ ",
            state,
            context,
            (f" │ compaction {self.compaction}", compaction_style)
            if auto or self.compaction != "auto"
            else "",
            f" │ generation {self.generation}" if self.generation else "",
            (f" │ {self.cache_hint}", "$text-warning") if self.cache_hint else "",
            f" │ {self.project}" if project else "",
        ]
        if self.pending_reload:
            parts += [" │ ", (f"⟳ {self.pending_reload}", "$text-warning")]
        return Content.assemble(*parts)
