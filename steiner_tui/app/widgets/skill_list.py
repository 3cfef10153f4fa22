"""The skill sidebar: every discovered skill with its size and state; Space or Enter toggles.

Toggling only asks: the screen changes the driver's enabled set, and the change goes out as an
envelope with the next message ("pending on/off" until then). The list shows what the driver
reports after each change. It is Textual's ``OptionList``, one option per skill keyed by its
name; the prompts are assembled from the skill's data as plain text (never parsed as markup)
with theme colours.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.app.plain import printable
from steiner_tui.engine.skills.delta import SkillStatus, skill_counts
from steiner_tui.units import byte_count

__all__ = ["KEYS_HINT", "SkillList", "skill_prompt", "skills_subtitle", "skills_title"]

KEYS_HINT = "Space · 1-9 toggle"
"""The sidebar's subtitle while nothing is pending."""

_STATES = {
    "active": ("● active", "$text-success"),
    "inactive": ("○ inactive", "$text-muted"),
    "pending_activation": ("◐ pending on", "$text-warning"),
    "pending_deactivation": ("◑ pending off", "$text-warning"),
}


def skills_title(rows: Sequence[SkillStatus]) -> str:
    """``Skills · 1/3 on``: the skills in force now, of all."""
    counts = skill_counts(rows)
    return f"Skills · {counts.in_force}/{counts.total} on"


def skills_subtitle(rows: Sequence[SkillStatus]) -> str:
    """``2 pending · Space/1-9``: what changes with the next message, and the keys; only the
    keys while nothing is pending. The sidebar's 28 columns leave a title 22 (the title
    with the pending count was cut to "1 p…"), so the count has the subtitle's room."""
    pending = skill_counts(rows).pending
    return f"{pending} pending · Space/1-9" if pending else KEYS_HINT


def skill_prompt(number: int, row: SkillStatus) -> Content:
    """The row for ``row`` (``number`` 1-9 shows its key): two lines, three with leftovers."""
    key = str(number) if number <= 9 else " "
    name = Content.assemble((key, "$text-accent"), " ", (printable(row.name), "bold"))
    if row.truncated:
        name += Content.assemble(" ", ("✂ cut", "$text-error"))
    state, style = _STATES[row.state]
    detail = Content.assemble(
        "  ", (state, style), ("  " + byte_count(row.size_bytes), "$text-muted")
    )
    if row.leftover_inactive:
        detail += Content.assemble("\n  ", ("leftover text until compaction", "$text-muted"))
    return Content.assemble(name, "\n", detail)


class SkillList(OptionList):
    """The skills (display only); options are keyed by skill name."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False, id="skills.up",
                tooltip="Highlight the skill above"),
        Binding("down", "cursor_down", "Down", show=False, id="skills.down",
                tooltip="Highlight the skill below"),
        Binding("home", "first", "First", show=False, id="skills.first",
                tooltip="Highlight the first skill"),
        Binding("end", "last", "Last", show=False, id="skills.last",
                tooltip="Highlight the last skill"),
        Binding("enter", "select", "Toggle", show=False, id="skills.toggle_enter",
                tooltip="Toggle the highlighted skill"),
        Binding("space", "select", "Toggle skill", id="skills.toggle_focused",
                tooltip="Toggle the highlighted skill; it changes with your next message"),
        *(
            Binding(str(n), f"toggle_row({n - 1})", "Skills", id=f"skills.toggle_{n}",
                    show=False, tooltip="Toggle the skill on that row (sent with your next "
                    "message)")
            for n in range(1, 10)
        ),
    ]  # fmt: skip
    """Cursor keys; Space and Enter toggle the highlighted skill, 1-9 the skill on that row.

    The digit keys belong to the sidebar: they act only while it has the focus. Anywhere else
    outside the prompt a digit is text, and goes to the prompt like any printable key."""

    class ToggleRequested(Message):
        """The user asked to toggle skill ``name``."""

        def __init__(self, name: str) -> None:
            self.name = name
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Skills"  # until the first rows arrive
        self.border_subtitle = KEYS_HINT

    @property
    def highlighted_name(self) -> str | None:
        """The highlighted skill's name."""
        option = self.highlighted_option
        return None if option is None else option.id

    def show(self, rows: Sequence[SkillStatus]) -> None:
        """Show ``rows`` (keeping the highlighted skill)."""
        current = self.highlighted_name
        self.set_options(Option(skill_prompt(n, row), id=row.name) for n, row in enumerate(rows, 1))
        names = [row.name for row in rows]
        if current in names:
            self.highlighted = names.index(current)
        elif names:
            self.highlighted = 0
        self.border_title = skills_title(rows)
        self.border_subtitle = skills_subtitle(rows)

    def action_toggle_row(self, index: int) -> None:
        """Ask to toggle the skill on row ``index`` (0-based)."""
        if 0 <= index < self.option_count:
            name = self.get_option_at_index(index).id
            if name is not None:
                self.post_message(self.ToggleRequested(name))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(self.ToggleRequested(event.option.id))
