"""The main screen's side panels: which are docked at this width, and F9 / F10 over that.

The skills sidebar and the context panel are docked by width (``HORIZONTAL_BREAKPOINTS``,
styles/main.tcss); F9 and F10 show or hide one at any width, over the conversation when it is
not docked; ``/context`` enlarges the context panel over the conversation. ``SidePanels`` is
the screen's helper for this (it sets the screen's classes); the keys themselves are in
``MainScreen.BINDINGS`` (their order is the footer's).

The skills sidebar is in the first frame only where the width docks it. Otherwise it mounts
when it is first shown (F9, a resize) or filled (the session's skills are listed once it
opens), in its place before the conversation, so the focus order is the same.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget

from steiner_tui.app.widgets.skill_list import SkillList

__all__ = ["BREAKPOINTS", "MIN_CONVERSATION", "WIDE_FROM", "SidePanels"]

MIN_CONVERSATION = 60
"""The conversation is never narrower than this (columns) with a panel docked beside it."""
MEDIUM_FROM = 110
"""From this width the context panel (46 columns and up) is docked beside the conversation."""
WIDE_FROM = 140
"""From this width the skills sidebar (28 columns) is docked too."""
PANELS = ("skills", "context")
"""The side panels F9 and F10 show or hide."""
BREAKPOINTS = [(0, "-narrow"), (MEDIUM_FROM, "-medium"), (WIDE_FROM, "-wide")]
"""Which panels are docked: none below ``MEDIUM_FROM``, the context panel from there, both
from ``WIDE_FROM`` (F9 / F10 show a panel anyway, over the conversation; styles/main.tcss)."""


class SidePanels:
    """Docking by width, F9 / F10 and ``/context`` on one screen's classes."""

    def __init__(self, screen: Screen[Any], skills: SkillList) -> None:
        self.screen = screen
        self.skills = skills
        """The sidebar (mounted before the conversation once it is first needed)."""

    def first_class(self, width: int) -> str:
        """The width's class, as Textual would choose it (the largest breakpoint not over it)."""
        return next(name for least, name in reversed(BREAKPOINTS) if width >= least)

    def mount_skills(self, before: Widget) -> None:
        """Mount the sidebar before ``before`` (the conversation), if it is not yet."""
        if self.skills.parent is None:
            self.screen.mount(self.skills, before=before)

    def docked(self, panel: str) -> bool:
        """Whether ``panel`` (``skills`` or ``context``) shows at this width unless toggled."""
        return self.screen.size.width >= (WIDE_FROM if panel == "skills" else MEDIUM_FROM)

    def shown(self, panel: str) -> bool:
        """Whether ``panel`` is on screen (docked, over the conversation, or enlarged)."""
        screen = self.screen
        if panel == "context" and screen.has_class("-context"):
            return True
        if screen.has_class(f"-{panel}-hidden"):
            return False
        return screen.has_class(f"-{panel}-shown") or self.docked(panel)

    def over_conversation(self) -> str | None:
        """The panel drawn over the conversation (enlarged, or shown where the width does not
        dock it), if any."""
        if self.screen.has_class("-context"):
            return "context"
        shown = (p for p in PANELS if self.screen.has_class(f"-{p}-shown") and not self.docked(p))
        return next(shown, None)

    def show_or_hide(
        self, panel: str, budget: Widget, conversation: Widget, prompt: Widget
    ) -> None:
        """F9 (``skills``, mounted first) or F10 (``context``, the ``budget`` panel): toggle."""
        if panel in PANELS:
            if panel == "skills":
                self.mount_skills(conversation)
            self.toggle(panel, self.skills if panel == "skills" else budget, prompt)

    def enlarge_context(self, budget: Widget, prompt: Widget) -> None:
        """``/context``: the context panel enlarged over the conversation (or back)."""
        self.screen.toggle_class("-context")
        if self.screen.has_class("-context"):
            self.screen.call_after_refresh(budget.focus)  # once it shows
        else:
            prompt.focus()

    def toggle(self, panel: str, widget: Widget, prompt: Widget) -> None:
        """Show or hide ``panel`` (its ``widget``), at any width.

        The choice holds across resizes; a choice that matches what the width shows anyway is
        forgotten, so the panel follows the width again. F10 on the panel ``/context`` enlarged
        hides it (shown again, it is its usual size), and so does F9 on a narrow screen, where
        the enlarged panel would cover the sidebar. A panel shown gets the focus; hiding
        the focused one gives it back to the prompt.
        """
        screen = self.screen
        show = not self.shown(panel)
        if panel == "context" or (show and screen.has_class("-narrow")):
            # F10 hides ``/context``'s enlarged panel too; on a narrow screen it would cover
            # the sidebar F9 shows (and focuses).
            screen.remove_class("-context")
        follows_width = show == self.docked(panel)
        screen.set_class(show and not follows_width, f"-{panel}-shown")
        screen.set_class(not show and not follows_width, f"-{panel}-hidden")
        if show:
            screen.call_after_refresh(widget.focus)
        elif widget.has_focus or widget.has_focus_within:
            prompt.focus()
