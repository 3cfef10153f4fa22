"""What-if thresholds: the context panel's view of the session replayed under another trigger.

The figures are the engine's (``engine.whatif.simulate`` through ``agent.whatif.what_if``, run
by the screen in a worker thread): how the conversation went, and how it would have gone with
the soft threshold (and compaction mode) chosen here: when it would have compacted, how many
times, the tokens sent in total and the estimated share read from the prompt cache.

Keys, while the view has focus: ``+`` and ``-`` move the threshold by a step (a twentieth of
the window), ``t`` tries the next compaction mode, ``w`` writes the threshold to the project
config (``.steiner/config.toml``, only then; the rest of the file is kept) and uses it from now
on, once the person has seen the change and confirmed it (``screens.config_save``). The view
posts what it wants (``Requested``, ``SaveRequested``); the screen computes, asks and calls
``show``.

The per-request prompt tokens of both runs (``WhatIfFigures.observed.prompt_tokens`` and
``.trial.prompt_tokens``, with ``.trial.compactions`` where it would have compacted) are the
lines for the tokens-per-request chart: every new result is posted as ``WhatIfView.Changed``,
which the chart can draw over its bars.
"""

from __future__ import annotations

import typing
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from steiner_tui.app.steering import WhatIfFigures
from steiner_tui.engine.compaction.policy import AutoCompaction
from steiner_tui.engine.whatif import WhatIfResult
from steiner_tui.units import count, counted

__all__ = ["WhatIfView"]

_MODES: tuple[AutoCompaction, ...] = typing.get_args(AutoCompaction)
_GROUP = Binding.Group("What-if")


def threshold_step(context_size: int) -> int:
    """How far ``+`` and ``-`` move the threshold: a twentieth of the window, in hundreds."""
    return max(100, int(round(context_size / 20, -2)))


def result_line(result: WhatIfResult) -> str:
    """``32,047 sent · 84% cached`` (``off``: where it would have stopped)."""
    text = f"{count(result.tokens_sent)} sent · {result.cache_read_share * 100:.0f}% cached"
    if result.stopped_at is not None:
        text += f" · stops at #{result.stopped_at + 1}"
    return text


def _where(result: WhatIfResult) -> str:
    """``never compacts``, ``1 compaction (#4)``, ``8 compactions (#1, #2, #3…)``."""
    if not result.compactions:
        return "never compacts"
    times = counted(result.count, "compaction")
    shown = ", ".join(f"#{p + 1}" for p in result.compactions[:3])
    more = "…" if len(result.compactions) > 3 else ""
    return f"{times} ({shown}{more})"


class WhatIfView(Static, can_focus=True):
    """The session as it went, and at the threshold chosen here."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus,equals_sign", "move(1)", "Raise", id="whatif.raise", group=_GROUP,
                key_display="+", tooltip="Try a higher soft threshold"),
        Binding("minus", "move(-1)", "Lower", id="whatif.lower", group=_GROUP,
                key_display="-", tooltip="Try a lower soft threshold"),
        Binding("t", "next_mode", "Mode", id="whatif.mode", group=_GROUP,
                tooltip="Try the next compaction mode (auto, ask, off)"),
        Binding("w", "save", "Write…", id="whatif.save", group=_GROUP,
                tooltip="Write this threshold to .steiner/config.toml and use it from now on "
                "(shows the change first; Enter writes it, Esc cancels)"),
    ]  # fmt: skip
    """Adjust, try a mode, write."""

    threshold: reactive[int] = reactive(0, init=False)
    """The threshold tried (0: the current soft threshold, until the window is known)."""
    mode: reactive[str] = reactive("auto", init=False)
    """The compaction mode tried."""

    class Requested(Message):
        """Simulate ``threshold`` and ``mode``."""

        def __init__(self, threshold: int, mode: AutoCompaction) -> None:
            self.threshold = threshold
            self.mode = mode
            super().__init__()

    class SaveRequested(Message):
        """Write ``threshold`` to the project config."""

        def __init__(self, threshold: int) -> None:
            self.threshold = threshold
            super().__init__()

    class Changed(Message):
        """New figures (the chart's what-if lines)."""

        def __init__(self, figures: WhatIfFigures) -> None:
            self.figures = figures
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Content("what-if: no requests yet"), id=id)
        self.figures: WhatIfFigures | None = None
        """The latest figures shown."""
        self.current = 0
        """The session's soft threshold."""
        self.context_size = 0
        """The window."""
        self._shown = ""

    def set_budget(self, soft_threshold: int, context_size: int, mode: str, shown: str) -> None:
        """The session's figures; the first call sets what is tried to them, and the threshold
        tried follows the session's until it is moved (a local server's window arrives after
        the first dry run; a model switch changes it). ``shown`` names the request the panel
        shows: when it changes (a request was sent, the conversation compacted), the figures
        are asked for again."""
        first = self.context_size == 0
        follows = first or self.threshold == self.current
        moved = follows and self.threshold != soft_threshold
        self.current, self.context_size = soft_threshold, context_size
        if follows:
            self.set_reactive(WhatIfView.threshold, soft_threshold)
        if first:
            self.set_reactive(WhatIfView.mode, mode)
        if shown != self._shown or first or moved:
            self._shown = shown
            self.request()

    @property
    def setting(self) -> tuple[int, AutoCompaction]:
        """The threshold and mode tried."""
        mode = typing.cast(AutoCompaction, self.mode)
        return self.threshold or self.current, mode

    def request(self) -> None:
        """Ask the screen for figures at the setting tried."""
        if self.context_size:
            self.post_message(self.Requested(*self.setting))

    def watch_threshold(self) -> None:
        self.request()

    def watch_mode(self) -> None:
        self.request()

    def action_move(self, direction: int) -> None:
        """Move the threshold by one step, within the window."""
        if not self.context_size:
            return
        step = threshold_step(self.context_size)
        value = (self.threshold or self.current) + direction * step
        self.threshold = min(max(step, value), self.context_size - 1)

    def action_next_mode(self) -> None:
        self.mode = _MODES[(_MODES.index(typing.cast(AutoCompaction, self.mode)) + 1) % 3]

    def action_save(self) -> None:
        if self.context_size:
            self.post_message(self.SaveRequested(self.setting[0]))

    def show(self, figures: WhatIfFigures) -> None:
        """Show ``figures`` (for the setting tried) and post them for the chart."""
        self.figures = figures
        self.update(self.content_of(figures))
        self.post_message(self.Changed(figures))

    def show_error(self, text: str) -> None:
        self.update(Content.styled(f"what-if: {text}", "$text-error"))

    def content_of(self, figures: WhatIfFigures) -> Content:
        """The view's text."""
        observed, trial = figures.observed, figures.trial
        setting = trial.setting
        marker = " (now)" if setting.threshold == self.current else ""
        lines = [
            Content.assemble(
                ("what-if", "bold"), f" · {counted(len(observed.prompt_tokens), 'request')}"
            ),
            Content.assemble(
                ("as it went ", "$text-muted"), f"{count(self.current)}: {_where(observed)}"
            ),
            Content(f"  {result_line(observed)}"),
            Content.assemble(
                ("trying ", "$text-accent"),
                f"{count(setting.threshold)}{marker} {setting.mode}: {_where(trial)}",
            ),
            Content(f"  {result_line(trial)}"),
        ]
        keys = Content.styled("+/- threshold · t mode · w write", "$text-muted")
        return Content("\n").join([*lines, keys])
