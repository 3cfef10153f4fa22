"""The Textual app: one factory, ``make_app``, builds it for the CLI, the tests and benchmarks.

The app owns the session and the screens. The main screen is the default screen; the help,
lineage and inspector screens are built on demand, importing their modules only then, so start-up
pays for the workbench alone.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import Screen

from steiner_tui.app.gc_tuning import tune_gc_for_ui
from steiner_tui.app.screens.main import MainScreen
from steiner_tui.app.session import AppSession
from steiner_tui.resources import styles_dir

__all__ = ["SteinerApp", "make_app"]


class SteinerApp(App[None]):
    """The workbench app for one session."""

    # main.tcss is loaded here: Textual loads a screen's CSS_PATH on push, not for the screen
    # returned by ``get_default_screen``.
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        styles_dir() / "app.tcss",
        styles_dir() / "main.tcss",
    ]
    TITLE = "steiner-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", id="app.help", tooltip="Keys and slash commands"),
        Binding("ctrl+p", "command_palette", "Commands", id="app.command_palette",
                priority=True, show=False, tooltip="Open the command palette"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True,
                tooltip="Quit steiner-tui"),
    ]  # fmt: skip
    """Application keys (remappable by id through the config keymap)."""

    def __init__(self, session: AppSession, *, tune_gc: bool = False) -> None:
        super().__init__()
        self.session = session
        """The session this app shows."""
        self._tune_gc = tune_gc
        if session.theme != self.theme:
            # Setting the theme re-parses every style sheet: only when it differs.
            self.theme = session.theme
        self._main: MainScreen | None = None

    @property
    def workbench(self) -> MainScreen:
        """The main screen."""
        if self._main is None:
            self._main = MainScreen(self.session)
        return self._main

    def get_default_screen(self) -> Screen[None]:
        """The workbench is the base screen."""
        return self.workbench

    def on_mount(self) -> None:
        """Apply the keymap from config (refreshing bindings only when there is one)."""
        if self.session.keymap:
            self.set_keymap(dict(self.session.keymap))
        if self._tune_gc:
            # After the first frame, which does not need it; the freeze then also covers the
            # workbench's widgets.
            self.call_after_refresh(tune_gc_for_ui)

    def on_unmount(self) -> None:
        """Close the session log (flushes a reply still streaming)."""
        self.session.close()

    def action_help(self) -> None:
        """Open the help screen (F1)."""
        from steiner_tui.app.help_catalog import binding_rows, slash_rows
        from steiner_tui.app.screens.help import HelpScreen
        from steiner_tui.app.widgets.budget_panel import BudgetPanel
        from steiner_tui.app.widgets.conversation import ConversationPane
        from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
        from steiner_tui.app.widgets.prompt import PromptEditor
        from steiner_tui.app.widgets.skill_list import SkillList

        sections = [
            ("Workbench", [*MainScreen.BINDINGS, *SteinerApp.BINDINGS]),
            ("Prompt", PromptEditor.BINDINGS),
            ("Skills sidebar", SkillList.BINDINGS),
            ("Context panel", BudgetPanel.BINDINGS),
            ("Conversation", ConversationPane.BINDINGS),
            ("Permission prompt", PermissionPrompt.BINDINGS),
        ]
        rows = [*binding_rows(sections, self.session.keymap), *slash_rows()]
        self.push_screen(HelpScreen(rows))

    def action_lineage(self) -> None:
        """Open the lineage browser on the session's lineage."""
        from steiner_tui.app.screens.lineage import LineageScreen

        driver = self.session.driver
        self.push_screen(LineageScreen(driver.lineage, self.session.history_path))

    def action_inspector(self) -> None:
        """Open the request inspector on the latest request (the dry run before any)."""
        from steiner_tui.app.screens.inspector import InspectorScreen

        snapshots = self.session.snapshots.all()
        if not snapshots:
            snapshots = (self.workbench.controller.shown_snapshot()[0],)
        self.push_screen(InspectorScreen(snapshots, snapshots[-1].index))


def make_app(session: AppSession, *, tune_gc: bool = False) -> SteinerApp:
    """The app for ``session`` (the one factory the CLI and the tests use).

    ``tune_gc`` applies the interactive garbage-collector settings (``tune_gc_for_ui``) once the
    first frame is drawn; the CLI asks for it, tests keep CPython's defaults.
    """
    return SteinerApp(session, tune_gc=tune_gc)
