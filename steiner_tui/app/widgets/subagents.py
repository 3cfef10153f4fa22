"""The sub-agent panel: one row per delegated child, and its transcript on demand.

The panel renders ``SubAgentInfo`` snapshots (id, type, status, turns, tokens, cache rate, as
``subagent_view`` formats them); it never asks the manager for figures. The app's adapter turns
each ``SubAgentUpdated`` engine event into a ``SubAgentChanged`` message and the screen calls
``update_agent``. Enter on a row opens ``screens.subagent_transcript`` with the child's own
conversation, read through the ``transcript`` callable the panel was given
(``SubAgentManager.transcript``). ``ChildTranscript`` is what the workbench needs of that
screen to keep it current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.widgets import DataTable

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.messages import SubAgentChanged
from steiner_tui.app.subagent_view import COLUMNS, TranscriptSource, format_row, panel_title
from steiner_tui.app.widgets.inspector_format import cell

__all__ = ["ChildTranscript", "SubAgentPanel"]


@runtime_checkable
class ChildTranscript(Protocol):
    """A screen showing one child's transcript (``SubAgentTranscriptScreen``)."""

    agent_id: str

    def show_info(self, info: SubAgentInfo) -> None:
        """The child changed: show its new state and transcript."""
        ...


class SubAgentPanel(DataTable[Text]):
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
        cells = dict(zip(COLUMNS, (cell(v) for v in format_row(info)), strict=True))
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
        # Screens are imported when first opened: the first frame needs only the workbench.
        from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen

        info = self.agents.get(agent_id)
        self.app.push_screen(SubAgentTranscriptScreen(agent_id, self.transcript, info))
