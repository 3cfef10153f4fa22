"""The dropdown under the prompt: slash-command completions (``app.completion``).

Textual's ``OptionList``, never focused: the prompt keeps the focus and its keys (Tab accepts,
Up and Down move, Esc closes) reach the list through the main screen. A click on an option
accepts it too. Hidden while there is nothing to complete.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.app.completion import Completion

__all__ = ["CompletionList"]


def _prompt(candidate: Completion) -> Content:
    help_text = "  " + candidate.help if candidate.help else ""
    return Content.assemble((candidate.label, "bold"), (help_text, "$text-muted"))


class CompletionList(OptionList, can_focus=False):
    """Candidates for the prompt's text; ``-open`` while it lists any."""

    DEFAULT_CSS = """
    CompletionList {
        display: none;
        height: auto;
        max-height: 8;
        border: none;
        padding: 0 1;
        background: $surface;
        &.-open {
            display: block;
        }
    }
    """

    class Accepted(Message):
        """A candidate was clicked."""

        def __init__(self, completion: Completion) -> None:
            self.completion = completion
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.candidates: tuple[Completion, ...] = ()
        """What is listed, in order."""

    @property
    def is_open(self) -> bool:
        """Whether candidates are listed."""
        return bool(self.candidates)

    def show(self, candidates: Sequence[Completion]) -> None:
        """List ``candidates`` (none: hide), the first highlighted."""
        self.candidates = tuple(candidates)
        self.set_options(Option(_prompt(c)) for c in self.candidates)
        self.highlighted = 0 if self.candidates else None
        self.set_class(self.is_open, "-open")

    def move(self, step: int) -> None:
        """Move the highlight ``step`` rows, wrapping round."""
        if self.candidates:
            current = self.highlighted or 0
            self.highlighted = (current + step) % len(self.candidates)

    @property
    def chosen(self) -> Completion | None:
        """The highlighted candidate."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.candidates):
            return None
        return self.candidates[index]

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if 0 <= event.option_index < len(self.candidates):
            self.post_message(self.Accepted(self.candidates[event.option_index]))
