"""The F1 help screen: the keys of the screen it was opened on (with the user's keymap
applied, see ``help_catalog``) and, over the workbench, the slash commands."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from steiner_tui.app.help_catalog import HelpRow
from steiner_tui.resources import styles_dir

__all__ = ["HelpScreen", "key_column", "text_width"]


DIALOG_WIDTH = 100
"""The dialog's width on a wide terminal (``#help-body`` in styles/help.tcss)."""
DIALOG_GUTTER = 8
"""Columns of the dialog that are not text: its border, padding and scrollbar (help.tcss)."""


def text_width(screen_width: int) -> int:
    """The columns the dialog's text has on a terminal ``screen_width`` wide."""
    return min(DIALOG_WIDTH, screen_width) - DIALOG_GUTTER


def key_column(widest: int, text: int) -> int:
    """The key column's width: the widest keys and a gap, but at most two fifths of the text
    width (a longer key wraps in its column), so a description keeps room to be read on a
    narrow terminal; never under 12."""
    return min(widest + 2, max(12, text * 2 // 5))


class HelpScreen(ModalScreen[None]):
    """Lists every key and command; Esc, F1 or q closes it."""

    CSS_PATH = styles_dir() / "help.tcss"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]  # noqa: RUF012
    """Below 32 rows the dialog is as tall as the terminal, not 32 rows (styles/help.tcss)."""
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
        columns = self._columns(self.app.size.width)
        with VerticalScroll(id="help-body"):
            for section, rows in groupby(self.rows, key=lambda row: row.section):
                yield Static(Content.styled(section, "bold $text-accent"), classes="help-title")
                with Grid(classes="help-section") as grid:
                    grid.styles.grid_columns = columns
                    for row in rows:
                        yield Static(Content.styled(row.keys, "bold"), classes="help-keys")
                        yield Static(Content(row.description))

    def _columns(self, screen_width: int) -> str:
        widest = max((len(row.keys) for row in self.rows), default=0)
        return f"{key_column(widest, text_width(screen_width))} 1fr"

    def on_resize(self, event: events.Resize) -> None:
        """Keep the key column to its share of the new width."""
        columns = self._columns(event.size.width)
        for grid in self.query(".help-section"):
            grid.styles.grid_columns = columns

    def on_mount(self) -> None:
        """Title the dialog."""
        body = self.query_one("#help-body")
        body.border_title = f"Help · {self.screen_name}" if self.screen_name else "Help"
        body.border_subtitle = "Esc closes"
