"""The dialog before a tool is allowed for the rest of the session: Cancel is the default.

The inline permission prompt (``widgets/permission_prompt.py``) opens it for "Allow always";
like the other screens it is imported when first opened.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

__all__ = ["ConfirmAllowAlways"]


class ConfirmAllowAlways(ModalScreen[bool]):
    """Asks before a tool is allowed for the rest of the session; Cancel is the default."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(False)", "Cancel", id="permission.confirm_cancel",
                tooltip="Do not allow it for the session"),
    ]  # fmt: skip
    """Escape cancels; the buttons answer (Tab moves between them, Enter presses one)."""

    DEFAULT_CSS = """
    ConfirmAllowAlways { align: center middle; }
    ConfirmAllowAlways > #confirm-always {
        width: 64; height: auto; border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmAllowAlways #confirm-always-buttons { height: auto; margin: 1 0 0 0; }
    ConfirmAllowAlways Button { margin: 0 1 0 0; }
    """

    def __init__(self, tool: str) -> None:
        super().__init__()
        self.tool = tool
        """The tool to allow."""

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-always") as box:
            box.border_title = "Allow always?"
            yield Static(
                Content(
                    f"Let every {self.tool} call run without asking for the rest of this session?"
                )
            )
            with Horizontal(id="confirm-always-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(f"Allow {self.tool} always", id="allow", variant="warning")

    def on_mount(self) -> None:
        """Cancel has the focus: Enter on its own allows nothing."""
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "allow")
