"""Inline compaction prompts: ``ask`` mode's question, and which pins to drop.

``CompactionPrompt`` appears before a request that reached the soft trigger (or does not fit):
``c`` compacts now, ``f`` opens a line for a focus and Enter compacts with it, ``s`` sends
anyway (only while the request fits), ``m`` masks the largest tool results instead (when there
are any). ``UnpinPrompt`` appears when the pinned messages alone cannot fit: ``1``-``9`` unpin
that pin, ``a`` all of them, ``k`` keeps them (the run stops with the reason). Each takes focus
when it appears and stays in the conversation as a record of what was decided. Question texts
and labels are data, shown as text.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, Static

from steiner_tui.app.transcript import CompactionEntry, UnpinEntry
from steiner_tui.engine.compaction.policy import (
    CompactionAnswer,
    CompactNow,
    MaskLargest,
    Refuse,
    SendAnyway,
    Unpin,
)
from steiner_tui.units import counted, token_count

__all__ = ["CompactionPrompt", "QuestionLeft", "UnpinPrompt"]

_GROUP = Binding.Group("Compaction")
_LEAVE_TOOLTIP = "Back to the prompt without answering (the run waits; F8 turns here again)"
_TURN_KEY = "F8"
"""The key that turns to a waiting question (``main.permission``), as the permission prompt
names it."""


class QuestionLeft(Message):
    """The person answered a question, or left it unanswered (Esc): the screen gives the
    prompt the focus (and says whether a question still waits)."""


def _choice_text(choice: CompactionAnswer, entry: CompactionEntry) -> str:
    if isinstance(choice, CompactNow):
        return f"→ compact now (focus: {choice.focus})" if choice.focus else "→ compact now"
    if isinstance(choice, SendAnyway):
        return "→ sent as it is"
    if isinstance(choice, MaskLargest):
        count = len(entry.question.maskable)
        return f"→ masked the {counted(count, 'largest tool result')}"
    return "→ refused"


def _keys_line(keys: list[Content], focused: bool) -> Content:
    """An open question's keys: after how to turn to it (typing never answers it), or, turned
    to, with Esc, which goes back to the prompt."""
    if focused:
        return Content(" · ").join([*keys, Content.from_markup("[b]Esc[/b] back")])
    return Content.from_markup(f"[b]{_TURN_KEY}[/b] to answer, then ") + Content(" · ").join(keys)


def _question_content(entry: CompactionEntry, focused: bool = False) -> Content:
    question = entry.question
    head = Content.assemble(("compaction ", "bold $text-warning"), question.text() + "\n")
    if entry.choice is not None:
        return head + Content(_choice_text(entry.choice, entry))
    if entry.closed:
        return head + Content("→ no answer (the run ended)")
    keys = [Content.from_markup("[b]c[/b] compact now · [b]f[/b] compact with a focus")]
    if question.can_send:
        keys.append(Content.from_markup("[b]s[/b] send anyway"))
    if question.maskable:
        count = len(question.maskable)
        saves = token_count(question.mask_saves)
        keys.append(
            Content.from_markup("[b]m[/b] mask ")
            + Content(f"the {counted(count, 'largest tool result')} (~{saves})")
        )
    return head + _keys_line(keys, focused)


class CompactionPrompt(Vertical, can_focus=True):
    """Asks once; ``-open`` while it waits for an answer."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "compact", "Compact now", id="compaction.compact", group=_GROUP,
                tooltip="Summarize the older turns now, then send"),
        Binding("f", "focus_line", "Compact with focus", id="compaction.focus", group=_GROUP,
                tooltip="Type what the summary should keep, Enter to compact"),
        Binding("s", "send", "Send anyway", id="compaction.send", group=_GROUP,
                tooltip="Send the request as it is (only while it still fits the window)"),
        Binding("m", "mask", "Mask largest", id="compaction.mask", group=_GROUP,
                tooltip="Mask the largest tool results in a new generation instead"),
        # Esc here (and in the focus line) would reach the screen and cancel the whole run.
        Binding("escape", "leave", "Back", id="compaction.leave", show=False,
                tooltip=_LEAVE_TOOLTIP),
    ]  # fmt: skip
    """The answers."""

    DEFAULT_CSS = """
    CompactionPrompt { height: auto; }
    CompactionPrompt Input { display: none; }
    CompactionPrompt.-focus-line Input { display: block; }
    """

    def __init__(self, entry: CompactionEntry) -> None:
        super().__init__(classes="conversation-item")
        self.entry = entry
        """The question and its answer."""
        self.set_class(self.is_open, "-open")

    def compose(self) -> ComposeResult:
        yield Static(_question_content(self.entry), classes="compaction-question")
        yield Input(placeholder="focus for the summary, Enter to compact", classes="focus-line")

    @property
    def is_open(self) -> bool:
        """Whether an answer is still awaited."""
        return self.entry.choice is None and not self.entry.closed

    def _refresh(self, focused: bool | None = None) -> None:
        shown = self.has_focus if focused is None else focused
        text = _question_content(self.entry, shown)
        self.query_one(".compaction-question", Static).update(text)
        self.set_class(self.is_open, "-open")
        self.remove_class("-focus-line")

    # (These run before Widget's own focus handlers, which set ``has_focus``.)
    def on_focus(self) -> None:
        """Show the keys that answer."""
        self._refresh(focused=True)

    def on_blur(self) -> None:
        """Show how to come back (the focus line, when it takes the focus, stays open)."""
        if not self.has_class("-focus-line"):
            self._refresh(focused=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only the answers the question allows."""
        if action == "leave":
            return True
        question = self.entry.question
        if action == "send":
            return self.is_open and question.can_send
        if action == "mask":
            return self.is_open and bool(question.maskable)
        return self.is_open

    def give(self, choice: CompactionAnswer) -> None:
        """Answer the question (once)."""
        if not self.is_open:
            return
        self.entry.choice = choice
        self.entry.answer(choice)
        self._refresh()
        self.post_message(QuestionLeft())

    def action_compact(self) -> None:
        self.give(CompactNow())

    def action_send(self) -> None:
        if self.entry.question.can_send:
            self.give(SendAnyway())

    def action_mask(self) -> None:
        if self.entry.question.maskable:
            self.give(MaskLargest())

    def action_focus_line(self) -> None:
        """Show the focus line and move to it."""
        if self.is_open:
            self.add_class("-focus-line")
            self.query_one(Input).focus()

    def action_leave(self) -> None:
        """Back to the prompt without answering (the focus line closes, unsent)."""
        self.remove_class("-focus-line")
        self.post_message(QuestionLeft())

    @on(Input.Submitted)
    def _focus_given(self, event: Input.Submitted) -> None:
        event.stop()
        self.give(CompactNow(event.value.strip()))
        self.focus()

    def close(self) -> None:
        """The run ended before an answer."""
        self.entry.closed = True
        self._refresh()


def _unpin_content(entry: UnpinEntry, focused: bool = False) -> Content:
    question = entry.question
    head = Content.assemble(
        ("pins ", "bold $text-warning"),
        f"the pinned messages alone do not fit the window (~{question.pinned_tokens:,} tokens "
        f"with the static prefix; at most {question.limit:,}):\n",
    )
    rows = [
        Content(f"{number}  {pin.label}  ~{pin.tokens:,} tokens")
        for number, pin in enumerate(question.pins[:9], start=1)
    ]
    body = head + Content("\n").join(rows) + Content("\n")
    choice = entry.choice
    if isinstance(choice, Unpin):
        return body + Content(f"→ unpinned {len(choice.keys)}")
    if isinstance(choice, Refuse):
        return body + Content("→ kept: the run stopped")
    if entry.closed:
        return body + Content("→ no answer (the run ended)")
    keys = [
        Content.from_markup("[b]1[/b]-[b]9[/b] unpin that one"),
        Content.from_markup("[b]a[/b] unpin all · [b]k[/b] keep them (stop)"),
    ]
    return body + _keys_line(keys, focused)


class UnpinPrompt(Static, can_focus=True):
    """Asks which pins to drop; ``-open`` while it waits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(
            Binding(str(n), f"unpin({n - 1})", "Unpin", id=f"unpin.{n}", group=_GROUP,
                    show=n == 1, key_display="1-9" if n == 1 else None,
                    tooltip="Unpin that pin, then compact again")
            for n in range(1, 10)
        ),
        Binding("a", "unpin_all", "Unpin all", id="unpin.all", group=_GROUP,
                tooltip="Unpin every pin listed, then compact again"),
        Binding("k", "keep", "Keep pins", id="unpin.keep", group=_GROUP,
                tooltip="Keep the pins; the run stops with the reason"),
        Binding("escape", "leave", "Back", id="unpin.leave", show=False, tooltip=_LEAVE_TOOLTIP),
    ]  # fmt: skip
    """The answers."""

    def __init__(self, entry: UnpinEntry) -> None:
        super().__init__(_unpin_content(entry), classes="conversation-item")
        self.entry = entry
        self.set_class(self.is_open, "-open")

    @property
    def is_open(self) -> bool:
        return self.entry.choice is None and not self.entry.closed

    def _give(self, choice: Unpin | Refuse) -> None:
        if not self.is_open:
            return
        self.entry.choice = choice
        self.entry.answer(choice)
        self.post_message(QuestionLeft())
        self.update(_unpin_content(self.entry))
        self.set_class(False, "-open")

    def on_focus(self) -> None:
        """Show the keys that answer."""
        self.update(_unpin_content(self.entry, focused=True))

    def on_blur(self) -> None:
        """Show how to come back."""
        self.update(_unpin_content(self.entry))

    def action_unpin(self, index: int) -> None:
        pins = self.entry.question.pins
        if 0 <= index < len(pins):
            self._give(Unpin((pins[index].key,)))

    def action_unpin_all(self) -> None:
        self._give(Unpin(tuple(pin.key for pin in self.entry.question.pins)))

    def action_keep(self) -> None:
        self._give(Refuse(self.entry.question.message))

    def action_leave(self) -> None:
        """Back to the prompt without answering."""
        self.post_message(QuestionLeft())

    def close(self) -> None:
        self.entry.closed = True
        self.update(_unpin_content(self.entry))
        self.set_class(False, "-open")
