"""The conversation pane: every entry kept as data, only a window of them mounted.

A session can reach thousands of messages; mounting a widget for each would make every layout
pass slower. The pane keeps all entries and mounts widgets for a contiguous run of them
(``EntryWindow``): the last ``window`` while the view follows the bottom (older widgets are
pruned as new entries arrive). Home or PgUp at the top (or a click on the top row) mounts an
earlier batch; past ``window + 2 * load_batch`` mounted entries the newest are unmounted, so
reading far back costs no more than reading near the end. Earlier batches are mounted ahead of
the view as it nears the top of what is mounted while reading up, and later ones as it nears the
bottom while reading down again (PgDn at the very bottom also mounts them), without moving what
is on screen. End (or a click on the bottom row) jumps
to the newest, and so does a new message or a permission question. Widgets for unmounted
entries do not exist, so updates (a finished tool call, streamed text) go to the entry and show
when it is mounted again.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.app.transcript import (
    Entry,
    NoticeEntry,
    PermissionEntry,
    ReplyEntry,
    ToolEntry,
    UserEntry,
)
from steiner_tui.app.widgets.assistant_reply import AssistantReply
from steiner_tui.app.widgets.earlier_row import EarlierRow
from steiner_tui.app.widgets.entry_window import EntryWindow
from steiner_tui.app.widgets.later_row import LaterRow
from steiner_tui.app.widgets.notice_row import NoticeRow
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage

__all__ = ["WELCOME", "ConversationPane", "widget_for"]

WELCOME = (
    "Type below and press Enter.\n\n"
    "The panel on the right is the request your next message will send, source by source: "
    "what each costs in bytes and tokens, and how close it is to the window.\n\n"
    "Skills on the left go out with your next message (Space or 1-9 to toggle).\n\n"
    "F1 lists every key and /command."
)


def widget_for(entry: Entry) -> Widget:
    """The widget that shows ``entry``."""
    match entry:
        case UserEntry():
            return UserMessage(entry)
        case ReplyEntry():
            return AssistantReply(entry)
        case ToolEntry():
            return ToolBlock(entry)
        case PermissionEntry():
            return PermissionPrompt(entry)
        case NoticeEntry():
            return NoticeRow(entry)


class ConversationPane(EntryWindow):
    """The conversation (display only)."""

    def __init__(self, *, window: int = 30, batch: int = 6, id: str | None = None) -> None:
        super().__init__(window=window, batch=batch, id=id)
        self._reply: ReplyEntry | None = None
        self._tools: dict[str, ToolEntry] = {}

    def compose(self) -> ComposeResult:
        yield EarlierRow(id="earlier")
        yield Static(WELCOME, id="welcome")
        yield LaterRow(id="later")

    def on_mount(self) -> None:
        """Follow the bottom."""
        self._show_counts()
        self.anchor()

    def make_widget(self, entry: Entry) -> Widget:
        """The widget that shows ``entry``."""
        return widget_for(entry)

    def _show_counts(self) -> None:
        super()._show_counts()
        self._show_welcome()

    def _show_welcome(self) -> None:
        self.query_one("#welcome").display = not self.entries

    async def load(self, entries: list[Entry]) -> None:
        """Replace the conversation with ``entries`` (only the newest are mounted)."""
        async with self._changing_window():
            self.entries = list(entries)
            self._reply = None
            self._tools = {e.call_id: e for e in self.entries if isinstance(e, ToolEntry)}
            await self._mount_newest()

    async def add(self, entry: Entry) -> Widget | None:
        """Append ``entry`` and mount its widget (None: kept as data while reading history).

        A message from the user and a permission question bring the newest entries back.
        """
        if isinstance(entry, ToolEntry):
            self._tools[entry.call_id] = entry
        async with self._changing_window():
            if not self.showing_latest:
                self.entries.append(entry)
                if not isinstance(entry, UserEntry | PermissionEntry):
                    self._show_counts()
                    return None
                await self._mount_newest(2 * self.load_batch)
                return self.widget_of(entry)
            following = self.is_vertical_scroll_end
            self.entries.append(entry)
            self._last = len(self.entries)
            widget = self._make(entry)
            await self.mount(widget, before=self.query_one(LaterRow))
            self._show_welcome()
            if following:
                await self._prune()
            return widget

    # -- streaming --------------------------------------------------------------------------

    async def reply_delta(self, text: str) -> None:
        """Add streamed reply text (a new reply block starts after a tool call)."""

        if self._reply is None:
            self._reply = ReplyEntry(streaming=True)
            await self.add(self._reply)
        self._reply.text += text
        widget = self.widget_of(self._reply)
        if isinstance(widget, AssistantReply):
            await widget.stream_text(text)

    async def end_reply(self, interrupted: bool = False) -> None:
        """The streaming reply is complete, or was cut off."""
        entry, self._reply = self._reply, None
        if entry is None:
            return
        entry.streaming = False
        entry.interrupted = interrupted
        widget = self.widget_of(entry)
        if isinstance(widget, AssistantReply):
            await widget.finish(interrupted)

    async def tool_started(self, call_id: str, name: str, summary: str) -> None:
        """A tool call began (ends the reply text before it)."""
        await self.end_reply()
        await self.add(ToolEntry(call_id, name, summary))

    def tool_finished(self, call_id: str, status: str, output: str) -> None:
        """A tool call ended."""
        entry = self._tools.get(call_id)
        if entry is None:
            return
        entry.status, entry.output = status, output
        widget = self.widget_of(entry)
        if isinstance(widget, ToolBlock):
            widget.refresh_entry()

    def close_open_items(self) -> None:
        """The run ended: running tools were cancelled, open prompts get no answer."""

        for tool in self._tools.values():
            if tool.status == "running":
                self.tool_finished(tool.call_id, "cancelled", tool.output)
        for entry in self.entries:
            if isinstance(entry, PermissionEntry) and entry.decision is None:
                widget = self.widget_of(entry)
                if isinstance(widget, PermissionPrompt):
                    widget.close()
                else:
                    entry.closed = True
