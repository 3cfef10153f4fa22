"""One sub-agent's own conversation, opened from the sub-agent panel or the command palette.

The workbench calls ``show_info`` while the screen is open (any screen with ``agent_id`` and
``show_info`` is a ``ChildTranscript`` to it), so a running child's transcript grows on screen.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.plain import printable
from steiner_tui.app.subagent_view import TranscriptSource, format_transcript
from steiner_tui.resources import styles_dir

__all__ = ["SubAgentTranscriptScreen"]


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
            box.border_title = Content(self._title())
            box.border_subtitle = "r refresh · Esc close"
            yield Static(Content(printable(self._text())), id="transcript-text")

    def _title(self) -> str:
        info = self.info
        if info is None:
            return f"Sub-agent {self.agent_id}"
        turns = "1 turn" if info.turns == 1 else f"{info.turns} turns"
        return f"Sub-agent {info.id} · {info.type} · {info.state} · {turns}"

    def show_info(self, info: SubAgentInfo) -> None:
        """The child changed: retitle and read its transcript again."""
        self.info = info
        self.query_one("#transcript-box").border_title = Content(self._title())
        self.action_refresh()

    def _text(self) -> str:
        try:
            return format_transcript(self.transcript(self.agent_id))
        except KeyError:
            return f"(no sub-agent {self.agent_id})"

    def action_refresh(self) -> None:
        self.query_one("#transcript-text", Static).update(Content(printable(self._text())))

    def action_close(self) -> None:
        self.dismiss(None)
