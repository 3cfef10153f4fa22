"""The sub-agent panel: one row per delegated child, and its transcript on demand.

The panel renders ``SubAgentInfo`` snapshots (id, type, status, turns, tokens, cache rate, as
``subagent_view`` formats them) as the rows of Textual's ``OptionList`` under a header row,
in columns as wide as their widest cell; it never asks the manager for figures. The app's
adapter turns each ``SubAgentUpdated`` engine event into a ``SubAgentChanged`` message and the
screen calls ``update_agent``. Enter on a row opens ``screens.subagent_transcript`` with the
child's own conversation, read through the ``transcript`` callable the panel was given
(``SubAgentManager.transcript``). ``ChildTranscript`` is what the workbench needs of that
screen to keep it current.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from textual import on
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.messages import SubAgentChanged
from steiner_tui.app.subagent_view import COLUMNS, TranscriptSource, format_row, panel_title

__all__ = ["ChildTranscript", "SubAgentPanel"]


@runtime_checkable
class ChildTranscript(Protocol):
    """A screen showing one child's transcript (``SubAgentTranscriptScreen``)."""

    agent_id: str

    def show_info(self, info: SubAgentInfo) -> None:
        """The child changed: show its new state and transcript."""
        ...


_NUMBERS = frozenset({"turns", "tokens", "cache"})
"""Columns aligned to the right."""
_GAP = "  "


class SubAgentPanel(OptionList):
    """A list of sub-agents under a header row; Enter opens the highlighted child's transcript.

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
        super().__init__(name=name, id=id, classes=classes)
        self.transcript = transcript
        """Reads a child's conversation by id (None: Enter does nothing)."""
        self.columns_shown = tuple(columns)
        """Which of ``COLUMNS`` the panel shows, in order."""
        self.agents: dict[str, SubAgentInfo] = {}
        """The latest snapshot of every child shown, in start order."""

    def on_mount(self) -> None:
        self.border_subtitle = "Enter: transcript"
        self._show()

    def row(self, agent_id: str) -> tuple[str, ...]:
        """The cells the panel shows for child ``agent_id``, in its columns' order."""
        cells = dict(zip(COLUMNS, format_row(self.agents[agent_id]), strict=True))
        return tuple(cells[column] for column in self.columns_shown)

    def update_agent(self, info: SubAgentInfo) -> None:
        """Add the child's row, or refresh it."""
        self.agents[info.id] = info
        self.border_title = panel_title(self.agents.values())
        self._show()

    def _show(self) -> None:
        """Every row again, the columns as wide as their widest cell; the highlight stays."""
        rows = [tuple(self.columns_shown), *(self.row(agent_id) for agent_id in self.agents)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(self.columns_shown))]

        def line(row: tuple[str, ...]) -> str:
            return _GAP.join(
                text.rjust(width) if column in _NUMBERS else text.ljust(width)
                for column, text, width in zip(self.columns_shown, row, widths, strict=True)
            ).rstrip()

        highlighted = self.highlighted_option
        self.set_options(
            [
                Option(Content.styled(line(rows[0]), "bold"), disabled=True),
                *(
                    Option(Content(line(row)), id=agent_id)
                    for agent_id, row in zip(self.agents, rows[1:], strict=True)
                ),
            ]
        )
        if highlighted is not None and highlighted.id is not None:
            self.highlighted = self.get_option_index(highlighted.id)
        elif self.agents:  # the first child, so Enter opens one at once (F3, then Enter)
            self.highlighted = 1

    @on(SubAgentChanged)
    def _changed(self, message: SubAgentChanged) -> None:
        self.update_agent(message.info)

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        agent_id = event.option.id
        if self.transcript is None or agent_id is None:
            return
        event.stop()
        # Screens are imported when first opened: the first frame needs only the workbench.
        from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen

        info = self.agents.get(agent_id)
        self.app.push_screen(SubAgentTranscriptScreen(agent_id, self.transcript, info))
