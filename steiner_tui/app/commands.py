"""The workbench's command-palette providers (Ctrl+P): its commands, and its sub-agents.

``MainScreen.COMMANDS`` lists both. Each command calls the same screen or app action a key or
slash command would. A provider reaches its screen through a protocol (``Workbench``,
``SubAgentHost``), so this module does not depend on the screen that uses it.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from steiner_tui.app.palette import Command, ListedCommands
from steiner_tui.app.subagent_view import first_line

if TYPE_CHECKING:
    from steiner_tui.app.slash_commands import SlashCommands
    from steiner_tui.app.widgets.subagents import BudgetSlot
    from steiner_tui.app.workbench_session import WorkbenchSession

__all__ = ["SubAgentCommands", "SubAgentHost", "Workbench", "WorkbenchCommands"]


@runtime_checkable
class Workbench(Protocol):
    """The screen ``WorkbenchCommands`` drives (the main screen)."""

    def action_compact(self, steering: str = "") -> None:
        """Compact now."""

    async def action_inspect(self) -> None:
        """Open the request inspector."""

    @property
    def commands(self) -> SlashCommands:
        """The slash commands (``/model``, ``/clear``, ``/skills NAME``)."""

    @property
    def hold(self) -> WorkbenchSession:
        """The session (its models and skills)."""

    def action_toggle_mode(self) -> None:
        """Switch plan/build mode."""

    def action_context(self) -> None:
        """Show the wider context panel (or hide it)."""

    def action_sessions(self, session_id: str = "") -> None:
        """Open the saved sessions."""


class WorkbenchCommands(ListedCommands):
    """Compact, context, lineage, inspector, sessions, model (and each configured one), clear,
    mode, each skill, help (Theme is Textual's system command: listed once)."""

    def commands(self) -> list[Command]:
        screen = self.screen
        if not isinstance(screen, Workbench):
            return []
        app, slash = self.app, screen.commands.slash
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
            ("Model", "The model and its limits (/model)", partial(slash, "/model")),
            ("Clear conversation", "Start a new conversation (/clear)", partial(slash, "/clear")),
            ("Toggle plan/build mode", "Switch the execution mode", screen.action_toggle_mode),
            ("Help", "Keys and slash commands (F1)", partial(app.run_action, "app.help")),
        ]
        if not screen.hold.attached:
            return commands
        current = screen.hold.driver.runner.model.ref
        for ref in (ref for ref in screen.hold.session.model_refs if ref != current):
            commands.append(
                (f"Switch model: {ref}", f"/model {ref}", partial(slash, f"/model {ref}"))
            )
        toggle = screen.commands.toggle_skill
        for row in screen.hold.controller.skill_rows():
            state = row.state.replace("_", " ")
            commands.append((f"Toggle skill: {row.name}", state, partial(toggle, row.name)))
        return commands


@runtime_checkable
class SubAgentHost(Protocol):
    """A screen showing sub-agents (the workbench); ``SubAgentCommands`` drives it."""

    @property
    def slot(self) -> BudgetSlot:
        """The sub-agent panel's slot: its children and their transcripts."""

    def action_focus_subagents(self) -> None:
        """Focus the sub-agent panel."""


class SubAgentCommands(ListedCommands):
    """Palette commands: focus the sub-agent panel, open a child's transcript."""

    def commands(self) -> list[Command]:
        screen = self.screen
        if not isinstance(screen, SubAgentHost):
            return []
        commands: list[Command] = [
            ("Sub-agents", "Focus the sub-agent panel", screen.action_focus_subagents)
        ]
        for info in screen.slot.infos():
            commands.append(
                (
                    f"Sub-agent transcript: {info.id}",
                    f"{info.state} · {first_line(info.task)}",
                    partial(screen.slot.open_transcript, info.id),
                )
            )
        return commands
