"""The conversation pane: every entry kept as data, widgets for a run of at most ``window``.

A resumed session can hold thousands of messages, and a widget for each would make every layout
and every frame slower. The pane keeps all entries (``entries``) and mounts widgets for one
contiguous run of them (``shown``), by a single policy:

- Following the bottom, the run is the newest ``window`` entries. New entries are mounted at the
  end and the oldest removed; Textual's anchor keeps the view at the bottom.
- Inside the run the keys scroll as in any ``VerticalScroll``.
- Up, PgUp or the wheel at the top of the run (or a click on the "earlier" row) moves the run
  back: it becomes the entries that end with the one at the top, and the view shows its
  bottom, so that entry is now at the bottom of the screen. Down, PgDn or the wheel at the
  bottom does the same forwards: the run starts with the entry at the bottom, shown at the top.
  A move brings in a page of entries (``page``: as many as fill the view even if each were a
  single line), not a whole window: mounting is what a move costs (a ``Markdown`` is a dozen
  widgets), so a page costs less than the window would and the next move comes a page later.
- Home goes to the top of the run, and from there to the first page of messages; End goes to
  the newest (the last page, when reading back). A message from the user and a permission
  question also bring the newest back.

New output follows the bottom while the view is there. Once the person has moved away (PgUp,
the wheel, Tab onto a tool block, reading back), output arrives without moving the view and a
"new messages below" marker, fixed at the bottom of the pane, counts it; End or a click on it
jumps to the end, and reaching the bottom clears it.

Each move of the run is one batch update: the widgets removed and mounted and the new scroll
position show in the same frame (the view is placed at the top, or anchored at the bottom, both
of which Textual's layout does itself). Updates to an entry that has no widget (a finished tool
call, streamed text) change the entry and show when it is mounted again.

Replies are Textual's ``Markdown`` (``reply``); a streaming one is fed through
``Markdown.get_stream``.

User messages, replies and tool blocks take the focus (Tab, a click), so that ``p`` pins the
focused one (with the pane itself focused, the newest reply), through the steering controller;
every entry of a pinned message shows the pin mark (``show_pins``, kept as the pin keys: an
entry gets its mark whenever its widget is made).

The pane owns the engine events that are the conversation itself (``show_event``: streamed
text, tool calls, stored messages, pins) and the questions a run waits on (``ask``: a tool's
permission, ``ask`` mode's compaction, pins to drop). ``waiting`` says whether one is open, so
F8 shows only then; finding it costs the number of questions asked, not of entries.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from textual import events, on, widgets
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.agent.delegation.model import SubAgentUpdated
from steiner_tui.agent.session_factory import LOG_FAILED, LOG_RESTORED
from steiner_tui.app.messages import Said
from steiner_tui.app.plain import printable
from steiner_tui.app.resend import resend_text
from steiner_tui.app.subagent_view import delegate_summary, result_notice
from steiner_tui.app.transcript import (
    CompactionEntry,
    CompactionRunEntry,
    Entry,
    ErrorEntry,
    NoticeEntry,
    PermissionEntry,
    ReplyEntry,
    ToolEntry,
    UnpinEntry,
    UserEntry,
    entries_from_messages,
    error_entry,
    user_entry,
)
from steiner_tui.app.widgets.compaction_prompt import CompactionPrompt, QuestionLeft, UnpinPrompt
from steiner_tui.app.widgets.compaction_row import CompactionRow
from steiner_tui.app.widgets.error_row import ErrorRow
from steiner_tui.app.widgets.hidden_row import HiddenRow
from steiner_tui.app.widgets.new_below import NewBelowMarker
from steiner_tui.app.widgets.notice_row import NoticeRow
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.reply import INTERRUPTED_BADGE, mark_reply, reply_widget
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.events import (
    CompactionApplied,
    CompactionProgress,
    EngineEvent,
    ErrorEvent,
    MessageAppended,
    OutputCut,
    PinChanged,
    RequestSnapshot,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    WarningEvent,
)
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE
from steiner_tui.units import count, token_count

if TYPE_CHECKING:
    from textual.widgets import Markdown
    from textual.widgets.markdown import MarkdownStream

    from steiner_tui.agent.session import Session
    from steiner_tui.app.steering import SteeringController

__all__ = ["INTERRUPTED_BADGE", "WELCOME", "ConversationPane", "Question", "widget_for"]

Question = PermissionEntry | CompactionEntry | UnpinEntry
"""An entry a run waits on until it is answered."""
QuestionWidget = PermissionPrompt | CompactionPrompt | UnpinPrompt

WELCOME = (
    "Type below and press Enter.\n\n"
    "The context panel (F10 shows or hides it) is the request your next message will send, "
    "source by source: what each costs in bytes and tokens, and how close it is to the "
    "window.\n\n"
    "The skills (F9 shows or hides them) go out with your next message (Space or 1-9 to "
    "toggle).\n\n"
    "F1 lists every key and /command."
)
_NOT_COMPACTED = "compaction ended: nothing was compacted"
_ABANDONED = "compaction abandoned (Esc): the conversation is unchanged"
_KEPT_NOTICES = frozenset({"compaction_off", "compaction_failed", LOG_RESTORED})
"""Engine warnings that stay in the conversation as well as in a toast: ``off`` nearing the
hard limit, why a compaction failed, and a session log written anew after its folder went."""


def widget_for(entry: Entry, pinned: bool = False) -> Widget:
    """The widget that shows ``entry`` (``pinned``: with the pin mark)."""
    match entry:
        case UserEntry():
            return UserMessage(entry, pinned)
        case ReplyEntry():
            return reply_widget(entry, pinned)
        case ToolEntry():
            return ToolBlock(entry, pinned)
        case PermissionEntry():
            return PermissionPrompt(entry)
        case CompactionEntry():
            return CompactionPrompt(entry)
        case UnpinEntry():
            return UnpinPrompt(entry)
        case NoticeEntry():
            return NoticeRow(entry)
        case ErrorEntry():
            return ErrorRow(entry)
        case CompactionRunEntry():
            return CompactionRow(entry)


def _show_pin(widget: Widget, entry: Entry, pinned: bool) -> None:
    if isinstance(widget, UserMessage | ToolBlock):
        widget.show_pin(pinned)
    elif isinstance(entry, ReplyEntry):
        mark_reply(widget, interrupted=entry.interrupted, pinned=pinned)


class _Stream(msgspec.Struct):
    """The streaming reply's widget and the stream that feeds it."""

    widget: Markdown
    stream: MarkdownStream


class ConversationPane(VerticalScroll):
    """The conversation (display only)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "line_up", "Up", show=False, id="conversation.up",
                tooltip="Scroll up a line; at the top, show the messages before"),
        Binding("down", "line_down", "Down", show=False, id="conversation.down",
                tooltip="Scroll down a line; at the bottom, show the messages after"),
        Binding("pageup", "page_up_or_earlier", "Page up", show=False, id="conversation.page_up",
                tooltip="Scroll up a page; at the top, show the messages before"),
        Binding("pagedown", "page_down_or_later", "Page down", show=False,
                id="conversation.page_down",
                tooltip="Scroll down a page; at the bottom, show the messages after"),
        Binding("home", "home_or_first", "Top", show=False, id="conversation.home",
                tooltip="Scroll to the top; at the top, go to the first messages"),
        Binding("end", "end_or_newest", "Bottom", show=False, id="conversation.end",
                tooltip="Scroll to the bottom, showing the newest messages"),
        Binding("p", "pin", "Pin", id="main.pin", show=False,
                tooltip="Pin or unpin the focused message, reply or tool result (the newest reply "
                "when the conversation has focus): every compaction keeps it verbatim"),
    ]  # fmt: skip
    """Scrolling keys (past either end of the mounted run they move the run), and the pin key."""

    waiting: reactive[bool] = reactive(False, bindings=True)
    """A question (permission, compaction, pins) waits for an answer (F8 turns to it)."""
    compacting: reactive[str] = reactive("")
    """The running compaction's stage ("normal", "emergency, fallback model"), else ""."""

    def __init__(self, *, window: int = 40, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window = window
        """How many entries have widgets at most."""
        self.entries: list[Entry] = []
        """Every entry, oldest first."""
        self.shown = range(0)
        """The indices in ``entries`` of the entries that have widgets."""
        self._widgets: dict[int, Widget] = {}
        """The widget of each shown entry, by ``id`` of the entry."""
        self._moving = asyncio.Lock()
        """Held while the run changes: one change at a time."""
        self._reply: ReplyEntry | None = None
        self._stream: _Stream | None = None
        self._tools: dict[str, ToolEntry] = {}
        self.unseen = 0
        """Entries that arrived below the view since the person moved away from the bottom."""
        self.away = False
        """The person moved the view off the bottom (new output no longer follows it)."""
        self.pins: frozenset[str] = frozenset()
        """The pin keys of the pinned messages (their entries show the pin mark)."""
        self.steering: SteeringController | None = None
        """Pins and unpins (``p``), once the session is open."""
        self._questions: list[Question] = []
        """The questions asked, oldest first (answered ones leave on the next look)."""
        self.compaction: CompactionRunEntry | None = None
        """The compaction running (its live entry), if one is."""
        self.last_sent: str | None = None
        """The text of the last message sent from this app (F5 resends it)."""
        self.retry_label = "f5"
        """The key that resends, as the keymap has it (error entries name it)."""

    def compose(self) -> ComposeResult:
        yield HiddenRow("earlier")
        yield Static(WELCOME, id="welcome")
        yield HiddenRow("later")
        yield NewBelowMarker(id="new-below")

    def on_mount(self) -> None:
        """Show the welcome (at the top: the pane follows the bottom once it has entries)."""
        self._show_counts()

    # -- what is shown ------------------------------------------------------------------------

    @property
    def showing_latest(self) -> bool:
        """Whether the newest entry has a widget (not reading back in history)."""
        return self.shown.stop == len(self.entries)

    def widget_of(self, entry: Entry) -> Widget | None:
        """The widget of ``entry``, if it is shown."""
        return self._widgets.get(id(entry))

    def _show_counts(self) -> None:
        self.query_one("#earlier", HiddenRow).show_count(self.shown.start)
        self.query_one("#later", HiddenRow).show_count(len(self.entries) - self.shown.stop)
        self.query_one("#welcome").display = not self.entries

    def _mark_unseen(self, count: int = 1) -> None:
        """``count`` more entries arrived below the view."""
        self.unseen += count
        self.query_one(NewBelowMarker).show_count(self.unseen)

    def _mark_seen(self) -> None:
        self.away = False
        if self.unseen:
            self.unseen = 0
            self.query_one(NewBelowMarker).show_count(0)

    def release_anchor(self) -> None:
        """The view moved off the bottom (a key, the wheel, the scrollbar, a focused block)."""
        super().release_anchor()
        self.away = True

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Back at the end, the view follows new output again and the marker goes."""
        super().watch_scroll_y(old_value, new_value)
        if self.away and self.showing_latest and new_value >= self.max_scroll_y:
            self.away = False
            self._mark_seen()

    async def _show(self, shown: range, *, at_bottom: bool) -> None:
        """Show the entries in ``shown`` (keeping the widgets of those already shown), with the
        view at the bottom of them or at the top, painted as one frame."""
        keep = range(max(shown.start, self.shown.start), min(shown.stop, self.shown.stop))
        with self.app.batch_update():
            await self._remove([i for i in self.shown if i not in keep])
            if keep:
                kept = self.widget_of(self.entries[keep.start])
                before = [self._make(i) for i in range(shown.start, keep.start)]
                if before:
                    await self.mount_all(before, before=kept)
            after = [self._make(i) for i in range(keep.stop if keep else shown.start, shown.stop)]
            if after:
                await self.mount_all(after, before=self.query_one("#later", HiddenRow))
            self.shown = shown
            self._show_counts()
            if at_bottom:
                self.anchor()  # Textual's layout keeps the view at the bottom from now on
                if self.showing_latest:
                    self._mark_seen()
            else:
                self.scroll_home(animate=False, immediate=True)

    def _make(self, index: int) -> Widget:
        entry = self.entries[index]
        widget = self._widgets[id(entry)] = widget_for(entry, self._pinned(entry))
        return widget

    def _pinned(self, entry: Entry) -> bool:
        key = entry.key if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) else ""
        return bool(key) and key in self.pins

    def entry_of(self, widget: Widget | None) -> Entry | None:
        """The entry ``widget`` shows (None: not an entry's widget)."""
        if widget is None:
            return None
        return next(
            (e for i in self.shown if self._widgets.get(id(e := self.entries[i])) is widget), None
        )

    def show_pins(self, keys: Iterable[str]) -> None:
        """The pinned messages are now those of ``keys``: the mark comes and goes on the shown
        entries (the others get it when they are shown)."""
        pins = frozenset(keys)
        if pins == self.pins:
            return
        changed = pins ^ self.pins
        self.pins = pins
        for index in self.shown:
            entry = self.entries[index]
            key = entry.key if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) else ""
            widget = self.widget_of(entry)
            if key in changed and widget is not None:
                _show_pin(widget, entry, key in pins)

    def result_stored(self, call_id: str, key: str) -> None:
        """The result of tool call ``call_id`` was stored under pin key ``key``."""
        entry = self._tools.get(call_id)
        if entry is not None:
            entry.key = key

    async def _remove(self, indices: list[int]) -> None:
        widgets = [w for i in indices if (w := self._widgets.pop(id(self.entries[i]), None))]
        if self._stream is not None and self._stream.widget in widgets:
            await self._stop_stream()
        if widgets:
            await self.remove_children(widgets)

    async def load(self, entries: list[Entry]) -> None:
        """Replace the conversation with ``entries`` (the newest ``window`` are shown)."""
        async with self._moving:
            await self._stop_stream()
            await self._remove(list(self.shown))
            self.entries = list(entries)
            self.unseen = 0
            self.shown = range(len(self.entries), len(self.entries))
            self._reply = None
            self._tools = {e.call_id: e for e in self.entries if isinstance(e, ToolEntry)}
            self._questions = [e for e in self.entries if isinstance(e, Question) and _is_open(e)]
            end = len(self.entries)
            await self._show(range(max(0, end - self.window), end), at_bottom=True)

    async def show_session(self, session: Session) -> None:
        """Show a resumed conversation, then what the session has to say at start."""
        runner = session.driver.runner
        self.show_pins(runner.lineage.pins)  # marked as they are made
        root, statuses = str(session.project_root), session.tool_status.statuses
        logged = entries_from_messages(runner.conversation, root, session.logged_errors, statuses)
        await self.load(logged)
        for notice in session.notices:
            await self.add(NoticeEntry(notice, "session"))

    async def add(self, entry: Entry) -> Widget | None:
        """Append ``entry`` and show it (None: kept as data while reading back).

        A message from the user and a question (permission, compaction, pins) bring the newest
        entries back (and the view to the end); other entries follow the bottom only while the
        view is there, else the "new messages below" marker counts them.
        """
        if isinstance(entry, ToolEntry):
            self._tools[entry.call_id] = entry
        wanted = isinstance(entry, UserEntry | PermissionEntry | CompactionEntry | UnpinEntry)
        async with self._moving:
            latest = self.showing_latest
            self.entries.append(entry)
            end = len(self.entries)
            if not latest:
                if wanted:
                    await self._show(range(max(0, end - self.page), end), at_bottom=True)
                    return self.widget_of(entry)
                self._show_counts()
                self._mark_unseen()
                return None
            following = not self.away
            widget = self._make(end - 1)
            await self.mount(widget, before=self.query_one("#later", HiddenRow))
            if wanted and not following:
                self.anchor()
                self.scroll_end(animate=False, immediate=True)  # the view comes back down
                self._mark_seen()
                following = True
            elif not following:
                self._mark_unseen()
            if following and not self.is_anchored:
                self.anchor()  # the first entry: follow the bottom from now on
            start = self.shown.start
            # Reading up inside the newest entries, the oldest stay until the run is twice as long:
            # removing them would move what is on screen.
            if end - start > (self.window if following else 2 * self.window):
                await self._remove(list(range(start, end - self.window)))
                start = end - self.window
            self.shown = range(start, end)
            self._show_counts()
            return widget

    # -- moving the run -------------------------------------------------------------------------

    @property
    def page(self) -> int:
        """How many entries a move shows: enough to fill the view if each were one line (two
        rows with the gap above it), at most ``window``."""
        return max(1, min(self.window, self.scrollable_content_region.height // 2 + 1))

    async def show_earlier(self) -> None:
        """Show a page of entries before the run, ending with the one at the top of the view."""
        async with self._moving:
            if not self.shown.start:
                return
            top = self.shown.start
            # A first entry taller than the view stays out: its bottom would show, not its top.
            if self._taller_than_view(self.entries[top]):
                top -= 1
            stop = top + 1
            await self._show(range(max(0, stop - self.page), stop), at_bottom=True)

    async def show_later(self) -> None:
        """Show a page of entries after the run, starting with the one at the bottom of the
        view."""
        async with self._moving:
            if self.showing_latest:
                return
            bottom = self.shown.stop - 1
            if self._taller_than_view(self.entries[bottom]):
                bottom += 1
            stop = min(len(self.entries), bottom + self.page)
            await self._show(range(bottom, stop), at_bottom=False)

    def _taller_than_view(self, entry: Entry) -> bool:
        widget = self.widget_of(entry)
        height = self.scrollable_content_region.height
        return widget is not None and widget.outer_size.height > height

    async def show_first(self) -> None:
        """Show the first page of entries, from the top."""
        async with self._moving:
            await self._show(range(min(len(self.entries), self.page)), at_bottom=False)

    async def show_newest(self) -> None:
        """Show the newest entries, at the bottom (following it from now on): the last page
        when reading back, the run grows to ``window`` as entries arrive."""
        async with self._moving:
            end = len(self.entries)
            await self._show(range(max(0, end - self.page), end), at_bottom=True)

    # -- keys -----------------------------------------------------------------------------------

    # Where the view is going, not where an animated scroll has got to: a second Home while
    # the first still scrolls means the first messages. Entries shorter than the view are at
    # both ends (anchored, Textual shows them at the bottom: the scroll position is negative).
    @property
    def _at_top(self) -> bool:
        return self.scroll_target_y <= 0

    @property
    def _at_bottom(self) -> bool:
        return self.max_scroll_y == 0 or self.scroll_target_y >= self.max_scroll_y

    async def action_line_up(self) -> None:
        """Up a line; at the top, the entries before."""
        if self._at_top and self.shown.start:
            await self.show_earlier()
        else:
            self.action_scroll_up()

    async def action_line_down(self) -> None:
        """Down a line; at the bottom, the entries after."""
        if self._at_bottom and not self.showing_latest:
            await self.show_later()
        else:
            self.action_scroll_down()

    async def action_page_up_or_earlier(self) -> None:
        """Up a page; at the top, the entries before."""
        if self._at_top and self.shown.start:
            await self.show_earlier()
        else:
            self.action_page_up()

    async def action_page_down_or_later(self) -> None:
        """Down a page; at the bottom, the entries after."""
        if self._at_bottom and not self.showing_latest:
            await self.show_later()
        else:
            self.action_page_down()

    async def action_home_or_first(self) -> None:
        """To the top of the run; at the top, the first entries."""
        if self._at_top and self.shown.start:
            await self.show_first()
        else:
            self.action_scroll_home()

    async def action_end_or_newest(self) -> None:
        """To the bottom, and the newest entries."""
        if self.showing_latest:
            self.scroll_end(animate=False)
            self._mark_seen()
        else:
            await self.show_newest()

    async def scroll_from_prompt(self, key: str) -> None:
        """PgUp / PgDn / Home / End pressed in the prompt: scroll (or move the run) here."""
        actions = {
            "pageup": self.action_page_up_or_earlier,
            "pagedown": self.action_page_down_or_later,
            "home": self.action_home_or_first,
            "end": self.action_end_or_newest,
        }
        await actions[key]()

    async def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """The wheel at the top shows the entries before."""
        if self._at_top and self.shown.start:
            event.stop()
            await self.show_earlier()

    async def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        """The wheel at the bottom shows the entries after."""
        if self._at_bottom and not self.showing_latest:
            event.stop()
            await self.show_later()

    @on(HiddenRow.Clicked, "#earlier")
    async def _earlier_requested(self) -> None:
        await self.show_earlier()

    @on(HiddenRow.Clicked, "#later")
    @on(NewBelowMarker.JumpRequested)
    async def _newest_requested(self) -> None:
        await self.action_end_or_newest()

    # -- streaming --------------------------------------------------------------------------

    async def reply_delta(self, text: str) -> None:
        """Add streamed reply text (a new reply block starts after a tool call)."""
        text = printable(text)
        if self._reply is None:
            self._reply = ReplyEntry(streaming=True)
            await self.add(self._reply)
        elif self.away and not self.unseen:
            self._mark_unseen()  # the reply goes on growing below the view
        self._reply.text += text
        widget = self.widget_of(self._reply)
        if widget is None:
            return  # not shown: its widget starts from the whole text when it is
        if self._stream is None or self._stream.widget is not widget:
            await self._stop_stream()
            markdown = self._markdown(widget)
            # A widget made while the reply streamed already holds the text before this fragment.
            written = markdown.source
            self._stream = _Stream(markdown, widgets.Markdown.get_stream(markdown))
            text = self._reply.text[len(written) :]
        await self._stream.stream.write(text)

    @staticmethod
    def _markdown(widget: Widget) -> Markdown:
        assert isinstance(widget, widgets.Markdown)
        return widget

    async def _stop_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            await stream.stream.stop()

    async def end_reply(self, interrupted: bool = False, key: str = "") -> None:
        """The streaming reply is complete, or was cut off (``key``: the pin key of the
        stored message)."""
        entry, self._reply = self._reply, None
        if entry is None:
            return
        await self._stop_stream()
        entry.streaming = False
        entry.interrupted = interrupted
        entry.key = key
        widget = self.widget_of(entry)
        if widget is not None:
            mark_reply(widget, interrupted=interrupted, pinned=self._pinned(entry))

    async def tool_started(
        self, call_id: str, name: str, summary: str, arguments: Mapping[str, Any] | None = None
    ) -> None:
        """A tool call began (ends the reply text before it)."""
        await self.end_reply()
        await self.add(ToolEntry(call_id, name, summary, arguments=arguments or {}))

    def tool_finished(
        self, call_id: str, status: str, output: str, cut: OutputCut | None = None
    ) -> None:
        """A tool call ended (``cut``: what of its output the model did not get)."""
        entry = self._tools.get(call_id)
        if entry is None:
            return
        entry.status, entry.output, entry.cut = status, output, cut
        widget = self.widget_of(entry)
        if isinstance(widget, ToolBlock):
            widget.refresh_entry()

    def close_open_items(self) -> None:
        """The run ended: running tools were cancelled, open prompts get no answer."""
        for tool in self._tools.values():
            if tool.status == "running":
                self.tool_finished(tool.call_id, "cancelled", tool.output)
        for entry in self._questions:
            if isinstance(entry, PermissionEntry) and entry.decision is None:
                widget = self.widget_of(entry)
                if isinstance(widget, PermissionPrompt):
                    widget.close()
                else:
                    entry.closed = True
            elif isinstance(entry, CompactionEntry | UnpinEntry) and entry.choice is None:
                widget = self.widget_of(entry)
                if isinstance(widget, CompactionPrompt | UnpinPrompt):
                    widget.close()
                else:
                    entry.closed = True
        self.waiting = self.open_question() is not None

    # -- a compaction running -------------------------------------------------------------------

    async def compaction_progress(self, event: CompactionProgress) -> None:
        """A summary call started or its output grew: one live entry per compaction, which
        the next stage (or the rerun on main after the fallback) takes over."""
        entry = self.compaction
        if entry is None:
            entry = CompactionRunEntry(event.stage, event.target, event.fallback, time.monotonic())
            self.compaction = entry
            await self.add(entry)
        entry.stage, entry.target, entry.fallback = event.stage, event.target, event.fallback
        entry.tokens = event.tokens
        self.compacting = f"{entry.stage}, fallback model" if entry.fallback else entry.stage
        widget = self.widget_of(entry)
        if isinstance(widget, CompactionRow):
            widget.refresh_entry()

    def end_compaction(self, text: str, kind: str = "compaction") -> bool:
        """The running compaction ended as ``text`` says; False when none was running."""
        entry, self.compaction = self.compaction, None
        self.compacting = ""
        if entry is None:
            return False
        entry.ended, entry.kind, entry.took = text, kind, time.monotonic() - entry.started
        widget = self.widget_of(entry)
        if isinstance(widget, CompactionRow):
            widget.refresh_entry()
        return True

    # -- engine events and questions ----------------------------------------------------------

    async def show_event(self, event: EngineEvent) -> None:
        """Show an engine event that is the conversation's: streamed text, a tool call starting
        or ending, a message stored, a pin made or removed, a compaction's progress and end, a
        warning, an error (other events: nothing)."""
        match event:
            case TextDelta(text=text):
                await self.reply_delta(text)
            case ToolCallStarted(call=call, summary=summary):
                if call.name == "delegate":  # the engine's summary keys leave out type and task
                    summary = delegate_summary(call.arguments or {})
                await self.tool_started(call.id, call.name, summary, call.arguments or {})
            case ToolCallFinished(call=call, status=status, output=output, cut=cut):
                self.tool_finished(call.id, status, output, cut)
            case MessageAppended(message=stored):
                if stored.source == SUB_AGENT_RESULT_SOURCE:
                    await self.add(NoticeEntry(result_notice(stored.content), "subagent"))
                elif stored.role == "user":
                    await self.add(user_entry(stored.content, pin_key(stored)))
                elif stored.role == "assistant":
                    await self.end_reply(stored.incomplete, pin_key(stored))
                elif stored.role == "tool":
                    self.result_stored(stored.tool_call_id, pin_key(stored))
            case PinChanged(key=key, pinned=pinned):
                if self.steering is not None:  # the lineage has every pin
                    self.show_pins(self.steering.runner.lineage.pins)
                else:
                    self.show_pins(self.pins | {key} if pinned else self.pins - {key})
            case CompactionProgress():
                await self.compaction_progress(event)
            case RequestSnapshot(compaction=False):  # the turn goes on: a compaction is over
                self.end_compaction(_NOT_COMPACTED)
            case CompactionApplied(generation_id=generation, outcome=outcome):
                text = (
                    f"compacted into generation {generation}: "
                    f"{count(outcome.before_tokens)} → {token_count(outcome.after_tokens)}"
                )
                if not self.end_compaction(text):
                    await self.add(NoticeEntry(text, "compaction"))
            case WarningEvent(code=code, message=text):
                await self._warning(code, text)
            case ErrorEvent(code=code, message=text, remedies=remedies):
                await self.end_reply()
                await self.add(error_entry(code, text, remedies, self.retry_key(erred=True)))
            case SubAgentUpdated():
                pass  # the sub-agent panel's

    async def _warning(self, code: str, text: str) -> None:
        if code == "compaction_failed" and self.end_compaction(text, "error"):
            pass  # the live entry says it
        elif code in _KEPT_NOTICES:  # stays in the conversation, not only a toast
            await self.add(NoticeEntry(text, "warning"))
        if code == LOG_FAILED:  # nothing from here on is saved: said where it stays
            await self.add(NoticeEntry(text, "error"))
            self.notify(text, title="Session not saved", severity="error")
        else:  # the code is an identifier: the title says it in words
            self.notify(text, title=code.replace("_", " ").capitalize(), severity="warning")

    # -- how a run ended, and what F5 sends again ------------------------------------------------

    async def run_ended(self, status: str, detail: str, compaction: bool) -> None:
        """A run (``compaction``: ``/compact``) ended as ``status`` says: its reply, tools,
        questions and compaction are closed, and an interruption or error is said."""
        interrupted = status == "cancelled"
        await self.end_reply(interrupted)
        self.close_open_items()
        if interrupted and self.end_compaction(_ABANDONED, "interrupted"):
            pass  # nothing of the summary is kept: the live entry says so
        elif interrupted:
            text = _ABANDONED if compaction else "interrupted (Esc)"
            await self.add(NoticeEntry(text, "interrupted"))
        elif status == "error" and detail:  # else the engine said why
            await self.add(error_entry("run", detail, (), self.retry_key(erred=True)))
        elif detail:
            self.notify(detail)
        if status == "error":  # a compaction still shown running ended with the run
            self.end_compaction("compaction failed: the run stopped", "error")
        else:
            self.end_compaction(_NOT_COMPACTED)

    def unanswered(self, *, erred: bool = False) -> str | None:
        """The text F5 sends again (``resend_text``), else None."""
        if self.steering is None:
            return None
        conversation = self.steering.runner.conversation
        return resend_text(conversation, self.entries, self.last_sent, erred=erred)

    def retry_key(self, *, erred: bool = False) -> str:
        """The key that resends, "" when there is nothing to resend."""
        return "" if self.unanswered(erred=erred) is None else self.retry_label

    async def ask(self, entry: Question) -> None:
        """Show a question the run waits on. Shown, never focused: text typed ahead stays in
        the prompt, and only a deliberate action answers (F8 or a click)."""
        self._questions.append(entry)
        await self.add(entry)
        self.waiting = True
        if isinstance(entry, PermissionEntry):
            self.notify(
                f"{entry.request.tool} asks for permission: F8 to answer",
                title="Permission",
                severity="warning",
            )

    def open_question(self) -> Question | None:
        """The newest question still waiting for an answer."""
        self._questions = [q for q in self._questions if _is_open(q)]
        return self._questions[-1] if self._questions else None

    async def turn_to_question(self) -> QuestionWidget | None:
        """Focus the newest open question (bringing the newest entries back to show it)."""
        entry = self.open_question()
        if entry is None:
            return None
        if self.widget_of(entry) is None:
            await self.show_newest()
        widget = self.widget_of(entry)
        if not isinstance(widget, QuestionWidget):
            return None
        widget.focus()
        widget.scroll_visible()
        return widget

    @on(PermissionPrompt.Done)
    @on(QuestionLeft)
    def _question_left(self) -> None:
        self.waiting = self.open_question() is not None

    # -- pins ---------------------------------------------------------------------------------

    def _pin_entry(self) -> Entry | None:
        focused = self.screen.focused
        entry = self.entry_of(focused)
        return entry if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``p`` pins only with a message's entry, or the pane itself, focused (elsewhere in
        the pane, a question's, it is not a key: the typing goes to the prompt)."""
        if action == "pin":
            return True if self._pin_entry() or self.screen.focused is self else None
        return True

    async def action_pin(self) -> None:
        """Pin or unpin the focused entry's message, or the newest reply."""
        steering = self.steering
        if steering is None:
            return
        entry = self._pin_entry()
        try:
            if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) and entry.key:
                pinned, label = steering.toggle_key(entry.key)
            elif isinstance(entry, ReplyEntry):
                raise ValueError("the reply is still coming: pin it once it is complete")
            elif isinstance(entry, ToolEntry):
                pinned, label = steering.toggle_call(entry.call_id)
            elif self.screen.focused is self:
                pinned, label = steering.toggle_newest_reply()
            else:
                return
        except ValueError as error:
            self.notify(str(error), title="Context", severity="warning")
            return
        self.post_message(Said(f"{'pinned' if pinned else 'unpinned'} {label}"))


def _is_open(entry: Question) -> bool:
    answered = entry.decision if isinstance(entry, PermissionEntry) else entry.choice
    return answered is None and not entry.closed
