"""The status line: execution mode, model, run state, compaction mode, project and pending
file changes."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["StatusLine"]


class StatusLine(Widget):
    """One row of session state (display only); ``-busy`` and ``-plan`` mirror the reactives."""

    DEFAULT_CSS = """
    StatusLine { height: 1; }
    """

    mode: reactive[str] = reactive("build")
    """The execution mode (``build`` or ``plan``)."""
    busy: reactive[bool] = reactive(False, toggle_class="-busy")
    """Whether a run is generating."""
    model: reactive[str] = reactive("")
    """How the model is named."""
    project: reactive[str] = reactive("")
    """The project folder's name."""
    compaction: reactive[str] = reactive("auto")
    """The compaction mode (``auto``, ``ask``, ``off``)."""
    generation: reactive[int] = reactive(0)
    """The active conversation generation."""
    pending_reload: reactive[str] = reactive("")
    """Files changed on disk that wait for the next compaction, and the cost of reloading now
    ("" when nothing is pending)."""

    def watch_mode(self, mode: str) -> None:
        self.set_class(mode == "plan", "-plan")

    def render(self) -> Content:
        mode_style = "bold $text-warning" if self.mode == "plan" else "bold $text-success"
        state = ("● generating · Esc cancels", "$text-warning") if self.busy else ("idle", "")
        compaction_style = "" if self.compaction == "auto" else "$text-warning"
        parts: list[Content | str | tuple[str, str]] = [
            (f" {self.mode.upper()} ", f"reverse {mode_style}"),
            " ⇧Tab  │ ",
            (self.model, "$text-accent"),
            " │ ",
            state,
            (f" │ compaction {self.compaction}", compaction_style),
            f" │ generation {self.generation}" if self.generation else "",
            f" │ {self.project}",
        ]
        if self.pending_reload:
            parts += [" │ ", (f"⟳ {self.pending_reload}", "$text-warning")]
        return Content.assemble(*parts)
