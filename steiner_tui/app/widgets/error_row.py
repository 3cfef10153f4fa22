"""An error in the conversation: what went wrong and what the user can do, kept in place.

A turn that ends in an error (the provider refused the request, the request does not fit the
window, the connection dropped) stays in the conversation as this entry instead of a toast
that is gone in seconds: the provider's message, then each remedy as a line, with the key or
command that carries it out (F5 resends the unanswered message once; ``/compact`` and
``/model`` are typed in the prompt). Text throughout, never markup.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import RETRY_ACTIONS, ErrorEntry

__all__ = ["ErrorRow"]


def error_content(entry: ErrorEntry) -> Content:
    """The lines of the entry."""
    lines = [Content.assemble(("✗ error ", "bold $text-error"), Content(printable(entry.text)))]
    if entry.remedies:
        lines.append(Content.styled("what you can do:", "$text-muted"))
    key_said = not entry.retry  # the key is said once, on the first remedy that resends
    for remedy in entry.remedies:
        line = Content.assemble("  · ", Content(printable(remedy.hint)))
        if not key_said and remedy.action in RETRY_ACTIONS:
            line += Content.assemble(" — ", (f"{entry.retry} resends your message", "bold"))
            key_said = True
        lines.append(line)
    if not key_said and not any(remedy.action == "fix_config" for remedy in entry.remedies):
        # (after a setting to correct, sending again goes where it went: read at start only)
        lines.append(Content.assemble("  · ", (f"{entry.retry} sends your message again", "bold")))
    return Content("\n").join(lines)


class ErrorRow(Static):
    """One error entry (display only)."""

    DEFAULT_CSS = """
    ErrorRow {
        padding: 0 1;
        border-left: thick $error;
        background: $error-muted;
    }
    """

    def __init__(self, entry: ErrorEntry) -> None:
        super().__init__(error_content(entry), classes="conversation-item")
        self.entry = entry
        """The entry shown."""
