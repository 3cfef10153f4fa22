"""The prompt: a multi-line editor where Enter sends and Shift+Enter starts a new line.

Terminals report Shift+Enter as ``shift+enter`` only with the kitty keyboard protocol; many send
plain Enter, and some send ``ctrl+j`` (a line feed). Both ``shift+enter`` and ``ctrl+j`` insert a
newline, so there is always a key that works. Up on the first line and Down on the last line
browse the prompt history; elsewhere they move the cursor as usual. PgUp and PgDn scroll the
conversation (``ScrollRequested``), and so do Home and End while the prompt is empty. Ctrl+G
asks for the prompt in the person's own editor (``EditorRequested``; ``external_editor``).

While the dropdown under it lists slash-command completions (``completing``, set by the
screen), Tab accepts the highlighted one, Up and Down move through them and Esc closes them;
otherwise Tab moves the focus and Esc is the screen's (cancel a run). The editor only asks
(``CompletionRequested``): the screen owns the list.

A paste over ``PASTE_LINES`` lines, or longer than ``PASTE_LIMIT`` characters (laying out
megabytes of text would freeze the app), is one placeholder line in the editor
(``paste.placeholder``) while the text waits in memory. Enter sends the whole text in its place;
a paste too long for the prompt is written to files under the project then (``paste.save_pastes``,
in a worker thread), and the message names them for the model to read. A placeholder deleted
before sending writes nothing.

Enter while a reply generates queues the message (``queue``), as Claude Code and Codex do: it
leaves the editor, the border says it waits, and the screen sends it when the run ends
(``take_queued``) or, if the run was cancelled or failed, puts it back in the editor
(``unqueue``). Messages queued one after another go as one, a blank line between them; a
command queued (``/compact``) is an entry of its own, taken in its turn. The queued text is
part of what ``unsent`` keeps as the draft: a quit or a kill loses none of it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import TextArea

from steiner_tui.app.history import PromptHistory
from steiner_tui.app.paste import (
    PASTE_LINES,
    byte_size,
    line_count,
    paste_notice,
    placeholder,
    save_pastes,
)

__all__ = ["PASTE_LIMIT", "PromptEditor"]

_ACTIONS = frozenset({"submit", "newline", "complete", "close_completion"})
_SCROLL_KEYS = frozenset({"pageup", "pagedown", "home", "end"})
"""Keys that scroll the conversation from the prompt (Home and End only while it is empty:
with text they move the cursor)."""

PLACEHOLDER = "Ask anything · Ctrl+J new line · /help"
PASTE_LIMIT = 100_000
"""Characters a paste may put in the editor; a longer one is kept in files when sent."""


class PromptEditor(TextArea):
    """The multi-line prompt with history."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "enter",
            "submit",
            "Send",
            id="prompt.submit",
            tooltip="Send the prompt, or run a /command (after a backslash: a line break, as in "
            "Claude Code)",
        ),
        Binding(
            "shift+enter,ctrl+j",
            "newline",
            "New line",
            id="prompt.newline",
            show=False,
            tooltip="Insert a line break (Ctrl+J works in every terminal)",
        ),
        Binding(
            "tab",
            "complete",
            "Complete",
            id="prompt.complete",
            tooltip="Accept the highlighted completion of a /command or an @path (Up/Down "
            "choose one)",
        ),
        Binding(
            "ctrl+g",
            "edit_externally",
            "Editor",
            id="prompt.editor",
            show=False,
            tooltip="Edit the prompt in your editor ($VISUAL or $EDITOR); saved and closed, "
            "its text replaces the prompt's",
        ),
        Binding(
            "ctrl+d",
            "quit_when_empty",
            "Quit",
            id="prompt.quit",
            show=False,
            tooltip="In an empty prompt, save the session and quit, as Ctrl+Q does (a shell's "
            "end of input); else delete the character after the cursor",
        ),
        Binding(
            "escape",
            "close_completion",
            "Close list",
            id="prompt.close_completion",
            show=False,
            tooltip="Close the completion list",
        ),
    ]
    """Send, new-line and completion keys (run by ``_on_key`` in key order; see there)."""

    class Submitted(Message):
        """The user pressed Enter with some text."""

        def __init__(self, editor: PromptEditor, text: str) -> None:
            self.editor = editor
            self.text = text
            super().__init__()

        @property
        def control(self) -> PromptEditor:
            """The prompt that sent it."""
            return self.editor

    class EditorRequested(Message):
        """Ctrl+G: the person wants the prompt in their own editor (the screen hands over)."""

    class ScrollRequested(Message):
        """PgUp, PgDn (and Home, End in an empty prompt) scroll the conversation: ``key``."""

        def __init__(self, key: str) -> None:
            self.key = key
            super().__init__()

    class CompletionRequested(Message):
        """A completion key: ``accept``, ``next``, ``previous`` or ``close``."""

        def __init__(self, editor: PromptEditor, action: str) -> None:
            self.editor = editor
            self.action = action
            super().__init__()

        @property
        def control(self) -> PromptEditor:
            """The prompt that asked."""
            return self.editor

    def __init__(
        self,
        project_root: Path,
        *,
        cursor_blink: bool = True,
        id: str | None = None,
        model_reads: Callable[[], bool] = lambda: True,
    ) -> None:
        super().__init__(
            id=id,
            soft_wrap=True,
            highlight_cursor_line=False,
            placeholder=PLACEHOLDER,
        )
        self.cursor_blink = cursor_blink
        self.prompt_history = PromptHistory()
        """What was sent, for Up and Down."""
        self.completing = False
        """Whether completions are listed under the prompt (the screen sets it)."""
        self.project_root = project_root
        """Where a paste too long for the editor is kept (``.steiner/pastes/``)."""
        self.model_reads = model_reads
        """Whether the model can read a kept paste (its server may ignore tools)."""
        self.pastes: dict[str, str] = {}
        """Each placeholder in the editor (or its history) and the text it stands for."""
        self._kept: dict[str, str] = {}
        """A placeholder already written to files, and the line naming them."""
        self._pasted = 0
        """How many pastes were given placeholders (their numbers)."""
        self._composed: dict[str, str] = {}
        """A sent text and the placeholders it was composed of (for the history)."""
        self._queue: list[tuple[str, bool]] = []
        """What was sent while a run generates, as composed, waiting for it to end, oldest
        first: each entry's text and whether it stands alone (a command), else it is messages
        (those queued one after another, one entry)."""
        self.keep_prompt: Callable[[str], object] = lambda text: None
        """Keeps a sent prompt for the project's later sessions (the screen sets it)."""

    async def _on_key(self, event: events.Key) -> None:
        """Run the prompt's own bindings (send, new line) and the TextArea's (Backspace, the
        arrows, F7...) in the order keys were typed.

        ``TextArea._on_key`` inserts a newline for Enter and stops the event, so a normal binding
        never sees it, and a priority binding runs as soon as the app reads the key: before the
        characters typed just ahead of it have reached this editor (a fast typist or a paste
        would send half a line). A normal binding runs once the key has bubbled up to the app,
        after the characters typed behind it (F7, Backspace, "rep 4" left "rep "). Handling
        them here keeps the editor's queue order. Overriding ``_on_key`` is the TextArea
        extension point Textual's guide documents. Keys come from the active bindings, so the
        keymap can move them.
        """
        if event.key in _SCROLL_KEYS and (event.key in ("pageup", "pagedown") or not self.text):
            event.stop()
            event.prevent_default()
            self.post_message(self.ScrollRequested(event.key))
            return
        if not event.is_printable:
            active = self.screen.active_bindings.get(event.key)
            if (
                active is not None
                and active.node is self
                and (active.enabled or active.binding.action in _ACTIONS)
            ):
                event.stop()
                event.prevent_default()
                await self.run_action(active.binding.action)
                return
        await super()._on_key(event)

    def on_paste(self, event: events.Paste) -> None:
        """A paste over ``PASTE_LINES`` lines or ``PASTE_LIMIT`` characters goes in as one
        placeholder line. A paste stops here (the app routed it to the prompt: it must not come
        back to the app)."""
        event.stop()
        event.prevent_default()  # TextArea's own paste handler does not run: take_paste does
        self.take_paste(event.text)

    def take_paste(self, pasted: str) -> None:
        """Insert ``pasted`` at the selection now (a placeholder line for a long one). The app's
        typing router calls it for a paste that arrived elsewhere: at once, so an Enter that
        follows the paste in the terminal's stream finds it in the prompt."""
        # Terminals send a pasted newline as CR (tmux's paste-buffer, xterm): keep lines.
        text = pasted.replace("\r\n", "\n").replace("\r", "\n")
        kept = len(text) > PASTE_LIMIT
        start, end = self.selection
        if kept or line_count(text) > PASTE_LINES:
            self._pasted += 1
            line = placeholder(text, self._pasted, kept=kept)
            self.pastes[line] = text
            self.replace(line, start, end, maintain_selection_offset=False)
        elif not self.read_only:
            self.replace(pasted, start, end, maintain_selection_offset=False)
        self.focus()

    def unsent(self) -> tuple[str, dict[str, str]]:
        """The queued messages and the text in the prompt, and the pastes their placeholder
        lines stand for (what is kept as the session's draft when the app quits)."""
        text = "\n".join(part for part in (self.queued, self.text) if part)
        return text, {line: paste for line, paste in self.pastes.items() if line in text}

    def restore(self, text: str, pastes: dict[str, str]) -> None:
        """Put a kept draft back: ``text`` in the prompt, ahead of anything typed while the
        session opened, the cursor at the end."""
        self.pastes.update(pastes)
        numbers = (line.rpartition("#")[2].rstrip("]") for line in pastes)
        # A paste that comes next gets a number of its own (its line names it).
        self._pasted = max((self._pasted, *(int(n) for n in numbers if n.isdecimal())))
        self._show(f"{text}\n{self.text}" if self.text else text)

    def _expanded(self, text: str) -> str:
        """``text`` with each placeholder replaced by its paste (or the line naming its files)."""
        for line, paste in self.pastes.items():
            if line in text:
                text = text.replace(line, self._kept.get(line, paste))
        return text

    @work(group="paste", exclusive=True, exit_on_error=False)
    async def _keep_and_send(self, text: str, lines: list[str]) -> None:
        """Write the pastes too long for the prompt to ``.steiner/pastes/`` (in parts the read
        tool can open), then send ``text`` naming them."""
        for line in lines:
            paste = self.pastes[line]
            try:
                saved = await asyncio.to_thread(save_pastes, self.project_root, paste)
            except OSError as error:
                self.notify(
                    f"the paste ({byte_size(paste)}) is too long for the prompt and could not "
                    f"be kept in a file: {error}. Nothing was sent; save it to a file in the "
                    "project and ask the model to read it.",
                    title="Paste",
                    severity="error",
                )
                return
            reads = self.model_reads()
            self._kept[line], notice = paste_notice(byte_size(paste), saved, reads=reads)
            self.notify(notice, title="Paste", severity="information" if reads else "warning")
        self._submit(text)

    def _submit(self, text: str) -> None:
        expanded = self._expanded(text)
        self._composed[expanded] = text
        self.post_message(self.Submitted(self, expanded))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The completion keys act only while completions are listed; Ctrl+C copies only
        what is selected (else it goes on to the screen, which stops a reply with it)."""
        if action in ("complete", "close_completion"):
            return self.completing
        if action == "copy":
            return bool(self.selected_text)
        return super().check_action(action, parameters)

    async def action_quit_when_empty(self) -> None:
        """Ctrl+D: quit in an empty prompt (as readline ends input), else delete right."""
        if self.text:
            self.action_delete_right()
        else:
            await self.run_action("app.quit")

    def action_complete(self) -> None:
        """Accept the highlighted completion."""
        self.post_message(self.CompletionRequested(self, "accept"))

    def action_close_completion(self) -> None:
        """Close the completion list."""
        self.post_message(self.CompletionRequested(self, "close"))

    def action_submit(self) -> None:
        """Post ``Submitted`` unless the prompt is blank (the screen decides what happens).
        Right after a backslash, Enter puts a line break in its place instead, as in Claude
        Code (a terminal that reports no Shift+Enter)."""
        start, end = self.selection
        row, column = end
        if start == end and column and self.document.get_line(row)[column - 1] == "\\":
            self.replace("\n", (row, column - 1), end, maintain_selection_offset=False)
            return
        text = self.text
        if not text.strip():
            return
        unwritten = [
            line
            for line, paste in self.pastes.items()
            if line in text and line not in self._kept and len(paste) > PASTE_LIMIT
        ]
        if unwritten:
            self._keep_and_send(text, unwritten)
        else:
            self._submit(text)

    def action_edit_externally(self) -> None:
        """Ask the screen to open the prompt in the person's editor."""
        self.post_message(self.EditorRequested())

    def edited(self, text: str) -> None:
        """``text`` (from the person's editor) replaces the prompt's, the cursor at its end."""
        self._show(text)

    def set_aside(self) -> bool:
        """Take the draft out of the prompt into its history, where Up finds it first (this
        session's only: it was never sent). False when the prompt held no text."""
        text = self.text
        if not text.strip():
            return False
        self.prompt_history.push(text)
        self.clear()
        return True

    def action_newline(self) -> None:
        """Insert a line break at the cursor, replacing any selection."""
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def sent(self, text: str) -> str:
        """Record ``text`` in the history (as composed: pastes as placeholders) and take it out
        of the prompt: what was typed after it while its pastes were being written stays.
        Pastes no placeholder names any more (the prompt, the queue, the history) are let go.
        Returns ``text`` as composed."""
        composed = self._composed.pop(text, text)
        self.prompt_history.push(composed)
        if not any(line in composed for line in self.pastes):  # a paste is this session's
            self.keep_prompt(composed)
        rest = self.text.removeprefix(composed) if self.text.startswith(composed) else self.text
        self.clear()
        if rest:
            self.insert(rest)
        kept = "\n".join((*self.prompt_history.entries, self.queued, rest))
        self.pastes = {line: paste for line, paste in self.pastes.items() if line in kept}
        self._kept = {line: files for line, files in self._kept.items() if line in self.pastes}
        return composed

    @property
    def queued(self) -> str:
        """Everything queued, as composed, a blank line between entries."""
        return "\n\n".join(text for text, _ in self._queue)

    def queue(self, text: str, *, alone: bool = False) -> None:
        """``text`` was sent while a run generates: out of the prompt, waiting in the queue
        (``alone``: a command, an entry of its own; messages queued one after another join)."""
        composed = self.sent(text)
        queue = self._queue
        if queue and not alone and not queue[-1][1]:
            queue[-1] = (f"{queue[-1][0]}\n\n{composed}", False)
        else:
            queue.append((composed, alone))
        self._queued()

    def take_queued(self) -> tuple[str, bool]:
        """The oldest entry of the queue, out of it: messages as one message to send (pastes in
        their places), or a command (True)."""
        text, alone = self._queue.pop(0)
        self._queued()
        return (text, alone) if alone else (self._expanded(text), alone)

    def unqueue(self) -> list[str]:
        """Put the queued messages back in the prompt, ahead of what was typed since; a queued
        command too when nothing else was queued (its arguments would otherwise take the
        messages behind it). Returns the commands not given back."""
        queue, self._queue = self._queue, []
        self._queued()
        messages = "\n\n".join(text for text, alone in queue if not alone)
        commands = [text for text, alone in queue if alone]
        if not messages and commands:
            messages = commands.pop(0)
        if messages:
            self._show(f"{messages}\n{self.text}" if self.text else messages)
        return commands

    def _queued(self) -> None:
        queue = self._queue
        if not queue:
            self.border_title = self.border_subtitle = None
            return
        # The title is data (what was typed): text, never markup.
        more = f" (+{len(queue) - 1})" if len(queue) > 1 else ""
        first = queue[0][0].strip().partition("\n")[0]
        self.border_title = Content.assemble(("queued ", "bold"), first, more)
        self.border_subtitle = "goes when the reply ends · Esc gives it back"

    def _show(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_cursor_up(self, select: bool = False) -> None:
        """Up: the previous completion while listed; the previous prompt when on the first
        line; else move the cursor."""
        if self.completing and not select:
            self.post_message(self.CompletionRequested(self, "previous"))
            return
        if not select and self.cursor_at_first_line:
            entry = self.prompt_history.previous(self.text)
            if entry is not None:
                self._show(entry)
                return
        super().action_cursor_up(select)

    def action_cursor_down(self, select: bool = False) -> None:
        """Down: the next completion while listed; the next prompt (then the draft) when on the
        last line; else move the cursor."""
        if self.completing and not select:
            self.post_message(self.CompletionRequested(self, "next"))
            return
        if not select and self.cursor_at_last_line:
            entry = self.prompt_history.next()
            if entry is not None:
                self._show(entry)
                return
        super().action_cursor_down(select)
