"""The skill sidebar: every discovered skill with its size and state; Space or Enter toggles.

Toggling only asks: the screen changes the driver's enabled set, and the change goes out as an
envelope with the next message ("pending on/off" until then). The list shows what the driver
reports after each change.

The sidebar is on the first frame, so it is drawn line by line from a few cached strips (a
``ScrollView``), not from a general option list: with a handful of rows there is nothing to
virtualize, and a lighter widget keeps start-up close to a bare Textual app's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual

from steiner_tui.app.messages import PanelMounted
from steiner_tui.engine.skills.delta import SkillStatus, skill_counts
from steiner_tui.units import byte_count

__all__ = ["SkillList", "skill_prompt", "skills_title"]

_STATES = {
    "active": ("● active", "$text-success"),
    "inactive": ("○ inactive", "$text-muted"),
    "pending_activation": ("◐ pending on", "$text-warning"),
    "pending_deactivation": ("◑ pending off", "$text-warning"),
}


def skills_title(rows: Sequence[SkillStatus]) -> str:
    """``Skills · 1/3 on · 2 pending``: in force now, of all; what changes with the next message."""
    counts = skill_counts(rows)
    title = f"Skills · {counts.in_force}/{counts.total} on"
    return f"{title} · {counts.pending} pending" if counts.pending else title


def skill_prompt(number: int, row: SkillStatus) -> Content:
    """The row for ``row`` (``number`` 1-9 shows its key): two lines, three with leftovers."""
    key = str(number) if number <= 9 else " "
    name = Content.assemble((key, "$text-accent"), " ", (row.name, "bold"))
    if row.truncated:
        name += Content.assemble(" ", ("✂ cut", "$text-error"))
    state, style = _STATES[row.state]
    detail = Content.assemble(
        "  ", (state, style), ("  " + byte_count(row.size_bytes), "$text-muted")
    )
    if row.leftover_inactive:
        detail += Content.assemble("\n  ", ("leftover text until compaction", "$text-muted"))
    return Content.assemble(name, "\n", detail)


class _RowCursor(ScrollView):
    """Moving a highlight over rows of a few lines each (the keys OptionList users know)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, id="skills.up",
                tooltip="Highlight the skill above"),
        Binding("down", "cursor(1)", "Down", show=False, id="skills.down",
                tooltip="Highlight the skill below"),
        Binding("home", "first", "First", show=False, id="skills.first",
                tooltip="Highlight the first skill"),
        Binding("end", "last", "Last", show=False, id="skills.last",
                tooltip="Highlight the last skill"),
        Binding("enter", "toggle_highlighted", "Toggle", show=False, id="skills.toggle_enter",
                tooltip="Toggle the highlighted skill"),
    ]  # fmt: skip
    """Cursor keys and Enter."""

    def action_toggle_highlighted(self) -> None:
        """Subclasses say what Enter does."""


class SkillList(_RowCursor, can_focus=True):
    """The skills (display only); rows are keyed by skill name."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"skill-list--cursor"}
    """The highlighted row (styled in styles/main.tcss, brighter while focused)."""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_highlighted", "Toggle skill", id="skills.toggle_focused",
                tooltip="Toggle the highlighted skill; it changes with your next message"),
    ]  # fmt: skip
    """Space toggles the highlighted row (Enter does too)."""

    highlighted: reactive[int | None] = reactive(None)
    """The highlighted row's index, or None when there are no rows."""

    @dataclass
    class ToggleRequested(Message):
        """The user asked to toggle skill ``name``."""

        name: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._names: list[str] = []
        self._prompts: list[Content] = []
        self._lines: list[tuple[int, int]] = []
        """(row, line within the row) for each line of the list."""
        self._first_line: list[int] = []
        self._strips: dict[tuple[int, bool, int], list[Strip]] = {}

    def on_mount(self) -> None:
        """Ask for data."""
        self.border_title = "Skills"
        self.border_subtitle = "Space · 1-9 toggle"
        self.post_message(PanelMounted())

    # -- data --------------------------------------------------------------------------------

    def prompt_of(self, name: str) -> Content | None:
        """What the row of skill ``name`` shows, if it is listed."""
        if name not in self._names:
            return None
        return self._prompts[self._names.index(name)]

    @property
    def highlighted_name(self) -> str | None:
        """The highlighted skill's name."""
        index = self.highlighted
        return None if index is None else self._names[index]

    def show(self, rows: Sequence[SkillStatus]) -> None:
        """Show ``rows`` (keeping the highlighted skill)."""
        current = self.highlighted_name
        self._names = [row.name for row in rows]
        self._prompts = [skill_prompt(n, row) for n, row in enumerate(rows, 1)]
        self._lines = []
        self._first_line = []
        for index, prompt in enumerate(self._prompts):
            self._first_line.append(len(self._lines))
            self._lines.extend((index, line) for line in range(prompt.plain.count("\n") + 1))
        self._strips.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._lines))
        if current in self._names:
            self.highlighted = self._names.index(current)
        else:
            self.highlighted = 0 if self._names else None
        self.border_title = skills_title(rows)
        self.refresh()

    # -- highlight and keys ------------------------------------------------------------------

    def validate_highlighted(self, index: int | None) -> int | None:
        if index is None or not self._names:
            return None
        return max(0, min(index, len(self._names) - 1))

    def watch_highlighted(self, index: int | None) -> None:
        if index is not None and self._first_line:
            first = self._first_line[index]
            end = self._first_line[index + 1] if index + 1 < len(self._names) else len(self._lines)
            self.scroll_to_region(Region(0, first, 1, end - first), animate=False, force=True)
        self.refresh()

    def action_cursor(self, step: int) -> None:
        """Move the highlight ``step`` rows."""
        if self.highlighted is not None:
            self.highlighted += step

    def action_first(self) -> None:
        """Highlight the first row."""
        self.highlighted = 0

    def action_last(self) -> None:
        """Highlight the last row."""
        self.highlighted = len(self._names) - 1

    def action_toggle_highlighted(self) -> None:
        """Ask to toggle the highlighted skill."""
        name = self.highlighted_name
        if name is not None:
            self.post_message(self.ToggleRequested(name))

    def on_click(self, event: events.Click) -> None:
        """A click highlights a row and toggles it (as Enter does)."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        line = self.scroll_offset.y + offset.y
        if 0 <= line < len(self._lines):
            self.highlighted = self._lines[line][0]
            self.action_toggle_highlighted()

    # -- drawing -----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """Focus and theme change the row styles: draw them again."""
        self._strips.clear()
        super().notify_style_update()

    def on_resize(self) -> None:
        """Rows are drawn to the width: redraw, and keep the scroll height."""
        self._strips.clear()
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._lines))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = self.scroll_offset.y + y
        if line >= len(self._lines):
            return Strip.blank(width, self.visual_style.rich_style)
        index, offset = self._lines[line]
        cursor = index == self.highlighted
        key = (index, cursor, width)
        strips = self._strips.get(key)
        if strips is None:
            style = self.get_visual_style("skill-list--cursor") if cursor else self.visual_style
            strips = [
                strip.extend_cell_length(width, style.rich_style)
                for strip in Visual.to_strips(self, self._prompts[index], width, None, style)
            ]
            self._strips[key] = strips
        return strips[offset] if offset < len(strips) else Strip.blank(width)
