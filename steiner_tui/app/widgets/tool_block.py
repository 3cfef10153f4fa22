"""A tool call in the conversation: its status and one-line summary, its result on demand.

Running and finished calls start collapsed; a failed call opens so the error is visible. Enter
or a click toggles the result, as on a ``Collapsible``. The result is the tool's own text
(``app.tool_view``: a read's numbered lines and an edit's diff highlighted, a command's output
as printed), never Markdown or markup. A running command shows a second line while it prints:
its lines so far and the last one (``ToolOutputProgress``), so a long build says it is alive.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.tool_view import tool_body
from steiner_tui.app.transcript import ToolEntry
from steiner_tui.app.widgets.reply import PIN_MARK
from steiner_tui.engine.events import OutputCut
from steiner_tui.engine.tool_results import exit_code
from steiner_tui.units import byte_count, count, counted

__all__ = ["ToolBlock", "tool_content"]

_ICONS = {"running": "◌", "done": "✓", "failed": "✗", "rejected": "⊘", "cancelled": "⊘"}
_STATUSES = tuple(_ICONS)
_INDENT = Content("   ")
_MIN_WRAP = 10
"""Below this many columns beside the indent, result lines wrap as the widget wraps them."""


def cut_summary(cut: OutputCut) -> str:
    """What a bounded result kept: ``cut: kept 12.0 kB of 244.1 kB (120 of 2,000 lines)``."""
    return (
        f"cut: kept {byte_count(cut.shown_bytes)} of {byte_count(cut.total_bytes)} "
        f"({count(cut.shown_lines)} of {counted(cut.total_lines, 'line')})"
    )


def _title(entry: ToolEntry, collapsed: bool, pinned: bool) -> Content:
    icon = _ICONS.get(entry.status, "•")
    summary = printable(entry.summary or entry.name)
    # A command that exited non-zero ran (done), and its code is what a glance looks for.
    code = exit_code(entry.output) if entry.status == "done" else None
    failing = ("", "") if not code else (" · ", (f"exit {code}", "bold $text-warning"))
    cut = "" if entry.cut is None else f" · {cut_summary(entry.cut)}"
    start = f"{'▶' if collapsed else '▼'} {icon} "
    # The pin first, before the summary: a collapsed block is cut to the width at its end.
    pin = ("", "") if not pinned else ((PIN_MARK, "bold $text-primary"), " · ")
    return Content.assemble(start, *pin, f"{summary} · {entry.status}", *failing, cut)


def _so_far(entry: ToolEntry) -> Content | None:
    """A running command's line under its closed title: its lines so far and the last one
    (None: it has printed nothing yet, or it is not running)."""
    if entry.status != "running" or not entry.lines:
        return None
    last = printable(entry.output.rsplit("\n", 1)[-1])
    return _INDENT + Content.assemble(
        (f"{counted(entry.lines, 'line')} so far", "dim"), f": {last}"
    )


def tool_content(
    entry: ToolEntry, collapsed: bool, pinned: bool = False, width: int = 0
) -> Content:
    """The title line, and the result under it unless ``collapsed`` (text throughout); a
    pinned result's title has the pin mark. With the block's ``width`` each result line is
    wrapped to the width its indent leaves, so its continuation rows keep the indent."""
    title = _title(entry, collapsed, pinned)
    if collapsed:
        so_far = _so_far(entry)
        return title if so_far is None else Content("\n").join([title, so_far])
    body = list(tool_body(entry.name, entry.arguments, entry.status, entry.output))
    if entry.cut is not None and entry.cut.saved_at:
        body.append(Content(f"(the whole output: {printable(entry.cut.saved_at)})"))
    room = width - _INDENT.cell_length
    if room >= _MIN_WRAP:
        body = [row for line in body for row in (line.wrap(room) or [line])]
    return Content("\n").join([title, *(_INDENT + line for line in body)])


class ToolBlock(Static, can_focus=True):
    """One tool call (display only); the status is also a ``-<status>`` class."""

    DEFAULT_CSS = """
    ToolBlock {
        background: $surface;
        pointer: pointer;
        &.-collapsed {
            text-wrap: nowrap;
            text-overflow: ellipsis;
        }
        &.-running {
            color: $text-warning;
        }
        &.-failed, &.-rejected, &.-cancelled {
            color: $text-error;
        }
        &:hover {
            background: $block-hover-background;
        }
        &:focus {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_output", "Toggle", show=False, id="conversation.tool_toggle",
                tooltip="Show or hide the tool's output"),
    ]  # fmt: skip
    """Enter opens or closes the block."""

    collapsed: reactive[bool] = reactive(True, toggle_class="-collapsed")
    """Whether only the title line shows (one line, cut to the width)."""

    def __init__(self, entry: ToolEntry, pinned: bool = False) -> None:
        collapsed = entry.status != "failed"
        classes = f"conversation-item -{entry.status}{' -collapsed' if collapsed else ''}"
        super().__init__(tool_content(entry, collapsed, pinned), classes=classes)
        self._width = 0
        """The width the open output was wrapped to (0: not laid out yet)."""
        self.entry = entry
        """The entry shown."""
        self.pinned = pinned
        """Whether its title shows the pin mark."""
        self.set_reactive(ToolBlock.collapsed, collapsed)  # its class is given above

    def watch_collapsed(self) -> None:
        """Show or hide the output."""
        self.update(tool_content(self.entry, self.collapsed, self.pinned, self._width))

    def on_resize(self) -> None:
        """An open block's output is wrapped again to the new width (under its indent)."""
        width = self.content_region.width
        if width != self._width:
            self._width = width
            if not self.collapsed:
                self.update(tool_content(self.entry, self.collapsed, self.pinned, width))

    def show_pin(self, pinned: bool) -> None:
        """Show or take away the pin mark."""
        if pinned != self.pinned:
            self.pinned = pinned
            self.update(tool_content(self.entry, self.collapsed, pinned, self._width))

    def action_toggle_output(self) -> None:
        """Open or close the block."""
        self.collapsed = not self.collapsed

    def on_click(self, event: events.Click) -> None:
        """A click toggles, as on a ``Collapsible`` title."""
        event.stop()
        self.action_toggle_output()

    def refresh_entry(self) -> None:
        """Show the entry's current status and output (a failure opens the block)."""
        for status in _STATUSES:
            self.set_class(self.entry.status == status, f"-{status}")
        if self.entry.status == "failed" and self.collapsed:
            self.collapsed = False  # redraws
        else:
            self.update(tool_content(self.entry, self.collapsed, self.pinned, self._width))
