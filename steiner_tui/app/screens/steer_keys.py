"""The main screen's steering: the compaction-mode key, the pin key, the ranking's mask key and
the what-if view, routed to the ``SteeringController`` (engine calls).

``SteeringScreen`` sits between ``WorkbenchBase`` and ``MainScreen`` (its keys are its own
``BINDINGS``, merged into the main screen's), so the main screen's module stays about runs and
commands.

* F4 (``main.compaction_mode``) cycles the compaction mode ``auto → ask → off`` live;
* ``p`` (``main.pin``) pins or unpins the focused entry, whatever its kind: a user message, a
  reply (the whole assistant message) or a tool block's result; with the conversation itself
  focused, the newest reply (``/pin N`` pins any message by number);
* the ranking's ``m`` masks a tool result or a file's reads in a new generation (never while a
  run is going);
* the what-if view's figures are computed in a worker thread and shown when ready; ``w``
  (and ``/whatif N save``) writes its threshold to the project config and uses it from then on;
* ``/compaction [mode] [save]`` sets the mode live; ``save`` also writes it.

Writing the project config goes through the confirmation screen (``screens.config_save``),
which shows the change as a diff first: nothing is written, and a threshold not used, until the
person confirms. The mode is live at once, as ``/compaction`` without ``save`` sets it: only
the file waits for the confirmation.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget

from steiner_tui.app.screens.workbench_base import WorkbenchBase
from steiner_tui.app.steering import WhatIfFigures
from steiner_tui.app.transcript import NoticeEntry, ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.cost_ranking import CostRanking
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.config import ConfigError
from steiner_tui.engine.compaction.pins import pin_key, pin_label
from steiner_tui.engine.compaction.policy import AutoCompaction

__all__ = ["SteeringScreen", "WhatIfReady"]

_MODE_HELP = {
    "auto": "compacts by itself at the soft trigger",
    "ask": "asks before compacting",
    "off": "never compacts by itself; warns near the hard limit",
}


def _not_saved(error: str, path: Path) -> str:
    """Why the project config was not written: the write failed, or the person cancelled."""
    return f"not saved: {error}" if error else f"not saved: nothing was written to {path}"


def _focus_in_sight(widget: Widget) -> None:
    """Focus ``widget`` and scroll its panel to it (the what-if view is at the panel's foot)."""
    widget.focus()
    widget.scroll_visible(animate=False)


class WhatIfReady(Message):
    """The worker's what-if figures (or why there are none)."""

    def __init__(self, figures: WhatIfFigures | None, error: str = "") -> None:
        self.figures = figures
        self.error = error
        super().__init__()


class SteeringScreen(WorkbenchBase):
    """The workbench's steering: compaction mode, pins, masking from the ranking, what-if."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f4", "cycle_compaction", "Compaction", id="main.compaction_mode",
                tooltip="Compaction mode: auto (compacts by itself), ask (asks first), off (never "
                "by itself; a request that does not fit is still never sent)"),
        Binding("p", "pin_focused", "Pin", id="main.pin", show=False,
                tooltip="Pin or unpin the focused message, reply or tool result (the newest reply "
                "when the conversation has focus): every compaction keeps it verbatim"),
    ]  # fmt: skip
    """The compaction-mode key and the pin key."""

    @property
    def _run_going(self) -> bool:
        return self.status.busy or self.driver.busy

    def _steer_notify(self, text: str, *, warning: bool = False) -> None:
        self.notify(
            text, title="Context", severity="warning" if warning else "information", markup=False
        )

    async def _steer_notice(self, text: str) -> None:
        await self.conversation.add(NoticeEntry(text, "steer"))
        self.status.compaction = self.steering.mode
        self.refresh_budget()

    # -- the compaction mode ------------------------------------------------------------------

    async def action_cycle_compaction(self) -> None:
        """Switch to the next compaction mode (auto, ask, off)."""
        if not self.attached:
            return
        mode = self.steering.set_mode("")
        await self._steer_notice(f"compaction mode: {mode} ({_MODE_HELP[mode]})")

    # -- pins ---------------------------------------------------------------------------------

    def pin_target(self) -> bool:
        """Whether ``p`` has something to pin: an entry, or the conversation, has the focus."""
        focused = self.focused
        if focused is not None and focused is self.conversation:
            return True
        return isinstance(self.conversation.entry_of(focused), UserEntry | ReplyEntry | ToolEntry)

    async def action_pin_focused(self) -> None:
        """Pin or unpin the focused entry's message, or the newest reply."""
        if not self.attached:
            return
        focused = self.focused
        steering = self.steering
        entry = self.conversation.entry_of(focused)
        try:
            if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) and entry.key:
                pinned, label = steering.toggle_key(entry.key)
            elif isinstance(entry, ReplyEntry):
                raise ValueError("the reply is still coming: pin it once it is complete")
            elif isinstance(entry, ToolEntry):
                pinned, label = steering.toggle_call(entry.call_id)
            elif entry is None and focused is self.conversation:
                pinned, label = self._toggle_newest_reply()
            else:
                return
        except ValueError as error:
            self._steer_notify(str(error), warning=True)
            return
        await self._steer_notice(f"{'pinned' if pinned else 'unpinned'} {label}")

    def _toggle_newest_reply(self) -> tuple[bool, str]:
        runner = self.steering.runner
        conversation = runner.conversation
        for message in reversed(conversation):
            if message.role == "assistant" and message.content.strip():
                label = pin_label(message, conversation)
                if runner.unpin(pin_key(message)):
                    return False, label
                runner.pin(message)
                return True, label
        raise ValueError("no reply to pin yet (/pin N pins any message by its number)")

    # -- what costs the most ------------------------------------------------------------------

    @on(CostRanking.ActRequested)
    async def _act_on_row(self, message: CostRanking.ActRequested) -> None:
        """Mask the row's tool results (or a file's reads) in a new generation."""
        if self._run_going:
            self._steer_notify("wait for the reply to finish before masking", warning=True)
            return
        outcome = self.steering.act_on(message.item)
        if outcome is None:
            self._steer_notify(f"nothing to mask in {message.item.label}", warning=True)
            return
        verb = "dropped the reads of" if message.item.action == "drop_reads" else "masked"
        await self._steer_notice(
            f"{verb} {message.item.label} for the next request (generation "
            f"{self.steering.runner.lineage.active.id}, in the lineage)"
        )

    # -- what-if ------------------------------------------------------------------------------

    async def what_if_command(self, argument: str) -> None:
        """``/whatif [tokens] [save]``: try ``tokens`` in the what-if view (its figures are
        computed off the loop); ``save`` also writes it to the project config."""
        words = argument.split()
        save = "save" in words
        rest = [word for word in words if word != "save"]
        budget = self.steering.runner.model.budget
        try:
            threshold = int(rest[0].replace(",", "").replace("_", "")) if rest else 0
        except ValueError:
            self._steer_notify(f"/whatif takes a number of tokens, not {rest[0]!r}", warning=True)
            return
        threshold = threshold or budget.soft_threshold
        if not 0 < threshold < budget.context_size:
            self._steer_notify(
                f"the threshold must be between 1 and {budget.context_size - 1:,}", warning=True
            )
            return
        self.reveal_context_panel()
        for view in self.query(WhatIfView):
            view.threshold = threshold
            view.request()
            self.call_after_refresh(_focus_in_sight, view)  # once the panel shows
        if save:
            await self._save_threshold(WhatIfView.SaveRequested(threshold))

    def reveal_context_panel(self) -> None:
        """Show the context panel where the width hides it (the layout screen's: F10's)."""

    @on(WhatIfView.Requested)
    def _what_if_requested(self, message: WhatIfView.Requested) -> None:
        if self.attached:
            self.simulate_what_if(message.threshold, message.mode)

    @work(thread=True, exclusive=True, group="whatif", exit_on_error=False)
    def simulate_what_if(self, threshold: int, mode: AutoCompaction) -> None:
        """Replay the session's requests at ``threshold`` off the UI loop."""
        try:
            figures: WhatIfFigures | None = None
            if self.steering.snapshots():
                figures = self.steering.what_if(threshold, mode)
            ready = WhatIfReady(figures)
        except Exception as error:  # the UI boundary: say why instead of crashing
            ready = WhatIfReady(None, f"cannot simulate: {error}")
        self.post_message(ready)

    @on(WhatIfReady)
    def _what_if_ready(self, message: WhatIfReady) -> None:
        for view in self.query(WhatIfView):
            if message.figures is not None:
                view.show(message.figures)
            elif message.error:
                view.show_error(message.error)

    @on(WhatIfView.SaveRequested)
    async def _save_threshold(self, message: WhatIfView.SaveRequested) -> None:
        """Show the threshold written into the project config; once written, use it."""
        if self._run_going:
            self._steer_notify("wait for the reply to finish", warning=True)
            return
        # Screens are imported when first opened; this one brings tomlkit (config_write).
        from steiner_tui.app.screens.config_save import ConfigSaveScreen, SaveOutcome

        steering = self.steering
        threshold = message.threshold
        try:
            screen = ConfigSaveScreen.for_threshold(
                steering.session.project_root, steering.runner.model.ref, threshold
            )
        except (ConfigError, OSError) as error:
            self._steer_notify(f"not saved: {error}", warning=True)
            return

        async def saved(outcome: SaveOutcome | None) -> None:
            if outcome is None or outcome.written is None:
                error = outcome.error if outcome is not None else ""
                self._steer_notify(_not_saved(error, screen.change.path), warning=bool(error))
                return
            steering.use_threshold(threshold)
            await self._steer_notice(
                f"soft trigger {threshold:,} from now on; written to {outcome.written} as "
                "compaction_threshold_tokens"
            )

        self.app.push_screen(screen, saved)

    async def compaction_command(self, argument: str) -> None:
        """``/compaction [auto|ask|off] [save]``: set the mode live (no mode: the next one in
        turn); ``save`` also writes it to the project config, once the person confirms."""
        words = argument.split()
        rest = [word for word in words if word != "save"]
        try:
            mode = self.steering.set_mode(rest[0] if rest else "")
        except ValueError as error:
            self.notify(str(error), title="/compaction", severity="warning", markup=False)
            return
        text = f"compaction mode: {mode}"
        if "save" not in words:
            await self._steer_notice(text)
            return
        # Screens are imported when first opened; this one brings tomlkit (config_write).
        from steiner_tui.app.screens.config_save import ConfigSaveScreen, SaveOutcome

        try:
            screen = ConfigSaveScreen.for_mode(self.steering.session.project_root, mode)
        except (ConfigError, OSError) as error:
            await self._steer_notice(text)
            self.notify(str(error), title="/compaction", severity="warning", markup=False)
            return
        self.status.compaction = mode

        async def saved(outcome: SaveOutcome | None) -> None:
            if outcome is not None and outcome.written is not None:
                await self._steer_notice(f"{text} (saved to {outcome.written})")
                return
            error = outcome.error if outcome is not None else ""
            await self._steer_notice(text)
            self.notify(
                _not_saved(error, screen.change.path),
                title="/compaction",
                severity="warning" if error else "information",
                markup=False,
            )

        self.app.push_screen(screen, saved)
