"""A tool call in the conversation: a collapsible block with its status and one-line summary.

Running and finished calls start collapsed; a failed call opens so the error is visible. The
block is one widget (a title line, and the output under it when open), not a ``Collapsible``
with a title and a contents widget: a long conversation mounts many blocks and scrolls past them,
and every widget costs time on each frame. Enter or a click toggles it, as on a ``Collapsible``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.selection import Selection
from textual.widget import Widget

from steiner_tui.app.transcript import ToolEntry
from steiner_tui.app.widgets.reply_markdown import LinesVisual, wrap_indented

__all__ = ["ToolBlock"]

_ICONS = {"running": "◌", "done": "✓", "failed": "✗", "rejected": "⊘", "cancelled": "⊘"}
_STATUSES = tuple(_ICONS)
# Styles are theme-variable strings rather than component classes: Textual resolves component
# classes for every widget it mounts, and a long conversation mounts blocks in batches.
_TITLE_STYLES = {
    "running": "$text-warning",
    "failed": "$text-error",
    "rejected": "$text-error",
    "cancelled": "$text-error",
}
# Colour only: ``$block-cursor-blurred-text-style`` is "none" in the built-in themes, which a
# style string cannot parse (each failed parse also ran a suggestion search, on every render).
_TITLE_STYLE = "$block-cursor-blurred-foreground"
_FOCUS_STYLE = "bold $block-cursor-foreground on $block-cursor-background"
_HOVER_STYLE = "$foreground on $block-hover-background"
_OUTPUT_STYLE = "$foreground-muted"
MAX_OUTPUT_LINES = 40
"""Output lines shown inside the block (the model saw all of it)."""
OUTPUT_INDENT = 3


def _title(entry: ToolEntry) -> str:
    icon = _ICONS.get(entry.status, "•")
    return f"{icon} {entry.summary or entry.name} · {entry.status}"


def _output(entry: ToolEntry) -> str:
    lines = entry.output.splitlines()
    if len(lines) > MAX_OUTPUT_LINES:
        hidden = len(lines) - MAX_OUTPUT_LINES
        lines = [*lines[:MAX_OUTPUT_LINES], f"… {hidden} more lines"]
    return "\n".join(lines) if lines else "(running)" if entry.status == "running" else "(empty)"


@dataclass(frozen=True)
class _TitleLook:
    """What the title line shows: its text, and the status, focus and hover that style it."""

    text: str
    status: str
    focused: bool
    hovered: bool


def _lines(title: _TitleLook, output: str | None, width: int) -> list[Content]:
    """The title line, and the ``output`` lines under it (None: collapsed), at ``width``."""
    symbol = "▶" if output is None else "▼"
    line = Content.styled(f" {symbol} {title.text} ", _TITLE_STYLE)
    if title.focused:
        line = line.stylize(_FOCUS_STYLE)
    elif title.hovered:
        line = line.stylize(_HOVER_STYLE)
    if title.status in _TITLE_STYLES:
        line = line.stylize(_TITLE_STYLES[title.status])
    lines = [line.truncate(width)]
    if output is not None:
        for text in Content.styled(output, _OUTPUT_STYLE).split("\n", allow_blank=True):
            lines.extend(wrap_indented(text, width, OUTPUT_INDENT))
    return lines


class ToolBlock(Widget, can_focus=True):
    """One tool call (display only); the status is also a ``-<status>`` class."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_output", "Toggle", show=False, id="conversation.tool_toggle",
                tooltip="Show or hide the tool's output"),
    ]  # fmt: skip
    """Enter opens or closes the block."""
    DEFAULT_CSS = """
    ToolBlock {
        height: auto;
        text-wrap: nowrap;
        text-overflow: clip;
        pointer: pointer;
    }
    """

    collapsed: reactive[bool] = reactive(True, layout=True)
    """Whether only the title line shows."""

    def __init__(self, entry: ToolEntry) -> None:
        # The status class given here rather than by ``_apply_status``: each ``set_class`` call
        # restyles the widget, and a batch of blocks mounts at once.
        super().__init__(classes=f"conversation-item -{entry.status}")
        self.entry = entry
        """The entry shown."""
        self.title = _title(entry)
        """The title line (icon, summary, status)."""
        self.set_reactive(ToolBlock.collapsed, entry.status != "failed")
        self._hovered = False
        """Whether the mouse is over the block (kept from Enter and Leave events)."""
        self._focused = False
        """Whether the block has focus (kept from Focus and Blur events, which run before
        Textual's own handlers update ``has_focus``)."""
        self._visual = self._make_visual()

    def render(self) -> LinesVisual:
        """The title line, and the output when open."""
        return self._visual

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """A block fills its column."""
        return container.width

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text, as drawn."""
        text = self._visual.selected_text(selection, self.content_size.width)
        return None if text is None else (text, "\n")

    def _make_visual(self) -> LinesVisual:
        # The lines are built from the state now, not by a method of the block: a visual that
        # held the block would keep a removed block alive until a full collection.
        title = _TitleLook(self.title, self.entry.status, self._focused, self._hovered)
        output = None if self.collapsed else _output(self.entry)
        return LinesVisual(partial(_lines, title, output))

    def _redraw(self) -> None:
        self._visual = self._make_visual()
        self.refresh(layout=True)

    def watch_collapsed(self) -> None:
        """Redraw with or without the output."""
        self._redraw()

    def on_focus(self) -> None:
        """Highlight the title."""
        self._focused = True
        self._redraw()

    def on_blur(self) -> None:
        """Drop the title's highlight."""
        self._focused = False
        self._redraw()

    # Hover is tracked from these events, not read from ``is_mouse_over`` while drawing: that
    # asks the compositor, and ``_lines`` runs inside a layout (for the block's height), where
    # the answer comes from the previous layout and Textual keeps it for painting the new one.
    def on_enter(self) -> None:
        """Hover style on the title."""
        self._hovered = True
        self._redraw()

    def on_leave(self) -> None:
        """No hover style."""
        self._hovered = False
        self._redraw()

    def action_toggle_output(self) -> None:
        """Open or close the block."""
        self.collapsed = not self.collapsed

    def on_click(self, event: events.Click) -> None:
        """A click toggles, as on a ``Collapsible`` title."""
        event.stop()
        self.action_toggle_output()

    def _apply_status(self) -> None:
        for status in _STATUSES:
            self.set_class(self.entry.status == status, f"-{status}")

    def refresh_entry(self) -> None:
        """Show the entry's current status and output."""
        self.title = _title(self.entry)
        self._apply_status()
        if self.entry.status == "failed":
            self.collapsed = False
        self._redraw()
