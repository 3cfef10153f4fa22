"""The F1 help screen: the keys of the screen it was opened on (with the user's keymap
applied, see ``help_catalog``) and, over the workbench, the slash commands."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from steiner_tui.app.help_catalog import HelpRow
from steiner_tui.resources import styles_dir

__all__ = ["HelpScreen"]


class HelpScreen(ModalScreen[None]):
    """Lists every key and command; Esc, F1 or q closes it."""

    CSS_PATH = styles_dir() / "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "dismiss", "Close", id="help.close", tooltip="Close the help"),
    ]
    """Close keys."""

    def __init__(self, rows: Sequence[HelpRow], screen_name: str = "") -> None:
        super().__init__()
        self.rows = tuple(rows)
        """The rows shown, in order."""
        self.screen_name = screen_name
        """The screen whose keys are listed (in the title)."""

    def compose(self) -> ComposeResult:
        # Two columns per section, so that a long description wraps beside its keys.
        width = max((len(row.keys) for row in self.rows), default=0) + 2
        with VerticalScroll(id="help-body"):
            for section, rows in groupby(self.rows, key=lambda row: row.section):
                yield Static(Content.styled(section, "bold $text-accent"), classes="help-title")
                with Grid(classes="help-section") as grid:
                    grid.styles.grid_columns = f"{width} 1fr"
                    for row in rows:
                        yield Static(Content.styled(row.keys, "bold"), classes="help-keys")
                        yield Static(Content(row.description))

    def on_mount(self) -> None:
        """Title the dialog."""
        body = self.query_one("#help-body")
        body.border_title = f"Help · {self.screen_name}" if self.screen_name else "Help"
        body.border_subtitle = "Esc closes"
