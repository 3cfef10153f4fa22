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
    """One tool call (display only); the status is also a ``-<status>`` class.

    The output widget is created on first expansion: most blocks are never opened, and a long
    conversation mounts many of them.
    """

    def __init__(self, entry: ToolEntry) -> None:
        self.entry = entry
        """The entry shown."""
        self._output: Static | None = None
        collapsed = entry.status != "failed"
        children = [] if collapsed else [self._make_output()]
        super().__init__(
            *children, title=_title(entry), collapsed=collapsed, classes="conversation-item"
        )
        self._apply_status()

    def _make_output(self) -> Static:
        self._output = Static(_output(self.entry), markup=False, classes="tool-output")
        return self._output

    async def _on_collapsible_expanded(self, event: Collapsible.Expanded) -> None:
        if event.collapsible is self and self._output is None:
            await self.query_one(Collapsible.Contents).mount(self._make_output())

    def _apply_status(self) -> None:
        for status in _STATUSES:
            self.set_class(self.entry.status == status, f"-{status}")

    def refresh_entry(self) -> None:
        """Show the entry's current status and output."""
        self.title = _title(self.entry)
        if self._output is not None:
            self._output.update(_output(self.entry))
        self._apply_status()
        if self.entry.status == "failed":
            self.collapsed = False
