"""The conversation pane: every entry kept as data, only a window of them mounted.

A session can reach thousands of messages; mounting a widget for each would make every layout
pass slower. The pane keeps all entries and mounts widgets for a contiguous run of them: the
last ``window`` while the view follows the bottom (older widgets are pruned as new entries
arrive). Home or PgUp at the top (or a click on the top row) mounts an earlier batch; past
``window + 2 * load_batch`` mounted entries the newest are unmounted, so reading far back costs
no more than reading near the end. PgDn at the bottom then mounts later batches again, End (or
a click on the bottom row) jumps to the newest, and so does a new message or a permission
question. Widgets for unmounted entries do not exist, so updates (a finished tool call, streamed
text) go to the entry and show when it is mounted again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.app.widgets.earlier_row import EarlierRow
from steiner_tui.app.widgets.later_row import LaterRow

if TYPE_CHECKING:
    from steiner_tui.app.transcript import Entry, ReplyEntry, ToolEntry

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
    # Entries and their widgets are imported when the first entry is shown: a new session starts
    # without any, so the first frame does not wait for them (nor for the Markdown renderer).
    from steiner_tui.app.transcript import (
        NoticeEntry,
        PermissionEntry,
        ReplyEntry,
        ToolEntry,
        UserEntry,
    )
    from steiner_tui.app.widgets.assistant_reply import AssistantReply
    from steiner_tui.app.widgets.notice_row import NoticeRow
    from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
    from steiner_tui.app.widgets.tool_block import ToolBlock
    from steiner_tui.app.widgets.user_message import UserMessage

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


class ConversationPane(VerticalScroll):
    """The conversation (display only)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "home_or_earlier", "Top", show=False, id="conversation.home",
                tooltip="Scroll to the top; at the top, load earlier messages"),
        Binding("pageup", "page_up_or_earlier", "Page up", show=False, id="conversation.page_up",
                tooltip="Scroll up a page; at the top, load earlier messages"),
        Binding("pagedown", "page_down_or_later", "Page down", show=False,
                id="conversation.page_down",
                tooltip="Scroll down a page; at the bottom, load later messages"),
        Binding("end", "end_or_latest", "Bottom", show=False, id="conversation.end",
                tooltip="Scroll to the bottom, showing the newest messages"),
    ]  # fmt: skip
    """Scrolling keys that also load earlier or later messages."""

    def __init__(self, *, window: int = 30, batch: int = 6, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        """How many entries stay mounted while following the bottom."""
        self.load_batch = batch
        """How many earlier entries one request mounts."""
        self.entries: list[Entry] = []
        """Every entry of the conversation, oldest first."""
        self._first = 0
        self._last = 0
        """Entries ``[_first, _last)`` are mounted."""
        self._widgets: dict[int, Widget] = {}
        self._reply: ReplyEntry | None = None
        self._tools: dict[str, ToolEntry] = {}

    def compose(self) -> ComposeResult:
        yield EarlierRow(id="earlier")
        yield Static(WELCOME, id="welcome")
        yield LaterRow(id="later")

    def on_mount(self) -> None:
        """Follow the bottom."""
        self.query_one(EarlierRow).show_count(0)
        self.query_one(LaterRow).show_count(0)
        self.anchor()

    def _show_welcome(self) -> None:
        self.query_one("#welcome").display = not self.entries

    @property
    def mounted_count(self) -> int:
        """How many entries have widgets."""
        return self._last - self._first

    @property
    def showing_latest(self) -> bool:
        """Whether the newest entry is mounted (not reading back in history)."""
        return self._last == len(self.entries)

    def _show_counts(self) -> None:
        self.query_one(EarlierRow).show_count(self._first)
        self.query_one(LaterRow).show_count(len(self.entries) - self._last)

    def widget_of(self, entry: Entry) -> Widget | None:
        """The mounted widget of ``entry``, if any."""
        return self._widgets.get(id(entry))

    def _make(self, entry: Entry) -> Widget:
        widget = widget_for(entry)
        self._widgets[id(entry)] = widget
        return widget

    async def load(self, entries: list[Entry]) -> None:
        """Replace the conversation with ``entries`` (only the newest are mounted)."""
        from steiner_tui.app.transcript import ToolEntry

        self.entries = list(entries)
        self._reply = None
        self._tools = {e.call_id: e for e in self.entries if isinstance(e, ToolEntry)}
        await self._mount_newest()

    async def jump_to_latest(self) -> None:
        """Mount the newest entries again (after reading back in history).

        Only ``2 * load_batch`` of them, enough to fill the view: the jump is one key press, and
        Home or PgUp at the top mounts more.
        """
        if not self.showing_latest:
            await self._mount_newest(2 * self.load_batch)

    async def _mount_newest(self, count: int | None = None) -> None:
        await self.remove_children(".conversation-item")
        self._widgets.clear()
        self._last = len(self.entries)
        self._first = max(0, self._last - (self.window if count is None else count))
        widgets = [self._make(e) for e in self.entries[self._first :]]
        await self.mount_all(widgets, before=self.query_one(LaterRow))
        self._show_counts()
        self._show_welcome()
        self.anchor()

    async def add(self, entry: Entry) -> Widget | None:
        """Append ``entry`` and mount its widget (None: kept as data while reading history).

        A message from the user and a permission question bring the newest entries back.
        """
        from steiner_tui.app.transcript import PermissionEntry, ToolEntry, UserEntry

        if isinstance(entry, ToolEntry):
            self._tools[entry.call_id] = entry
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

    async def _unmount(self, entries: list[Entry]) -> int:
        """Remove the widgets of ``entries``; returns the lines they took."""
        widgets = [w for w in (self._widgets.pop(id(e), None) for e in entries) if w is not None]
        lines = sum(w.outer_size.height for w in widgets)
        await self.remove_children(widgets)
        return lines

    async def _prune(self) -> None:
        if self.mounted_count <= self.window + self.load_batch // 2:
            return
        stale = self.entries[self._first : self._last - self.window]
        self._first += len(stale)
        await self._unmount(stale)
        self._show_counts()

    @property
    def _most(self) -> int:
        """The most entries mounted while reading history."""
        return self.window + 2 * self.load_batch

    async def load_earlier(self) -> int:
        """Mount up to ``load_batch`` earlier entries; returns how many were mounted.

        Past ``window + 2 * load_batch`` mounted entries, as many of the newest are unmounted
        (they are below the view, which stays at the top).
        """
        start = max(0, self._first - self.load_batch)
        chunk = self.entries[start : self._first]
        if not chunk:
            return 0
        await self.mount_all([self._make(e) for e in chunk], after=self.query_one(EarlierRow))
        self._first = start
        excess = self.mounted_count - self._most
        if excess > 0:
            self._last -= excess
            await self._unmount(self.entries[self._last : self._last + excess])
        self._show_counts()
        return len(chunk)

    async def load_later(self) -> int:
        """Mount up to ``load_batch`` later entries; returns how many were mounted.

        The oldest mounted ones go past ``window + 2 * load_batch``, and the view moves up by
        the lines they took, so what was on screen stays where it was.
        """
        chunk = self.entries[self._last : self._last + self.load_batch]
        if not chunk:
            return 0
        await self.mount_all([self._make(e) for e in chunk], before=self.query_one(LaterRow))
        self._last += len(chunk)
        excess = self.mounted_count - self._most
        if excess > 0:
            lines = await self._unmount(self.entries[self._first : self._first + excess])
            self._first += excess
            self.scroll_to(y=max(0, self.scroll_y - lines), animate=False, immediate=True)
        self._show_counts()
        return len(chunk)

    async def action_home_or_earlier(self) -> None:
        """Load earlier entries when already at the top, then scroll home."""
        if self.scroll_y <= 0:
            await self.load_earlier()
        self.action_scroll_home()

    async def action_page_up_or_earlier(self) -> None:
        """Load earlier entries when already at the top, then page up."""
        if self.scroll_y <= 0:
            await self.load_earlier()
        self.action_page_up()

    async def action_page_down_or_later(self) -> None:
        """Load later entries when already at the bottom (reading history), then page down."""
        if self.is_vertical_scroll_end and not self.showing_latest:
            await self.load_later()
        self.action_page_down()

    async def action_end_or_latest(self) -> None:
        """The newest entries, at the bottom."""
        if self.showing_latest:
            self.action_scroll_end()
        else:
            await self.jump_to_latest()  # anchored: the view starts at the bottom

    # Keys move the view at once. Textual animates key scrolling, and the animation's own
    # frame timer delays the first moved frame by up to two frame periods (33 ms at 60 fps).

    def _check_scroll(self) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()

    def action_scroll_up(self) -> None:
        """Up one line."""
        self._check_scroll()
        self.scroll_up(animate=False)

    def action_scroll_down(self) -> None:
        """Down one line."""
        self._check_scroll()
        self.scroll_down(animate=False)

    def action_page_up(self) -> None:
        """Up one page."""
        self._check_scroll()
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        """Down one page."""
        self._check_scroll()
        self.scroll_page_down(animate=False)

    def action_scroll_home(self) -> None:
        """To the top of what is mounted."""
        self._check_scroll()
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        """To the bottom."""
        self._check_scroll()
        self.scroll_end(animate=False)

    @on(EarlierRow.LoadRequested)
    async def _load_requested(self) -> None:
        await self.load_earlier()

    @on(LaterRow.JumpRequested)
    async def _jump_requested(self) -> None:
        await self.action_end_or_latest()

    # -- streaming --------------------------------------------------------------------------

    async def reply_delta(self, text: str) -> None:
        """Add streamed reply text (a new reply block starts after a tool call)."""
        from steiner_tui.app.transcript import ReplyEntry
        from steiner_tui.app.widgets.assistant_reply import AssistantReply

        if self._reply is None:
            self._reply = ReplyEntry(streaming=True)
            await self.add(self._reply)
        self._reply.text += text
        widget = self.widget_of(self._reply)
        if isinstance(widget, AssistantReply):
            await widget.stream_text(text)

    async def end_reply(self, interrupted: bool = False) -> None:
        """The streaming reply is complete, or was cut off."""
        from steiner_tui.app.widgets.assistant_reply import AssistantReply

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
        from steiner_tui.app.transcript import ToolEntry

        await self.end_reply()
        await self.add(ToolEntry(call_id, name, summary))

    def tool_finished(self, call_id: str, status: str, output: str) -> None:
        """A tool call ended."""
        from steiner_tui.app.widgets.tool_block import ToolBlock

        entry = self._tools.get(call_id)
        if entry is None:
            return
        entry.status, entry.output = status, output
        widget = self.widget_of(entry)
        if isinstance(widget, ToolBlock):
            widget.refresh_entry()

    def close_open_items(self) -> None:
        """The run ended: running tools were cancelled, open prompts get no answer."""
        from steiner_tui.app.transcript import PermissionEntry
        from steiner_tui.app.widgets.permission_prompt import PermissionPrompt

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
