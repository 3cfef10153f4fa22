"""The sub-agent panel: one row per delegated child, and its transcript on demand.

The panel renders ``SubAgentInfo`` snapshots (id, type, status, turns, tokens, cache rate, as
``subagent_view`` formats them); it never asks the manager for figures. The app's adapter turns
each ``SubAgentUpdated`` engine event into a ``SubAgentChanged`` message and the screen calls
``update_agent``. Enter on a row opens ``SubAgentTranscriptScreen`` with the child's own
conversation, read through the ``transcript`` callable the panel was given
(``SubAgentManager.transcript``).

``SubAgentCommands`` is the command-palette provider of a screen that hosts the panel
(``SubAgentHost``): focus the panel, or open any child's transcript by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import ClassVar, Protocol, runtime_checkable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.messages import SubAgentChanged
from steiner_tui.app.palette import Command, ListedCommands
from steiner_tui.app.subagent_view import (
    COLUMNS,
    COMPACT_COLUMNS,
    TranscriptSource,
    first_line,
    format_row,
    format_transcript,
    panel_title,
)
from steiner_tui.resources import styles_dir

__all__ = [
    "COMPACT_COLUMNS",
    "SubAgentChanged",
    "SubAgentCommands",
    "SubAgentHost",
    "SubAgentPanel",
    "SubAgentTranscriptScreen",
    "format_row",
    "format_transcript",
]


class SubAgentPanel(DataTable[str]):
    """A table of sub-agents; Enter opens the highlighted child's transcript.

    Its border title counts the children by state; the subtitle says what Enter does.
    """

    DEFAULT_CSS = """
    SubAgentPanel {
        height: auto;
        max-height: 8;
        &.-boxed {
            max-height: 10;
            border: round $foreground 25%;
            border-title-color: $text-primary;
            border-subtitle-color: $text-muted;
            &:focus {
                border: round $border;
            }
        }
    }
    """

    def __init__(
        self,
        transcript: TranscriptSource | None = None,
        *,
        columns: Sequence[str] = COLUMNS,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.transcript = transcript
        """Reads a child's conversation by id (None: Enter does nothing)."""
        self.columns_shown = tuple(columns)
        """Which of ``COLUMNS`` the table shows, in order."""
        self.agents: dict[str, SubAgentInfo] = {}
        """The latest snapshot of every child shown, in start order."""

    def on_mount(self) -> None:
        for column in self.columns_shown:
            self.add_column(column, key=column)
        self.border_subtitle = "Enter: transcript"

    def update_agent(self, info: SubAgentInfo) -> None:
        """Add the child's row, or refresh it."""
        cells = dict(zip(COLUMNS, format_row(info), strict=True))
        if info.id in self.rows:
            for column in self.columns_shown:
                self.update_cell(info.id, column, cells[column], update_width=True)
        else:
            self.add_row(*(cells[column] for column in self.columns_shown), key=info.id)
        self.agents[info.id] = info
        self.border_title = panel_title(self.agents.values())

    @on(SubAgentChanged)
    def _changed(self, message: SubAgentChanged) -> None:
        self.update_agent(message.info)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        agent_id = event.row_key.value
        if self.transcript is None or agent_id is None:
            return
        event.stop()
        info = self.agents.get(agent_id)
        self.app.push_screen(SubAgentTranscriptScreen(agent_id, self.transcript, info))


class SubAgentTranscriptScreen(ModalScreen[None]):
    """One child's own conversation; ``r`` reads it again, Escape closes.

    The host calls ``show_info`` when the child changes, so a running child's transcript grows
    while it is open.
    """

    CSS_PATH = styles_dir() / "subagents.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="subagents.close", tooltip="Back to the session"),
        Binding(
            "r",
            "refresh",
            "Refresh",
            id="subagents.refresh",
            tooltip="Read the sub-agent's transcript again",
        ),
    ]
    """Escape closes; r refreshes."""

    def __init__(
        self, agent_id: str, transcript: TranscriptSource, info: SubAgentInfo | None = None
    ) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.transcript = transcript
        self.info = info
        """The child's latest snapshot, for the title (None: the id alone)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="transcript-box") as box:
            box.border_title = self._title()
            box.border_subtitle = "r refresh · Esc close"
            yield Static(self._text(), id="transcript-text", markup=False)

    def _title(self) -> str:
        info = self.info
        if info is None:
            return f"Sub-agent {self.agent_id}"
        turns = "1 turn" if info.turns == 1 else f"{info.turns} turns"
        return f"Sub-agent {info.id} · {info.type} · {info.state} · {turns}"

    def show_info(self, info: SubAgentInfo) -> None:
        """The child changed: retitle and read its transcript again."""
        self.info = info
        self.query_one("#transcript-box").border_title = self._title()
        self.action_refresh()

    def _text(self) -> str:
        try:
            return format_transcript(self.transcript(self.agent_id))
        except KeyError:
            return f"(no sub-agent {self.agent_id})"

    def action_refresh(self) -> None:
        self.query_one("#transcript-text", Static).update(self._text())

    def action_close(self) -> None:
        self.dismiss(None)


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
