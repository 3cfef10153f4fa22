"""The main screen's command-palette provider (Ctrl+P): the workbench's commands by name.

Registered lazily through ``MainScreen.COMMANDS``, so it is imported when the palette first
opens. Each command calls the same screen or app action a key or slash command would.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, cast

from steiner_tui.app.palette import Command, ListedCommands

if TYPE_CHECKING:
    from steiner_tui.app.screens.main import MainScreen

__all__ = ["WorkbenchCommands"]


class WorkbenchCommands(ListedCommands):
    """Compact, lineage, inspector, clear, mode, each skill, theme, help."""

    def commands(self) -> list[Command]:
        screen = cast("MainScreen", self.screen)
        app = screen.app
        commands: list[Command] = [
            ("Compact now", "Summarize the conversation (/compact)", screen.action_compact),
            ("Lineage", "Browse compaction generations", partial(app.run_action, "app.lineage")),
            ("Inspector", "Inspect the latest request", screen.action_inspect),
            ("Clear conversation", "Start a new conversation (/clear)", screen.clear_conversation),
            ("Toggle plan/build mode", "Switch the execution mode", screen.action_toggle_mode),
            ("Theme", "Change the colour theme", app.action_change_theme),
            ("Help", "Keys and slash commands (F1)", partial(app.run_action, "app.help")),
        ]
        for row in screen.controller.skill_rows():
            state = row.state.replace("_", " ")
            commands.append(
                (f"Toggle skill: {row.name}", state, partial(screen.toggle_skill, row.name))
            )
        return commands
