"""An inline permission prompt: a tool wants to act; a/A/r/R answer it.

The prompt takes focus when it appears. Its answer goes to the run through the callback carried
by its entry; afterwards (or when the run ends first) it stays in the conversation as a record
of what was decided.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from steiner_tui.app.transcript import PermissionEntry
from steiner_tui.tools.base import PermissionDecision

__all__ = ["PermissionPrompt"]

_GROUP = Binding.Group("Permission")
_WORDS = {
    PermissionDecision.ALLOW_ONCE: "allowed once",
    PermissionDecision.ALLOW_ALWAYS: "allowed for the rest of the session",
    PermissionDecision.REJECT_ONCE: "rejected once",
    PermissionDecision.REJECT_ALWAYS: "rejected for the rest of the session",
}
_KEYS = (
    "[b]a[/b] allow once · [b]A[/b] allow always · [b]r[/b] reject once · [b]R[/b] reject always"
)


def _content(entry: PermissionEntry) -> Content:
    head = Content.assemble(
        ("permission ", "bold $text-warning"),
        f"{entry.request.tool} wants to run: {entry.request.summary}\n",
    )
    if entry.decision is not None:
        return head + Content(f"→ {_WORDS[entry.decision]}")
    if entry.closed:
        return head + Content("→ no answer (the run ended)")
    return head + Content.from_markup(_KEYS)


class PermissionPrompt(Static, can_focus=True):
    """Asks once; ``-open`` while it waits for an answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer('allow_once')", "Allow once", id="permission.allow_once",
                tooltip="Let this call run", group=_GROUP),
        Binding("A", "answer('allow_always')", "Allow always", id="permission.allow_always",
                tooltip="Let every call of this tool run this session", group=_GROUP),
        Binding("r", "answer('reject_once')", "Reject once", id="permission.reject_once",
                tooltip="Refuse this call; the model is told", group=_GROUP),
        Binding("R", "answer('reject_always')", "Reject always", id="permission.reject_always",
                tooltip="Refuse every call of this tool this session", group=_GROUP),
    ]  # fmt: skip
    """The four answers."""

    def __init__(self, entry: PermissionEntry) -> None:
        super().__init__(_content(entry), classes="conversation-item")
        self.entry = entry
        """The request and its answer."""
        self.set_class(self.is_open, "-open")

    @property
    def is_open(self) -> bool:
        """Whether an answer is still awaited."""
        return self.entry.decision is None and not self.entry.closed

    def _refresh(self) -> None:
        self.update(_content(self.entry))
        self.set_class(self.is_open, "-open")

    def action_answer(self, value: str) -> None:
        """Answer the request (once)."""
        if not self.is_open:
            return
        decision = PermissionDecision(value)
        self.entry.decision = decision
        self.entry.answer(decision)
        self._refresh()

    def close(self) -> None:
        """The run ended without an answer: stop accepting one."""
        if self.is_open:
            self.entry.closed = True
            self._refresh()
