"""The workbench's command-palette providers (Ctrl+P): its commands, and its sub-agents.

``MainScreen.COMMANDS`` lists both. Each command calls the same screen or app action a key or
slash command would. A provider reaches its screen through a protocol (``Workbench``,
``SubAgentHost``), so this module does not depend on the screen that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Protocol, runtime_checkable

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.palette import Command, ListedCommands
from steiner_tui.app.subagent_view import first_line
from steiner_tui.engine.skills.delta import SkillStatus

__all__ = ["SubAgentCommands", "SubAgentHost", "Workbench", "WorkbenchCommands"]


@runtime_checkable
class Workbench(Protocol):
    """The screen ``WorkbenchCommands`` drives (the main screen)."""

    def action_compact(self, steering: str = "") -> None:
        """Compact now."""
        ...

    async def action_inspect(self) -> None:
        """Open the request inspector."""
        ...

    async def slash(self, text: str) -> None:
        """Carry out slash command ``text`` (``/model``, ``/clear``)."""
        ...

    def action_toggle_mode(self) -> None:
        """Switch plan/build mode."""
        ...

    def toggle_skill(self, name: str) -> None:
        """Toggle skill ``name``."""
        ...

    def skill_rows(self) -> Sequence[SkillStatus]:
        """The skills, as the sidebar lists them."""
        ...

    def action_context(self) -> None:
        """Show the wider context panel (or hide it)."""
        ...

    def action_sessions(self, session_id: str = "") -> None:
        """Open the saved sessions."""
        ...

    def model_choices(self) -> Sequence[str]:
        """The configured model references."""
        ...


class WorkbenchCommands(ListedCommands):
    """Compact, context, lineage, inspector, sessions, model (and each configured one), clear,
    mode, each skill, theme, help."""

    def commands(self) -> list[Command]:
        screen = self.screen
        if not isinstance(screen, Workbench):
            return []
        app = self.app
        commands: list[Command] = [
            ("Compact now", "Summarize the conversation (/compact)", screen.action_compact),
            ("Context", "The context panel, wider (/context)", screen.action_context),
            ("Lineage", "Browse compaction generations", partial(app.run_action, "app.lineage")),
            ("Inspector", "Inspect the latest request", screen.action_inspect),
            (
                "Sessions",
                "Saved sessions: resume or delete one (/sessions)",
                screen.action_sessions,
            ),
            ("Model", "The model and its limits (/model)", partial(screen.slash, "/model")),
            (
                "Clear conversation",
                "Start a new conversation (/clear)",
                partial(screen.slash, "/clear"),
            ),
            ("Toggle plan/build mode", "Switch the execution mode", screen.action_toggle_mode),
            ("Theme", "Change the colour theme", app.action_change_theme),
            ("Help", "Keys and slash commands (F1)", partial(app.run_action, "app.help")),
        ]
        for ref in screen.model_choices():
            commands.append(
                (f"Switch model: {ref}", f"/model {ref}", partial(screen.slash, f"/model {ref}"))
            )
        for row in screen.skill_rows():
            state = row.state.replace("_", " ")
            commands.append(
                (f"Toggle skill: {row.name}", state, partial(screen.toggle_skill, row.name))
            )
        return commands


@runtime_checkable
class SubAgentHost(Protocol):
    """A screen showing sub-agents (the workbench); ``SubAgentCommands`` drives it."""

    def sub_agent_infos(self) -> Sequence[SubAgentInfo]:
        """Every child, in start order."""
        ...

    def open_sub_agent(self, agent_id: str) -> None:
        """Open the transcript of ``agent_id``."""
        ...

    def action_focus_subagents(self) -> None:
        """Focus the sub-agent panel."""
        ...


class SubAgentCommands(ListedCommands):
    """Palette commands: focus the sub-agent panel, open a child's transcript."""

    def commands(self) -> list[Command]:
        screen = self.screen
        if not isinstance(screen, SubAgentHost):
            return []
        commands: list[Command] = [
            ("Sub-agents", "Focus the sub-agent panel", screen.action_focus_subagents)
        ]
        for info in screen.sub_agent_infos():
            commands.append(
                (
                    f"Sub-agent transcript: {info.id}",
                    f"{info.state} · {first_line(info.task)}",
                    partial(screen.open_sub_agent, info.id),
                )
            )
        return commands
