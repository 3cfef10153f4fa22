"""The sub-agent panel: one row per delegated child, and its transcript on demand.

The panel renders ``SubAgentInfo`` snapshots (id, type, status, turns, tokens, cache rate, as
``subagent_view`` formats them) as the rows of Textual's ``OptionList`` under a header row,
in columns as wide as their widest cell; it never asks the manager for figures. The app's
adapter posts each ``SubAgentUpdated`` engine event as an ``EngineUpdate`` and the screen hands
it to the slot (``BudgetSlot.show_agent``), which also lists the children for the palette.
Enter on a row opens ``screens.subagent_transcript`` with the child's own conversation, read
through the ``transcript`` callable the panel was given (``SubAgentManager.transcript``).
``ChildTranscript`` is what the workbench needs of that screen to keep it current.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from textual import on
from textual.containers import Container
from textual.content import Content
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from steiner_tui.agent.delegation.model import SubAgentInfo, SubAgentUpdated
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.subagent_view import (
    COLUMNS,
    COMPACT_COLUMNS,
    TranscriptSource,
    format_row,
    panel_title,
)

if TYPE_CHECKING:
    from steiner_tui.app.controller import SessionController

__all__ = ["BudgetSlot", "ChildTranscript", "SubAgentPanel"]

SUB_AGENT_PANEL_ID = "subagents"


@runtime_checkable
class ChildTranscript(Protocol):
    """A screen showing one child's transcript (``SubAgentTranscriptScreen``)."""

    agent_id: str

    def show_info(self, info: SubAgentInfo) -> None:
        """The child changed: show its new state and transcript."""


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

    @on(EngineUpdate)
    def _changed(self, message: EngineUpdate) -> None:
        if isinstance(message.event, SubAgentUpdated):
            self.update_agent(message.event.info)

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        agent_id = event.option.id
        if self.transcript is None or agent_id is None:
            return
        event.stop()
        open_transcript(self, self.transcript, agent_id, self.agents.get(agent_id))


def open_transcript(
    widget: Widget, transcript: TranscriptSource, agent_id: str, info: SubAgentInfo | None
) -> None:
    """Push child ``agent_id``'s own transcript over ``widget``'s screen."""
    # Screens are imported when first opened: the first frame needs only the workbench.
    from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen

    widget.app.push_screen(SubAgentTranscriptScreen(agent_id, transcript, info))


class BudgetSlot(Container):
    """The context panel's column: the panel, and the sub-agent panel under it, mounted on the
    first child (a session that never delegates pays nothing for the table)."""

    transcript: TranscriptSource | None = None
    """Reads a child's conversation (set once the session is open)."""
    infos: Callable[[], Sequence[SubAgentInfo]] = tuple
    """Every child of the session, in start order (the palette lists them)."""

    def attach(self, controller: SessionController) -> None:
        """Read the session's children through ``controller`` from now on."""
        self.transcript, self.infos = controller.sub_agent_transcript, controller.sub_agents

    @property
    def has_sub_agents(self) -> bool:
        """Whether the sub-agent panel is mounted (a child was started)."""
        return bool(self.query(SubAgentPanel))

    async def sub_agent_panel(self) -> SubAgentPanel:
        """The sub-agent panel, mounted the first time it is needed."""
        for panel in self.query(SubAgentPanel):
            return panel
        panel = SubAgentPanel(self.transcript, columns=COMPACT_COLUMNS, id=SUB_AGENT_PANEL_ID)
        await self.mount(panel.add_class("-boxed"))
        return panel

    def open_transcript(self, agent_id: str) -> None:
        """Show child ``agent_id``'s own transcript."""
        if self.transcript is not None:
            info = next((i for i in self.infos() if i.id == agent_id), None)
            open_transcript(self, self.transcript, agent_id, info)

    async def show_earlier(self) -> None:
        """List the children a resumed session kept (they ended before it: no notices)."""
        infos = self.infos()
        if not infos:
            return
        panel = await self.sub_agent_panel()
        for info in infos:
            panel.update_agent(info)

    def focus_agents(self) -> None:
        """Focus the sub-agent panel (F3); before the first delegation there is none, and
        that is said."""
        if self.has_sub_agents:
            # The screen's queue: after the context panel's own focus, when F3 just showed it.
            self.screen.call_after_refresh(self.query_one(SubAgentPanel).focus)
            return
        self.notify(
            "No sub-agents in this session yet: the model starts one with the delegate tool, "
            "and F3 then focuses their panel.",
            title="Sub-agents",
        )

    async def show_agent(self, info: SubAgentInfo, running: bool) -> None:
        """Show a child's new snapshot (and in its transcript, if that is open); a background
        child that ended says when the model gets its result (``running``: a run is going)."""
        panel = await self.sub_agent_panel()
        panel.update_agent(info)
        screen = self.app.screen
        if isinstance(screen, ChildTranscript) and screen.agent_id == info.id:
            screen.show_info(info)
        if not info.wait and not info.pending:
            after = "before its next call" if running else "with your next message"
            text = f"{info.id} {info.state}: the model gets its result {after}"
            self.notify(text, title="Sub-agent")
