"""The main screen's side panels: which are docked at this width, and F9 / F10 over that.

``PanelLayoutScreen`` sits between ``SteeringScreen`` and ``MainScreen`` so the main screen's
module stays about runs and commands. The skills sidebar and the context panel are docked by
width (``HORIZONTAL_BREAKPOINTS``, styles/main.tcss); F9 and F10 show or hide one at any width,
over the conversation when it is not docked; ``/context`` enlarges the context panel over the
conversation. The keys themselves are in ``MainScreen.BINDINGS`` (their order is the footer's).

The skills sidebar is in the first frame only where the width docks it. Otherwise it mounts
when it is first shown (F9, a resize) or filled (the session's skills are listed once it
opens), in its place before the conversation, so the focus order is the same.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual import events

from steiner_tui.app.screens.steer_keys import SteeringScreen
from steiner_tui.app.screens.workbench_base import SUB_AGENT_PANEL_ID
from steiner_tui.app.widgets.skill_list import SkillList

__all__ = ["MEDIUM_FROM", "MIN_CONVERSATION", "PANELS", "WIDE_FROM", "PanelLayoutScreen"]

MIN_CONVERSATION = 60
"""The conversation is never narrower than this (columns) with a panel docked beside it."""
MEDIUM_FROM = 110
"""From this width the context panel (46 columns) is docked beside the conversation."""
WIDE_FROM = 140
"""From this width the skills sidebar (28 columns) is docked too."""
PANELS = ("skills", "context")
"""The side panels F9 and F10 show or hide."""


class PanelLayoutScreen(SteeringScreen):
    """The workbench's side panels: docked by width, shown or hidden by F9 / F10."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (MEDIUM_FROM, "-medium"), (WIDE_FROM, "-wide")]  # noqa: RUF012
    """Which panels are docked: none below ``MEDIUM_FROM``, the context panel from there, both
    from ``WIDE_FROM`` (F9 / F10 show a panel anyway, over the conversation; styles/main.tcss)."""

    def on_mount(self) -> None:
        """Take the width's class before the first frame.

        Textual sets a screen's breakpoint class when it handles the screen's first resize,
        after the first frame: that frame would be laid out without the docked panels, and the
        whole screen restyled and drawn again a moment later. The class is Textual's own choice
        (the largest breakpoint not over the width), so that resize changes nothing. Styles are
        not updated here: the screen's first resume restyles every widget anyway.
        """
        width = self.app.size.width
        breakpoints = reversed(self.HORIZONTAL_BREAKPOINTS)
        self.add_class(next(name for least, name in breakpoints if width >= least), update=False)

    def first_frame_skills(self) -> Iterator[SkillList]:
        """The sidebar, for ``compose``: where the first frame shows it (docked at this width),
        or when the session is open before it (tests and benchmarks)."""
        if self.attached or self.app.size.width >= WIDE_FROM:
            yield self.skills

    def _mount_skills(self) -> None:
        if self.skills.parent is None:
            self.mount(self.skills, before=self.conversation)

    def refresh_skills(self) -> None:
        """Show the driver's skill states (mounting the sidebar the first time)."""
        if self.attached:
            self._mount_skills()
        super().refresh_skills()

    def on_resize(self, event: events.Resize) -> None:
        """A width that docks the sidebar shows it, mounted if it is not yet."""
        if self.panel_shown("skills"):
            self._mount_skills()

    def action_context(self) -> None:
        """``/context``: the context panel enlarged, over the conversation."""
        self.toggle_class("-context")
        if self.has_class("-context"):
            self.call_after_refresh(self.budget.focus)  # once it shows
        else:
            self.prompt.focus()

    def action_focus_subagents(self) -> None:
        """Focus the sub-agent panel (under the context panel, shown if it is hidden); before
        the first delegation there is none, and F3 says so."""
        if self.has_sub_agents:
            if not self.panel_shown("context"):
                self.action_toggle_panel("context")
            self.call_after_refresh(self.query_one(f"#{SUB_AGENT_PANEL_ID}").focus)
            return
        self.notify(
            "No sub-agents in this session yet: the model starts one with the delegate tool, "
            "and F3 then focuses their panel.",
            title="Sub-agents",
            markup=False,
        )

    def reveal_context_panel(self) -> None:
        """Show the context panel where the width hides it (``/whatif`` focuses a view in it)."""
        if not self.panel_shown("context"):
            self.action_toggle_panel("context")

    def panel_docked(self, panel: str) -> bool:
        """Whether ``panel`` (``skills`` or ``context``) shows at this width unless toggled."""
        width = self.size.width
        return width >= (WIDE_FROM if panel == "skills" else MEDIUM_FROM)

    def panel_shown(self, panel: str) -> bool:
        """Whether ``panel`` is on screen (docked, over the conversation, or enlarged)."""
        if panel == "context" and self.has_class("-context"):
            return True
        if self.has_class(f"-{panel}-hidden"):
            return False
        return self.has_class(f"-{panel}-shown") or self.panel_docked(panel)

    def action_toggle_panel(self, panel: str) -> None:
        """Show or hide a side panel (F9: skills, F10: context), at any width.

        The choice holds across resizes; a choice that matches what the width shows anyway is
        forgotten, so the panel follows the width again. F10 on the panel ``/context`` enlarged
        hides it (shown again, it is its usual size). A panel shown gets the focus; hiding
        the focused one gives it back to the prompt.
        """
        if panel not in PANELS:
            return
        show = not self.panel_shown(panel)
        if panel == "context":
            self.remove_class("-context")  # F10 hides ``/context``'s enlarged panel too
        if panel == "skills":
            self._mount_skills()
        widget = self.skills if panel == "skills" else self.budget
        follows_width = show == self.panel_docked(panel)
        self.set_class(show and not follows_width, f"-{panel}-shown")
        self.set_class(not show and not follows_width, f"-{panel}-hidden")
        if show:
            self.call_after_refresh(widget.focus)
        elif widget.has_focus or widget.has_focus_within:
            self.prompt.focus()
