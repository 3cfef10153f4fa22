"""The conversation pane: replies, tool calls, questions, pins and how each run ended.

The pane is an ``EntryWindow``: every entry kept as data, widgets for a run of the newest
(``entry_window`` says how the run moves and follows new output). Replies are Textual's
``Markdown``, streamed by ``reply.ReplyStream``.

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

import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from steiner_tui.agent.delegation.model import SubAgentUpdated
from steiner_tui.agent.session_factory import LOG_FAILED, STOPPED_MID_REPLY
from steiner_tui.app.messages import Said
from steiner_tui.app.plain import printable
from steiner_tui.app.resend import STOPPED, resend_text
from steiner_tui.app.subagent_view import result_notice
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
    tool_summary,
    user_entry,
)
from steiner_tui.app.widgets.compaction_prompt import CompactionPrompt, QuestionLeft, UnpinPrompt
from steiner_tui.app.widgets.compaction_row import CompactionRow
from steiner_tui.app.widgets.entry_window import EntryWindow
from steiner_tui.app.widgets.error_row import ErrorRow
from steiner_tui.app.widgets.notice_row import NoticeRow
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.reply import INTERRUPTED_BADGE, ReplyStream, mark_reply, reply_widget
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
    ToolOutputProgress,
    WarningEvent,
)
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE
from steiner_tui.sessions.log_parse import KEPT_WARNINGS
from steiner_tui.units import count, token_count

if TYPE_CHECKING:
    from steiner_tui.agent.session import Session
    from steiner_tui.app.steering import SteeringController

__all__ = ["INTERRUPTED_BADGE", "ConversationPane", "Question"]

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
_ABANDONED = "compaction abandoned by you: the conversation is unchanged"


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


class ConversationPane(EntryWindow):
    """The conversation (display only)."""

    EMPTY = WELCOME

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
    """Scrolling keys (past either end of the mounted run they move the run: ``EntryWindow``'s
    actions), and the pin key."""

    waiting: reactive[bool] = reactive(False, bindings=True)
    """A question (permission, compaction, pins) waits for an answer (F8 turns to it)."""
    compacting: reactive[str] = reactive("")
    """The running compaction's stage ("normal", "emergency, fallback model"), else ""."""

    def __init__(
        self,
        *,
        window: int = 40,
        id: str | None = None,
        empty: str | None = None,
        followed: bool = False,
    ) -> None:
        super().__init__(window=window, id=id, empty=empty)
        self.followed = followed
        """Another agent's conversation (``watch``, ``import``): its prompts are not the
        reader's, so one that arrives while it is followed leaves a reader who went back where
        they are."""
        self.reply = ReplyStream()
        """The reply streaming now."""
        self._tools: dict[str, ToolEntry] = {}
        self.pins: frozenset[str] = frozenset()
        """The pin keys of the pinned messages (their entries show the pin mark)."""
        self.steering: SteeringController | None = None
        """Pins and unpins (``p``), once the session is open."""
        self._questions: list[Question] = []
        """The questions asked, oldest first (answered ones leave on the next look)."""
        self.compaction: CompactionRunEntry | None = None
        """The compaction running (its live entry), if one is."""
        self._rejections: list[str] = []
        """The summaries rejected while it runs: said when it ends, unless its line says why."""
        self.last_sent: str | None = None
        """The text of the last message sent from this app (F5 resends it)."""
        self.retry_label = "f5"
        """The key that resends, as the keymap has it (error entries name it)."""

    # -- what the window shows ----------------------------------------------------------------

    def make_widget(self, entry: Entry) -> Widget:
        """The widget that shows ``entry`` (with the pin mark when its message is pinned)."""
        return widget_for(entry, self._pinned(entry))

    def brings_newest(self, entry: Entry) -> bool:
        """A message from the user and a question bring the newest entries back."""
        return isinstance(entry, Question) or (isinstance(entry, UserEntry) and not self.followed)

    async def removing(self, widgets: list[Widget]) -> None:
        """A streaming reply's widget leaving stops its stream (its entry goes on growing)."""
        await self.reply.stop(widgets)

    def _pinned(self, entry: Entry) -> bool:
        key = entry.key if isinstance(entry, UserEntry | ReplyEntry | ToolEntry) else ""
        return bool(key) and key in self.pins

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

    async def load(self, entries: list[Entry]) -> None:
        """Replace the conversation with ``entries`` (the newest ``page`` are shown)."""
        self.reply.entry = None
        self._tools = {e.call_id: e for e in entries if isinstance(e, ToolEntry)}
        self._questions = [e for e in entries if isinstance(e, Question) and _is_open(e)]
        await super().load(entries)

    async def show_session(self, session: Session) -> None:
        """Show a resumed conversation, then what the session has to say at start."""
        runner = session.driver.runner
        self.show_pins(runner.lineage.pins)  # marked as they are made
        root, book = str(session.project_root), session.tool_status
        logged = entries_from_messages(
            runner.conversation, root, session.logged_errors, book.statuses, book.answers
        )
        await self.load(logged)
        self.query_one("#welcome", Static).update(self.EMPTY)  # shown again after /clear
        for notice in session.notices:
            if notice == STOPPED_MID_REPLY:  # not the person's choice, as Esc is: it is resent
                resent = f"{notice}; {self.retry_label} resends your message"
                await self.add(NoticeEntry(resent, STOPPED))
            else:
                await self.add(NoticeEntry(notice, "session"))

    async def add(self, entry: Entry) -> Widget | None:
        """Append ``entry`` and show it (None: kept as data while reading back)."""
        if isinstance(entry, ToolEntry):
            self._tools[entry.call_id] = entry
        return await super().add(entry)

    # -- streaming --------------------------------------------------------------------------

    async def reply_delta(self, text: str) -> None:
        """Add streamed reply text (a new reply block starts after a tool call)."""
        if self.reply.entry is None:
            self.reply.entry = ReplyEntry(streaming=True)
            await self.add(self.reply.entry)
        elif self.away and not self.unseen:
            self._mark_unseen()  # the reply goes on growing below the view
        await self.reply.write(printable(text), self.widget_of(self.reply.entry))

    async def end_reply(self, interrupted: bool = False, key: str = "") -> None:
        """The streaming reply is complete, or was cut off (``key``: the pin key of the
        stored message)."""
        entry = await self.reply.end(interrupted, key)
        widget = self.widget_of(entry) if entry is not None else None
        if entry is not None and widget is not None:
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
        self._refresh(entry)

    def tool_progress(self, call_id: str, lines: int, tail: str) -> None:
        """A running command's output so far: ``lines`` of it, ``tail`` the last of them."""
        entry = self._tools.get(call_id)
        if entry is None or entry.status != "running":
            return
        entry.lines, entry.output = lines, tail
        self._refresh(entry)

    def _refresh(self, entry: Entry | None) -> None:
        """Show what changed in ``entry`` (a tool call, a compaction), if it is shown."""
        widget = self.widget_of(entry) if entry is not None else None
        if isinstance(widget, ToolBlock | CompactionRow):
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
        entry.trigger = event.trigger
        entry.tokens = event.tokens
        self.compacting = f"{entry.stage}, fallback model" if entry.fallback else entry.stage
        self._refresh(entry)

    def end_compaction(self, text: str, kind: str = "compaction", *, why: bool = False) -> bool:
        """The running compaction ended as ``text`` says (``why``: with every stage's reason,
        a rejected summary's too); False when none was running."""
        entry, self.compaction = self.compaction, None
        self.compacting = ""
        rejections, self._rejections = self._rejections, []
        for said in [] if why else rejections:
            self.call_later(self.add, NoticeEntry(said, "warning"))
        if entry is None:
            return False
        entry.ended, entry.kind, entry.took = text, kind, time.monotonic() - entry.started
        self._refresh(entry)
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
                summary = tool_summary(call, summary)
                await self.tool_started(call.id, call.name, summary, call.arguments or {})
            case ToolCallFinished(call=call, status=status, output=output, cut=cut):
                self.tool_finished(call.id, status, output, cut)
            case ToolOutputProgress(call_id=call_id, lines=lines, tail=tail):
                self.tool_progress(call_id, lines, tail)
            case MessageAppended(message=stored):
                if stored.source == SUB_AGENT_RESULT_SOURCE:
                    await self.add(NoticeEntry(result_notice(stored.content), "subagent"))
                elif stored.role == "user":
                    await self.add(user_entry(stored.content, pin_key(stored)))
                elif stored.role == "assistant":
                    await self.end_reply(stored.incomplete, pin_key(stored))
                elif stored.role == "tool" and (tool := self._tools.get(stored.tool_call_id)):
                    tool.key = pin_key(stored)  # the result was stored under this pin key
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
                if self.compaction is not None and outcome.modes:
                    # The last stage run may have been rejected: name the ones applied.
                    self.compaction.stage = " + ".join(outcome.modes)
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
        elif code == "summary_rejected" and self.compaction is not None:
            self._rejections.append(text)  # unless the ended line says it (end_compaction)
        elif code in KEPT_WARNINGS:  # stays in the conversation, not only a toast
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
            text = _ABANDONED if compaction else "interrupted by you"
            await self.add(NoticeEntry(text, "interrupted"))
        elif status == "error" and detail:  # else the engine said why
            await self.add(error_entry("run", detail, (), self.retry_key(erred=True)))
        elif detail and not (compaction and self.compaction is not None):
            self.notify(detail)  # else the compaction's own line says it (below)
        if status == "error":  # a compaction still shown running ended with the run
            self.end_compaction("compaction failed: the run stopped", "error")
        elif compaction and detail:  # /compact's: why nothing was compacted
            self.end_compaction(f"compaction ended: {detail}", why=True)
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
