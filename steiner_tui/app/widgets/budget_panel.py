"""The context-budget panel: the latest request's sources, window, estimate and prefix.

It shows a ``BudgetView`` (built by the controller from request snapshots) and nothing else:
the window bar, the request as a stacked bar by source over the per-source table (each row
led by its segment's swatch), what costs the most (``CostRanking``, ``m`` masks a row), the
chart of tokens per request with the cache-reuse strip (``context_charts``), the last tool
output that was cut to its budget, the notes with the compaction mode (the words:
``budget_text``), and the what-if view (``WhatIfView``). A request that cannot fit the window
says so in the error colour. Enter asks the screen to open the request inspector on the
request shown.

In the workbench (``attach``) the panel computes its own figures: ``refresh_figures`` shows
the latest request's, or assembles the dry run of the next one in a worker thread, never on the
UI loop. One such worker runs at a time: a refresh asked for while it runs is answered by one
more run when it ends (figures of an older refresh are never shown). The ranking's ``m`` masks
a row and the what-if view's figures are computed in a worker too; ``w`` writes its threshold
through the confirmation screen (``screens.config_save``). What they did is posted as ``Said``
for the conversation.

Before the first view (or error) the panel is its border and title alone: its parts are
mounted with the first one, which they then show (until then they would be empty, yet a new
session's first frame styled, laid out and drew ten more widgets). A view, an error or a cut
that arrives before the parts are mounted is kept and shown once they are.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from time import monotonic
from typing import TYPE_CHECKING, ClassVar

import msgspec
from textual import on, work
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.agent.count_ahead import claim_on_loop
from steiner_tui.app.budget_view import BudgetView, WindowFigures
from steiner_tui.app.messages import Said
from steiner_tui.app.steering import WhatIfFigures
from steiner_tui.app.widgets.budget_text import (
    LABEL_WIDTH,
    NUMBER_WIDTH,
    cut_note,
    format_rows,
    notes,
    over_window,
)
from steiner_tui.app.widgets.context_charts import RequestChart, SourceBar, source_colours
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.widgets.window_bar import WindowBar
from steiner_tui.config import ConfigError
from steiner_tui.engine.cache_causes import CacheEffect
from steiner_tui.engine.compaction.policy import AutoCompaction
from steiner_tui.engine.events import (
    EngineEvent,
    HealthEvent,
    OutputCut,
    ToolCallFinished,
    UsageReported,
)
from steiner_tui.units import counted

if TYPE_CHECKING:
    from steiner_tui.app.controller import SessionController
    from steiner_tui.app.steering import SteeringController

__all__ = ["BudgetPanel", "not_saved"]

CACHE_CLOCK_SECONDS = 30.0
"""How often the time left until the cache expires is counted down."""


class BudgetPanel(VerticalScroll, can_focus=True):
    """The context-budget panel (display only)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "inspect", "Inspect", id="context.inspect",
                tooltip="Open the request inspector on the request shown"),
    ]  # fmt: skip
    """Enter opens the inspector."""

    busy: reactive[bool] = reactive(False)
    """A run is going (bound to the screen's): masking and writing wait for it to end."""
    cache_actions: reactive[tuple[tuple[str, CacheEffect], ...]] = reactive(())
    """What each action would do to the cache now (the figures shown; the status line says
    the one about to be taken)."""

    class InspectRequested(Message):
        """The user asked to inspect the request shown."""

    class Shown(Message):
        """The panel's first figures (or why there are none) are shown: start-up is over."""

    class WindowShown(Message):
        """The window figures shown (the status line says them where the panel is hidden)."""

        def __init__(self, window: WindowFigures) -> None:
            self.window = window
            super().__init__()

    class _Figures(Message):
        """A dry run's figures from the worker (``version``: the refresh they answer)."""

        def __init__(self, view: BudgetView | None, error: str, version: int) -> None:
            self.view, self.error, self.version = view, error, version
            super().__init__()

    class _WhatIf(Message):
        """The what-if worker's figures (or why there are none)."""

        def __init__(self, figures: WhatIfFigures | None, error: str = "") -> None:
            self.figures, self.error = figures, error
            super().__init__()

    def __init__(
        self, *, whatif: bool = True, id: str | None = None, classes: str | None = None
    ) -> None:
        """``whatif``: show the what-if view (a read-only capture or import has no session
        whose thresholds could be tried). ``classes``: ``-preview`` when the first figures
        will be a dry run (then they restyle nothing when they come)."""
        super().__init__(id=id, classes=classes)
        self.whatif = whatif
        self._view: BudgetView | None = None
        self._message: tuple[str, str, str] | None = None
        """Instead of a view: the title's heading, the text and its style."""
        self._cut: tuple[str, OutputCut | None] | None = None
        self._parts = False
        """Whether the parts are mounted (with the first view or error)."""
        self._shown_at = monotonic()
        """When the view on show came (the cache's time left counts from there)."""
        self.controller: SessionController | None = None
        self.steering: SteeringController | None = None
        self._version = 0
        """Counts the refreshes (a dry run answers the one it started for)."""
        self._previewing = False
        """A dry-run worker is running."""
        self._started = False
        """``Shown`` was posted."""
        self._window_note = ""
        """Why the window figure is not the server's (said above the bar)."""

    def _new_parts(self) -> Iterator[Widget]:
        over, cut = Static(id="budget-over"), Static(id="budget-cut")
        note = Static(id="budget-window-note")
        over.display = cut.display = note.display = False  # shown when there is something to say
        yield note
        yield WindowBar()
        yield over
        yield SourceBar()
        yield Static(id="budget-rows")
        yield Static(Content.styled("what costs the most", "bold $text-muted"), id="top-title")
        yield CostRanking(id="top")
        yield RequestChart()
        yield cut
        yield Static(id="budget-notes")
        if self.whatif:
            yield WhatIfView(id="whatif")

    def on_mount(self) -> None:
        """Title until the first view arrives; the cache's time left counts down."""
        self.set_interval(CACHE_CLOCK_SECONDS, self.tick_cache_clock)
        self.border_title = "Context"
        self.border_subtitle = "F10 · /context · Enter: inspector"
        self._show_pending(mounted=True)

    def _show_pending(self, *, mounted: bool = False) -> None:
        """Show what arrived, mounting the parts first if they are not yet (``mounted``: from
        ``on_mount``, before Textual counts the panel as mounted)."""
        if not (mounted or self.is_mounted) or (self._view is None and self._message is None):
            return
        first = not self._parts
        if first:
            # Attached at once (Textual mounts them afterwards): they take what follows now.
            self._parts = True
            self.mount_all(self._new_parts())
        if not self.query(WindowBar):
            return  # the panel is closing (the app quits): its parts are not mounted any more
        # No request to show: only what the message says, none of the figures' empty parts.
        self.set_class(self._view is None, "-message")
        if self._view is not None:
            self._render_view(self._view)
        elif self._message is not None:
            self.remove_class("-preview")  # no request to show, dry run or sent
            heading, text, style = self._message
            self.border_title = f"Context · {heading}"
            self.query_one("#budget-rows", Static).update(Content.styled(text, style))
        if first and self._cut is not None:
            self._render_cut(*self._cut)

    def show(self, view: BudgetView) -> None:
        """Show ``view`` (once the panel's parts are mounted, if they are not yet)."""
        self._view, self._message = view, None
        self._shown_at = monotonic()
        self._show_pending()
        self.post_message(self.WindowShown(view.window))

    def tick_cache_clock(self, elapsed: float | None = None) -> None:
        """Count down the time left until the cache expires, ``elapsed`` seconds (default:
        the time since the view came) after the view was built; the notes alone are redrawn."""
        view = self._view
        money = view.money if view is not None else None
        if view is None or money is None or money.cache_left_seconds is None or not self._parts:
            return
        if elapsed is None:
            elapsed = monotonic() - self._shown_at
        left = money.cache_left_seconds - elapsed
        ticked = msgspec.structs.replace(money, cache_left_seconds=left)
        self.query_one("#budget-notes", Static).update(
            notes(msgspec.structs.replace(view, money=ticked))
        )

    def _render_view(self, view: BudgetView) -> None:
        over = "" if view.fits else " · over the window"
        self.border_title = f"Context · {view.heading}{over}"
        self.set_class(view.preview, "-preview")
        self.set_class(not view.fits, "-over")
        self.query_one(WindowBar).figures = view.window
        note = self.query_one("#budget-window-note", Static)
        note.update(Content.styled(self._window_note, "bold $text-warning"))
        note.display = bool(self._window_note)
        self.query_one("#budget-over", Static).update(over_window(view))
        self.query_one("#budget-over").display = not view.fits
        self.query_one(SourceBar).rows = view.rows
        self._render_rows(view)
        self.query_one("#budget-notes", Static).update(notes(view))
        self.cache_actions = view.money.actions if view.money is not None else ()
        self.query_one(CostRanking).show(view.top, view.project_root)
        window = view.window
        if self.whatif:
            self.query_one(WhatIfView).set_budget(
                window.soft_threshold,
                window.context_size,
                view.compaction_mode,
                f"{view.heading} {view.estimate_tokens} {view.compactions}",
            )
        self.query_one(RequestChart).view = view

    def on_what_if_view_changed(self, message: WhatIfView.Changed) -> None:
        """The chart draws the threshold being tried and where it would have compacted (only
        while it differs from how the session went, which the chart already shows)."""
        observed, trial = message.figures
        self.query_one(RequestChart).whatif = None if trial.setting == observed.setting else trial

    def _label_width(self) -> int:
        """The label column: what the panel's width leaves beside the figures (a wider
        panel, ``/context``, cuts fewer labels onto their own line)."""
        inner = self.scrollable_content_region.width
        figures = 2 * NUMBER_WIDTH + 5
        return max(LABEL_WIDTH, min(48, inner - figures - 1)) if inner else LABEL_WIDTH

    def _render_rows(self, view: BudgetView) -> None:
        rows = format_rows(
            view.rows, swatches=source_colours(self.app), label_width=self._label_width()
        )
        self.query_one("#budget-rows", Static).update(rows)

    def on_resize(self) -> None:
        """Labels take the width the panel has."""
        if self._view is not None and self._parts:
            self._render_rows(self._view)

    def watch_show_vertical_scrollbar(self) -> None:
        """And the width its scrollbar leaves (a resumed session's table kept the column the
        scrollbar took once its figures came: it was wider than live)."""
        self.on_resize()

    def show_cut(self, name: str, cut: OutputCut | None) -> None:
        """Show what the latest bounded tool result cut (None: the note goes)."""
        self._cut = (name, cut)
        if self._parts:
            self._render_cut(name, cut)

    def _render_cut(self, name: str, cut: OutputCut | None) -> None:
        note = self.query_one("#budget-cut", Static)
        note.display = cut is not None
        if cut is not None:
            note.update(cut_note(name, cut))

    def show_error(self, text: str) -> None:
        """The request cannot be assembled (e.g. a misconfigured project): say why."""
        self._view, self._message = None, ("error", text, "$text-error")
        self._show_pending()

    def show_nothing(self, heading: str, text: str) -> None:
        """There is no request to show yet: ``heading`` in the title (what the panel waits
        for), ``text`` below it (what brings one)."""
        self._view, self._message = None, (heading, text, "$text-muted")
        self._show_pending()

    def action_inspect(self) -> None:
        """Ask for the inspector."""
        self.post_message(self.InspectRequested())

    # -- the workbench's figures ----------------------------------------------------------------

    def attach(self, controller: SessionController, steering: SteeringController) -> None:
        """Compute figures from ``controller`` and steer through ``steering`` from now on."""
        self.controller, self.steering = controller, steering

    def warn_window(self, text: str) -> None:
        """Say ``text`` above the window bar (a local server that did not answer: its window
        is a guess); "" takes it away. Shown with the next figures."""
        self._window_note = text

    def observe(self, event: EngineEvent) -> None:
        """Follow what the figures depend on: a tool output cut, reported usage, the
        session's health (a toast when it is not good)."""
        match event:
            case ToolCallFinished(cut=cut, call=call) if cut is not None:
                self.show_cut(call.name, cut)
            case UsageReported() if self.controller is not None:
                self.controller.observe_usage(event)
            case HealthEvent() if self.controller is not None:
                self.controller.observe_health(event)
                if event.severity != "info":
                    # The pinned guidance says "repeated compaction" whatever made it fragile
                    # (a rejected summary or a prompt far past the hard limit, after one
                    # stage too): the title says how many stages this run applied.
                    stages = event.stage_count
                    title = "Session health"
                    if stages:
                        title += f" · {counted(stages, 'compaction stage')} in this run"
                    self.notify(event.guidance, title=title, severity="warning")

    @work(group="limits", exit_on_error=False)
    async def learn_model_limits(self) -> None:
        """Ask a local model's server for its window and tool support (off the UI loop)."""
        assert self.controller is not None
        runner = self.controller.session.driver.runner
        learned = await runner.learn_limits()
        model = runner.model
        silent = model.limits_probe is not None and model.window_origin == "default"
        # A local server down, or one that answers without saying its window (it said "not
        # answering" to a server whose replies streamed): the window is a guess, said at the
        # top of the panel.
        why = (
            "the server does not say it; set context_window"
            if runner.limits.learned
            else "server not answering"
        )
        self.warn_window(f"window unknown: {why}" if silent else "")
        if learned or silent:
            self.refresh_figures()

    def refresh_figures(self) -> None:
        """Show the latest request's figures, or the dry run of the next one (in a worker)."""
        controller = self.controller
        if controller is None:
            return
        self._version += 1
        sent = controller.sent_snapshot()
        if sent is None or controller.wants_preview():
            self._start_preview()
            return
        self._show_figures(controller.view_of(sent, False), "")

    def _start_preview(self) -> None:
        if not self._previewing:
            self._previewing = True
            self._claim_then_preview(self._version)

    @work(group="preview", exit_on_error=False)
    async def _claim_then_preview(self, version: int) -> None:
        """The dry run, once the model's tokenizer has counted first on this loop: the thread
        that counts with tiktoken first counts fastest (``RequestEstimator.claim``), and the
        loop counts every turn; the dry run's thread would take it at start-up."""
        assert self.controller is not None
        runner = self.controller.session.driver.runner
        await claim_on_loop(runner.context.estimator, runner.model.model)
        self._preview(version)

    @work(thread=True, group="preview", exit_on_error=False)
    def _preview(self, version: int) -> None:
        """Assemble the dry run of the next request off the UI loop; post its figures."""
        assert self.controller is not None
        try:
            result = self._Figures(self.controller.preview_view(), "", version)
        except Exception as error:  # the UI boundary: say why instead of crashing
            result = self._Figures(None, f"cannot assemble the request: {error}", version)
        self.post_message(result)

    @on(_Figures)
    def _figures_ready(self, message: _Figures) -> None:
        self._previewing = False
        if message.version != self._version:
            # Out of date: the panel was refreshed while this dry run was assembled.
            if self.controller is not None and self.controller.wants_preview():
                self._start_preview()
            return
        self._show_figures(message.view, message.error)

    def _show_figures(self, view: BudgetView | None, error: str) -> None:
        if view is None:
            self.show_error(error)
        else:
            self.show(view)
        if not self._started:  # the first figures: start-up ends once they are drawn
            self._started = True
            self.call_after_refresh(self.post_message, self.Shown())

    # -- steering: masking a row, what-if ----------------------------------------------------

    def _say(self, text: str, *, warning: bool = False) -> None:
        self.notify(text, title="Context", severity="warning" if warning else "information")

    @on(CostRanking.ActRequested)
    def _act_on_row(self, message: CostRanking.ActRequested) -> None:
        """Mask the row's tool results (or a file's reads) in a new generation."""
        steering = self.steering
        if steering is None:
            return
        if self.busy:
            self._say("wait for the reply to finish before masking", warning=True)
            return
        outcome = steering.act_on(message.item)
        if outcome is None:
            self._say(f"nothing to mask in {message.item.label}", warning=True)
            return
        verb = "dropped the reads of" if message.item.action == "drop_reads" else "masked"
        self.post_message(
            Said(
                f"{verb} {message.item.label} for the next request (generation "
                f"{steering.runner.lineage.active.id}, in the lineage)"
            )
        )

    def try_threshold(self, threshold: int) -> None:
        """Show ``threshold`` in the what-if view, focused (``/whatif N``)."""
        for view in self.query(WhatIfView):
            view.threshold = threshold
            view.request()
            self.call_after_refresh(_focus_in_sight, view)  # once the panel shows

    @on(WhatIfView.Requested)
    def _what_if_requested(self, message: WhatIfView.Requested) -> None:
        if self.steering is not None:
            self._simulate(message.threshold, message.mode)

    @work(thread=True, exclusive=True, group="whatif", exit_on_error=False)
    def _simulate(self, threshold: int, mode: AutoCompaction) -> None:
        """Replay the session's requests at ``threshold`` off the UI loop."""
        assert self.steering is not None
        try:
            figures: WhatIfFigures | None = None
            if self.steering.snapshots():
                figures = self.steering.what_if(threshold, mode)
            ready = self._WhatIf(figures)
        except Exception as error:  # the UI boundary: say why instead of crashing
            ready = self._WhatIf(None, f"cannot simulate: {error}")
        self.post_message(ready)

    @on(_WhatIf)
    def _what_if_ready(self, message: _WhatIf) -> None:
        for view in self.query(WhatIfView):
            if message.figures is not None:
                view.show(message.figures)
            elif message.error:
                view.show_error(message.error)

    @on(WhatIfView.SaveRequested)
    def save_threshold(self, message: WhatIfView.SaveRequested) -> None:
        """Show the threshold written into the project config; once written, use it."""
        steering = self.steering
        if steering is None:
            return
        if self.busy:
            self._say("wait for the reply to finish", warning=True)
            return
        from steiner_tui.app.screens.config_save import ConfigSaveScreen, SaveOutcome

        threshold = message.threshold
        try:
            screen = ConfigSaveScreen.for_threshold(
                steering.session.project_root, steering.runner.model.ref, threshold
            )
        except (ConfigError, OSError) as error:
            self._say(f"not saved: {error}", warning=True)
            return

        def saved(outcome: SaveOutcome | None) -> None:
            if outcome is None or outcome.written is None:
                error = outcome.error if outcome is not None else ""
                self._say(not_saved(error, screen.change.path), warning=bool(error))
                return
            steering.use_threshold(threshold)
            self.post_message(
                Said(
                    f"soft trigger {threshold:,} from now on; written to {outcome.written} as "
                    "compaction_threshold_tokens"
                )
            )

        self.app.push_screen(screen, saved)


def not_saved(error: str, path: Path) -> str:
    """Why the project config was not written: the write failed, or the person cancelled."""
    return f"not saved: {error}" if error else f"not saved: nothing was written to {path}"


def _focus_in_sight(widget: Widget) -> None:
    """Focus ``widget`` and scroll its panel to it (the what-if view is at the panel's foot)."""
    widget.focus()
    widget.scroll_visible(animate=False)
