"""An inline permission prompt: a tool wants to act; only a deliberate action answers it.

A change to a file's text shows what it changes before it is allowed: the tool's diff of the
file (``PermissionRequest.preview``), its first ``PREVIEW_LINES`` lines while the prompt waits,
all of it once the prompt has the focus.

Typing never answers a prompt. When one appears the focus stays where it was (the prompt
editor, usually), so text typed ahead keeps going there. The prompt is answered only after the
user turns to it: F8 (a key that types nothing; remappable) or Tab focuses it, and then
``a``/``r``/``R`` answer; or a click on one of its buttons. "Allow always" asks again in a
dialog whose default is Cancel (``screens/allow_always.py``, imported when first opened).
Printable keys the prompt does not bind, typed while it has focus, still go to the prompt
editor (the main screen forwards them).

Its answer goes to the run through the callback carried by its entry; afterwards (or when the
run ends first) it stays in the conversation as a record of what was decided.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from steiner_tui.app.plain import printable
from steiner_tui.app.tool_view import hunk_lines
from steiner_tui.app.transcript import PermissionEntry
from steiner_tui.tools.base import PermissionDecision
from steiner_tui.units import counted

__all__ = ["PermissionPrompt"]

_GROUP = Binding.Group("Permission")
_WORDS = {
    PermissionDecision.ALLOW_ONCE: "allowed once",
    PermissionDecision.ALLOW_ALWAYS: "allowed for the rest of the session",
    PermissionDecision.REJECT_ONCE: "rejected once",
    PermissionDecision.REJECT_ALWAYS: "rejected for the rest of the session",
}
_HINT = "F8 to answer, then a allow once · A allow always… · r reject once · R reject always"
_HINT_FOCUSED = "a allow once · A allow always… · r reject once · R reject always · Esc back"
_BUTTONS: tuple[tuple[str, str, ButtonVariant], ...] = (
    ("allow_once", "Allow once", "success"),
    ("allow_always", "Allow always…", "warning"),
    ("reject_once", "Reject", "default"),
    ("reject_always", "Reject always", "error"),
)


PREVIEW_LINES = 12
"""The lines of a change shown while the prompt waits without the focus (F8 shows them all)."""


def prompt_text(entry: PermissionEntry, focused: bool = False) -> Content:
    """What the prompt says: the request, the change it makes to a file (its first lines, or
    all of it once the prompt has the focus), then the keys; or the answer once given."""
    request = entry.request
    who = f"{request.tool} (sub-agent {request.agent})" if request.agent else request.tool
    head = Content.assemble(
        ("permission ", "bold $text-warning"),
        Content(printable(f"{who} wants to run: {request.summary}") + "\n"),
    )
    if entry.decision is not None:
        return head + Content(f"→ {_WORDS[entry.decision]}")
    if entry.closed:
        return head + Content("→ no answer (the run ended)")
    change = hunk_lines(request.preview)
    if not focused and len(change) > PREVIEW_LINES:
        hidden = len(change) - PREVIEW_LINES
        more = f"… {counted(hidden, 'more line')} of the change: F8 shows them all"
        change = [*change[:PREVIEW_LINES], Content.styled(more, "$text-muted")]
    lines = [*change, Content.styled(_HINT_FOCUSED if focused else _HINT, "$text-muted")]
    return head + Content("\n").join(lines)


class PermissionPrompt(Vertical, can_focus=True):
    """Asks once; ``-open`` while it waits for an answer."""

    DEFAULT_CSS = """
    PermissionPrompt {
        height: auto;
        padding: 0 1;
        border: round $foreground 25%;
        color: $text-muted;
        & > .permission-buttons {
            height: auto;
            display: none;
            & > Button {
                margin: 0 1 0 0;
            }
        }
        &.-open {
            border: round $warning;
            color: $text;
            & > .permission-buttons {
                display: block;
            }
        }
        &.-open:focus {
            border: double $warning;
            background: $warning-muted;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "answer('allow_once')", "Allow once", id="permission.allow_once",
                tooltip="Let this call run", group=_GROUP),
        Binding("A", "answer('allow_always')", "Allow always…", id="permission.allow_always",
                tooltip="Let every call of this tool run this session (asks to confirm)",
                group=_GROUP),
        Binding("r", "answer('reject_once')", "Reject once", id="permission.reject_once",
                tooltip="Refuse this call; the model is told", group=_GROUP),
        Binding("R", "answer('reject_always')", "Reject always", id="permission.reject_always",
                tooltip="Refuse every call of this tool this session", group=_GROUP),
        Binding("escape", "leave", "Back", id="permission.leave", show=False,
                tooltip="Back to the prompt without answering"),
    ]  # fmt: skip
    """The answers, once the prompt has the focus (F8, Tab or a click gives it)."""

    class Done(Message):
        """The prompt was answered, or the user went back without answering."""

        def __init__(self, prompt: PermissionPrompt) -> None:
            self.prompt = prompt
            super().__init__()

        @property
        def control(self) -> PermissionPrompt:
            """The prompt."""
            return self.prompt

    def __init__(self, entry: PermissionEntry) -> None:
        super().__init__(classes="conversation-item")
        self.entry = entry
        """The request and its answer."""
        self.set_class(self.is_open, "-open")

    def compose(self) -> ComposeResult:
        yield Static(prompt_text(self.entry), classes="permission-text")
        with Horizontal(classes="permission-buttons"):
            for value, label, variant in _BUTTONS:
                button = Button(label, id=f"permission-{value}", variant=variant, compact=True)
                button.can_focus = False  # a key typed ahead never presses one
                yield button

    @property
    def is_open(self) -> bool:
        """Whether an answer is still awaited."""
        return self.entry.decision is None and not self.entry.closed

    @property
    def text(self) -> Content:
        """What the prompt says now."""
        return prompt_text(self.entry, self.has_focus)

    def _refresh(self, focused: bool | None = None) -> None:
        shown = self.has_focus if focused is None else focused
        self.query_one(".permission-text", Static).update(prompt_text(self.entry, shown))
        self.set_class(self.is_open, "-open")

    # (These run before Widget's own focus handlers, which set ``has_focus``.)
    def on_focus(self) -> None:
        """Show the keys that answer."""
        self._refresh(focused=True)

    def on_blur(self) -> None:
        """Show how to come back."""
        self._refresh(focused=False)

    def action_answer(self, value: str) -> None:
        """Answer the request (once); "allow always" asks for a confirmation first."""
        if not self.is_open:
            return
        decision = PermissionDecision(value)
        if decision is PermissionDecision.ALLOW_ALWAYS:

            def confirmed(allow: bool | None) -> None:
                if allow:
                    self._decide(decision)

            from steiner_tui.app.screens.allow_always import ConfirmAllowAlways

            self.app.push_screen(ConfirmAllowAlways(self.entry.request.tool), confirmed)
            return
        self._decide(decision)

    def _decide(self, decision: PermissionDecision) -> None:
        if not self.is_open:
            return
        self.entry.decision = decision
        self.entry.answer(decision)
        self._refresh()
        self.post_message(self.Done(self))

    def action_leave(self) -> None:
        """Go back to the prompt without answering."""
        self.post_message(self.Done(self))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id is not None:
            self.action_answer(event.button.id.removeprefix("permission-"))

    def close(self) -> None:
        """The run ended without an answer: stop accepting one."""
        if self.is_open:
            self.entry.closed = True
            self._refresh()
