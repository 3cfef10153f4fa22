"""A tool call in the conversation: a collapsible block with its status and one-line summary.

Running and finished calls start collapsed; a failed call opens so the error is visible.
"""

from __future__ import annotations

from textual.markup import escape
from textual.widgets import Collapsible, Static

from steiner_tui.app.transcript import ToolEntry

__all__ = ["ToolBlock"]

_ICONS = {"running": "◌", "done": "✓", "failed": "✗", "rejected": "⊘", "cancelled": "⊘"}
_STATUSES = tuple(_ICONS)
MAX_OUTPUT_LINES = 40
"""Output lines shown inside the block (the model saw all of it)."""


def _title(entry: ToolEntry) -> str:
    icon = _ICONS.get(entry.status, "•")
    return escape(f"{icon} {entry.summary or entry.name} · {entry.status}")


def _output(entry: ToolEntry) -> str:
    lines = entry.output.splitlines()
    if len(lines) > MAX_OUTPUT_LINES:
        hidden = len(lines) - MAX_OUTPUT_LINES
        lines = [*lines[:MAX_OUTPUT_LINES], f"… {hidden} more lines"]
    return "\n".join(lines) if lines else "(running)" if entry.status == "running" else "(empty)"


class ToolBlock(Collapsible):
    """One tool call (display only); the status is also a ``-<status>`` class."""

    def __init__(self, entry: ToolEntry) -> None:
        self.entry = entry
        """The entry shown."""
        self._output = Static(_output(entry), markup=False, classes="tool-output")
        super().__init__(
            self._output,
            title=_title(entry),
            collapsed=entry.status != "failed",
            classes="conversation-item",
        )
        self._apply_status()

    def _apply_status(self) -> None:
        for status in _STATUSES:
            self.set_class(self.entry.status == status, f"-{status}")

    def refresh_entry(self) -> None:
        """Show the entry's current status and output."""
        self.title = _title(self.entry)
        self._output.update(_output(self.entry))
        self._apply_status()
        if self.entry.status == "failed":
            self.collapsed = False
