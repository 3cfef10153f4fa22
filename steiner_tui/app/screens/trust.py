"""The prompt before a project's own config applies in full: what it asks for, and the answer.

A project's ``.steiner/config.toml`` may ask for providers, base URLs, key variables,
permissions or keys that ``config_trust`` holds back until the person trusts the folder. The app
pushes this screen at start-up when it does; the workbench underneath runs with the file's
safe settings only, so nothing the file names is contacted while the question is open. The
screen shows the held-back settings as TOML, exactly as the file asks for them.

Answers: stay restricted (the default: Escape or Enter), trust the folder for this run, or
trust it from now on (``[trust] folders`` in the user config, written through
``config_write``). Either trust exits the app with ``TrustGranted``; ``commands.app`` opens the
workbench again with the project's file in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

import tomlkit
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from steiner_tui import paths
from steiner_tui.app.plain import printable
from steiner_tui.engine.frozen import thaw

__all__ = ["TrustAnswer", "TrustScreen"]

TrustAnswer = Literal["restricted", "once", "always"]


def held_back_toml(untrusted: Mapping[str, Any]) -> str:
    """The held-back settings as the TOML that asks for them."""
    return tomlkit.dumps(thaw(untrusted)).strip()


class TrustScreen(ModalScreen[TrustAnswer]):
    """Asks whether the project's own config may apply in full; restricted is the default."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss('restricted')", "Stay restricted", id="trust.restricted",
                tooltip="Keep ignoring what only a trusted folder may set"),
    ]  # fmt: skip
    """Escape keeps the folder restricted; the buttons answer (Tab moves, Enter presses)."""

    DEFAULT_CSS = """
    TrustScreen { align: center middle; background: $background 60%; }
    TrustScreen > #trust {
        width: 96; max-width: 96%; height: auto; max-height: 100%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    TrustScreen #trust-asks {
        height: auto; max-height: 50vh; margin: 1 0 0 0; border: round $foreground 25%;
        padding: 0 1;
    }
    TrustScreen #trust-buttons { height: auto; margin: 1 0 0 0; }
    TrustScreen Button { margin: 0 1 0 0; }
    """

    def __init__(self, project_root: Path, untrusted: Mapping[str, Any]) -> None:
        super().__init__()
        self.project_root = project_root
        """The folder to trust."""
        self.asks = held_back_toml(untrusted)
        """What the project's file asks for that only a trusted folder may set (TOML)."""

    def compose(self) -> ComposeResult:
        config_file = paths.project_config_file(self.project_root)
        with Vertical(id="trust") as box:
            box.border_title = "Trust this folder?"
            yield Static(
                Content(
                    printable(
                        f"{config_file} asks for settings that can send your keys to another "
                        "server, run tools without asking, or change keys. They are ignored "
                        "until you trust this folder:"
                    )
                ),
                id="trust-what",
            )
            with VerticalScroll(id="trust-asks"):
                yield Static(Content(printable(self.asks)), id="trust-toml")
            yield Static(
                Content(
                    printable(
                        f'"Trust always" adds {self.project_root} to [trust] folders in '
                        f"{paths.user_config_file()}."
                    )
                )
            )
            with Horizontal(id="trust-buttons"):
                yield Button("Stay restricted", id="restricted")
                yield Button("Trust this time", id="once", variant="warning")
                yield Button("Trust always", id="always", variant="warning")

    def on_mount(self) -> None:
        """Stay restricted has the focus: Enter on its own trusts nothing."""
        self.query_one("#restricted", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answer: TrustAnswer = "restricted"
        if event.button.id == "once":
            answer = "once"
        elif event.button.id == "always":
            answer = "always"
        self.dismiss(answer)
