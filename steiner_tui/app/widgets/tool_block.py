"""A tool call in the conversation: a collapsible block with its status and one-line summary.

Running and finished calls start collapsed; a failed call opens so the error is visible. The
block is one widget (a title line, and the output under it when open), not a ``Collapsible``
with a title and a contents widget: a long conversation mounts many blocks and scrolls past them,
and every widget costs time on each frame. Enter or a click toggles it, as on a ``Collapsible``.
"""

from __future__ import annotations

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
# style string cannot parse (each failed parse also ran a suggestion search, ~1 ms a render).
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
        self._visual = LinesVisual(self._lines)

    def _lines(self, width: int) -> list[Content]:
        symbol = "▶" if self.collapsed else "▼"
        title = Content.styled(f" {symbol} {self.title} ", _TITLE_STYLE)
        if self.has_focus:
            title = title.stylize(_FOCUS_STYLE)
        elif self._hovered:
            title = title.stylize(_HOVER_STYLE)
        if self.entry.status in _TITLE_STYLES:
            title = title.stylize(_TITLE_STYLES[self.entry.status])
        lines = [title.truncate(width)]
        if not self.collapsed:
            output = Content.styled(_output(self.entry), _OUTPUT_STYLE)
            for line in output.split("\n", allow_blank=True):
                lines.extend(wrap_indented(line, width, OUTPUT_INDENT))
        return lines

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

    def _redraw(self) -> None:
        self._visual = LinesVisual(self._lines)
        self.refresh(layout=True)

    def watch_collapsed(self) -> None:
        """Redraw with or without the output."""
        self._redraw()

    def on_focus(self) -> None:
        """Highlight the title."""
        self._redraw()

    def on_blur(self) -> None:
        """Drop the title's highlight."""
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
