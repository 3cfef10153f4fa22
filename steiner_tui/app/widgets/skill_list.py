"""The skill sidebar: every discovered skill with its size and state; Space or Enter toggles.

Toggling only asks: the screen changes the driver's enabled set, and the change goes out as an
envelope with the next message ("pending on/off" until then). The list shows what the driver
reports after each change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.app.messages import PanelMounted
from steiner_tui.engine.skills.delta import SkillStatus

__all__ = ["SkillList", "skill_prompt"]

_STATES = {
    "active": ("● active", "$text-success"),
    "inactive": ("○ inactive", "$text-muted"),
    "pending_activation": ("◐ pending on", "$text-warning"),
    "pending_deactivation": ("◑ pending off", "$text-warning"),
}


def _size(size: int) -> str:
    return f"{size:,} B" if size < 1000 else f"{size / 1000:.1f} kB"


def skill_prompt(number: int, row: SkillStatus) -> Content:
    """The two-line option for ``row`` (``number`` 1-9 shows its key)."""
    key = str(number) if number <= 9 else " "
    name = Content.assemble((key, "$text-accent"), " ", (row.name, "bold"))
    if row.truncated:
        name += Content.assemble(" ", ("✂ cut", "$text-error"))
    state, style = _STATES[row.state]
    detail = Content.assemble("  ", (state, style), ("  " + _size(row.size_bytes), "$text-muted"))
    if row.leftover_inactive:
        detail += Content.assemble("\n  ", ("leftover text until compaction", "$text-muted"))
    return Content.assemble(name, "\n", detail)


class SkillList(OptionList):
    """The skills (display only); options are keyed by skill name."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_highlighted", "Toggle skill", id="skills.toggle_focused",
                tooltip="Toggle the highlighted skill; it changes with your next message"),
    ]  # fmt: skip
    """Space toggles the highlighted row (Enter does too)."""

    @dataclass
    class ToggleRequested(Message):
        """The user asked to toggle skill ``name``."""

        name: str

    def on_mount(self) -> None:
        """Ask for data (the sidebar is mounted after the first frame)."""
        self.border_title = "Skills"
        self.border_subtitle = "Space · 1-9 toggle"
        self.post_message(PanelMounted())

    def show(self, rows: Sequence[SkillStatus]) -> None:
        """Show ``rows`` (keeping the highlighted skill)."""
        current = self.highlighted_option
        self.set_options(Option(skill_prompt(n, row), id=row.name) for n, row in enumerate(rows, 1))
        names = [row.name for row in rows]
        if current is not None and current.id in names:
            self.highlighted = names.index(current.id)
        active = sum(row.state == "active" for row in rows)
        self.border_title = f"Skills · {active}/{len(rows)} on"

    def action_toggle_highlighted(self) -> None:
        """Ask to toggle the highlighted skill."""
        option = self.highlighted_option
        if option is not None and option.id is not None:
            self.post_message(self.ToggleRequested(option.id))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.ToggleRequested(event.option.id))
