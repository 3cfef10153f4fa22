"""The sub-agent panel: one row per delegated child, and its transcript on demand.

The panel renders ``SubAgentInfo`` snapshots (id, type, status, turns, tokens, cache rate); it
never asks the manager for figures. The app's adapter turns each ``SubAgentUpdated`` engine
event into a ``SubAgentChanged`` message and the screen calls ``update_agent``. Enter on a row
opens ``SubAgentTranscriptScreen`` with the child's own conversation, read through the
``transcript`` callable the panel was given (``SubAgentManager.transcript``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message as TextualMessage
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.engine.messages import Message
from steiner_tui.resources import styles_dir

__all__ = [
    "SubAgentChanged",
    "SubAgentPanel",
    "SubAgentTranscriptScreen",
    "format_row",
    "format_transcript",
]

TranscriptSource = Callable[[str], Sequence[Message]]

COLUMNS = ("id", "type", "status", "turns", "tokens", "cache")
STATUS_MARKS = {
    "queued": "… queued",
    "running": "▶ running",
    "done": "✓ done",
    "failed": "✗ failed",
    "cancelled": "■ cancelled",
}


@dataclass
class SubAgentChanged(TextualMessage):
    """A child's snapshot changed (posted by the app's adapter for ``SubAgentUpdated``)."""

    info: SubAgentInfo


def _tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    return f"{count / 1000:.1f}k"


def format_row(info: SubAgentInfo) -> tuple[str, ...]:
    """The table cells of one child."""
    cache = f"{info.cache_rate:.0%}" if info.cache_read_tokens else "—"
    return (
        info.id,
        info.type,
        STATUS_MARKS.get(info.state, info.state),
        str(info.turns),
        _tokens(info.tokens),
        cache,
    )


def format_transcript(messages: Sequence[Message]) -> str:
    """The child's conversation as plain text: a role line, then the content, per message."""
    parts: list[str] = []
    for message in messages:
        label = message.role
        if message.role == "tool":
            label = f"tool {message.name or ''} {message.tool_call_id}".rstrip()
        if message.incomplete:
            label += " (incomplete)"
        body = message.content
        for call in message.tool_calls:
            body += f"\n→ {call.name} {call.raw_arguments or call.arguments}"
        parts.append(f"── {label} ──\n{body}")
    return "\n\n".join(parts) if parts else "(the sub-agent has not started yet)"


class SubAgentPanel(DataTable[str]):
    """A table of sub-agents; Enter opens the highlighted child's transcript."""

    DEFAULT_CSS = """
    SubAgentPanel {
        height: auto;
        max-height: 8;
    }
    """

    def __init__(
        self,
        transcript: TranscriptSource | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.transcript = transcript
        """Reads a child's conversation by id (None: Enter does nothing)."""

    def on_mount(self) -> None:
        for column in COLUMNS:
            self.add_column(column, key=column)

    def update_agent(self, info: SubAgentInfo) -> None:
        """Add the child's row, or refresh it."""
        cells = format_row(info)
        if info.id in self.rows:
            for column, value in zip(COLUMNS, cells, strict=True):
                self.update_cell(info.id, column, value)
        else:
            self.add_row(*cells, key=info.id)

    @on(SubAgentChanged)
    def _changed(self, message: SubAgentChanged) -> None:
        self.update_agent(message.info)

    @on(DataTable.RowSelected)
    def _open(self, event: DataTable.RowSelected) -> None:
        agent_id = event.row_key.value
        if self.transcript is None or agent_id is None:
            return
        event.stop()
        self.app.push_screen(SubAgentTranscriptScreen(agent_id, self.transcript))


class SubAgentTranscriptScreen(ModalScreen[None]):
    """One child's own conversation; ``r`` reads it again, Escape closes."""

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

    def __init__(self, agent_id: str, transcript: TranscriptSource) -> None:
        super().__init__()
        self.agent_id = agent_id
        self.transcript = transcript

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="transcript-box") as box:
            box.border_title = f"Sub-agent {self.agent_id}"
            box.border_subtitle = "r refresh · Esc close"
            yield Static(self._text(), id="transcript-text", markup=False)

    def _text(self) -> str:
        try:
            return format_transcript(self.transcript(self.agent_id))
        except KeyError:
            return f"(no sub-agent {self.agent_id})"

    def action_refresh(self) -> None:
        self.query_one("#transcript-text", Static).update(self._text())

    def action_close(self) -> None:
        self.dismiss(None)
