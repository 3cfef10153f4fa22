"""Where a printable key or a paste goes when no text field has the focus: to the prompt.

Text is never lost, never reordered and never turns into a command by accident. The app routes
keys one at a time, in the order the terminal sent them, before Textual hands them to the
focused widget (``SteinerApp.on_event``): a key the router takes is posted to the prompt's own
queue, the queue every key typed into the focused prompt goes through, so a burst that starts
on a conversation entry and goes on in the prompt keeps its order.

A printable key is text when the prompt already holds text and the focus has not been moved
since it was typed (F8, Tab or a click turn deliberately to a widget, whose keys then act), or
when it comes within a typing burst that went to the prompt (less than ``BURST_SECONDS`` after
the last key). Otherwise, if a
binding of the focused widget (or the screen) takes it (the conversation's ``p``, the sidebar's
Space and 1-9, the ranking's ``m``), it is held: keys that follow within ``BURST_SECONDS`` are
held with it while bindings take them too (``+`` pressed five times moves the what-if threshold
five steps), and the first key no binding takes makes all of them text, in order ("please"
typed onto an entry never pins it); a key whose binding has priority (the sessions filter's
``/``) acts at once instead, and what follows it is typed where it turned the focus. Held keys
that no such key follows run their bindings:
decided behind the keys the app has already read, and after one more window when the process
woke late from the first (on a loaded machine the next key may not have been read yet).
Backspace and Delete that nothing focused takes edit the prompt too while it holds text (or
keys are held): they correct what was typed, and were lost when the focus had been turned
elsewhere since (Tab, a click), the typo left in the message.
A paste with no text field focused goes to the prompt too. A screen over the workbench (the
inspector, a dialog) gets a router of its own, over the same prompt: what is typed there waits
in the prompt, which keeps its focus where it was, and the screen says so once (``OVER_NOTICE``:
a key tried on the inspector went unseen into the prompt, and the command typed after it on
the workbench was sent to the model as "c/compact …"). Tab moves the focus as it arrives
(Textual moves it once the key has been through the focused widget's queue), so a paste and
an Enter right behind it are routed by where it leads.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import Input, TextArea

from steiner_tui.app.widgets.prompt import PromptEditor

__all__ = ["OVER_NOTICE", "TypingRouter"]

OVER_NOTICE = "typed into the prompt, under this screen: it waits there"
"""Said once on a screen over the workbench when text typed there first goes to the prompt."""

_EDITING_KEYS = frozenset({"backspace", "delete"})
"""Keys that edit the prompt's text (``TypingRouter._edits_prompt``)."""

BURST_SECONDS = 0.08
"""Keys closer than this are one burst of typing (a person's single key stands alone longer);
``[ui] typing_burst_ms`` sets it (0: a bound key acts at once, never held)."""


def _esc_and_character(event: events.Key) -> bool:
    """Whether ``event`` is Alt with one printable character: Esc and that character, as the
    terminal sent them."""
    character = event.character
    return (
        event.key.startswith("alt+")
        and character is not None
        and len(character) == 1
        and character.isprintable()
    )


class TypingRouter:
    """Routes printable keys and pastes of one screen to its prompt editor."""

    def __init__(
        self,
        screen: Screen[Any],
        editor: Callable[[], PromptEditor],
        *,
        burst: float = BURST_SECONDS,
    ) -> None:
        self.screen = screen
        self._editor = editor
        self.burst = burst
        """The burst window, in seconds."""
        self.clock: Callable[[], float] = time.monotonic
        """When a key arrives (tests hold it still)."""
        self.wait: Callable[[float], Awaitable[None]] = asyncio.sleep
        """Waits out a held key's window (tests decide when it is over)."""
        self._text_until = float("-inf")
        """Until when a printable key continues a burst of text."""
        self._typed_on: object = None
        """The widget that had the focus when text was last typed (moved since: navigated)."""
        self._held: list[events.Key] = []
        """Bound keys waiting to see whether text follows them."""
        self._told = False
        """Whether this screen (over the workbench) said where its text goes."""

    def _text_field_focused(self) -> bool:
        return isinstance(self.screen.focused, TextArea | Input)

    def route(self, event: events.Event) -> bool:
        """Take ``event`` if it is text for the prompt (or a key held); False: Textual's path."""
        if isinstance(event, events.Paste):
            self._release_held()
            if self._text_field_focused():
                return False
            editor = self._editor()
            self._focus(editor)
            # Inserted now, not queued to the prompt: a key binding (Enter sends) acts at once
            # when its key arrives, and would find the prompt without the paste.
            editor.take_paste(event.text)
            return True
        if not isinstance(event, events.Key):
            return False
        if _esc_and_character(event) and self.screen.active_bindings.get(event.key) is None:
            # A terminal sends Alt+x as Esc and x, so Esc typed just ahead of a letter (Esc,
            # then the next message at once) reached Textual as one "alt+x": the Esc was lost
            # and the reply streamed on. Nothing binds Alt with a character here: the Esc is
            # pressed (behind the keys already read), the character goes on as text.
            self.screen.app.simulate_key("escape")
        if not event.is_printable or event.character is None:
            if self._edits_prompt(event):
                self._flush_held()  # corrected: the held keys were typed text
                self._to_editor(event)
                return True
            self._release_held()  # Enter, Tab, F-keys: a key held before it was alone
            return self._moved_on(event)
        if self._text_field_focused():
            self._flush_held()
            self._typed_on = self.screen.focused
            return False
        now = self.clock()
        active = self.screen.active_bindings.get(event.key)
        bound = active is not None and active.enabled
        at_once = active is not None and active.binding.priority
        # Text waits in the prompt and nobody turned elsewhere since (F8, Tab, a click would).
        unsent = bool(self._editor().text) and self.screen.focused is self._typed_on
        if unsent or now < self._text_until or (self._held and not bound):
            self._flush_held()
            self._to_editor(event)
            self._text_until = now + self.burst
            return True
        if bound and (not self.burst or at_once):
            # No window; or a priority binding (the sessions filter's ``/``), which turns to a
            # text field as Textual reads the key, before the next: the keys typed behind it
            # are typed there, not held back as a burst for the prompt.
            self._release_held()
            return False
        if bound:
            self._held.append(event)
            # A worker (tests wait for workers) that waits out the burst window. An earlier one
            # is not cancelled (that would fail whoever waits for the workers): it finds the
            # keys it waited for gone, and ends.
            held = list(self._held)
            self.screen.run_worker(self._held_alone(held), group="typing", exit_on_error=False)
            return True
        self._to_editor(event)
        self._text_until = now + self.burst
        return True

    def _edits_prompt(self, event: events.Key) -> bool:
        """Whether ``event`` is Backspace or Delete for the prompt: no text field has the
        focus, no binding takes the key, and the prompt, on this screen, holds text (or keys
        are held, which it would correct)."""
        if event.key not in _EDITING_KEYS or self._text_field_focused():
            return False
        editor = self._editor()
        if editor.screen is not self.screen or not (editor.text or self._held):
            return False
        return self.screen.active_bindings.get(event.key) is None

    def _moved_on(self, event: events.Key) -> bool:
        """Tab moves the focus as it arrives. Textual moves it once the key has come back up
        through the focused widget's queue: a paste and an Enter right behind the Tab were
        routed by the focus before it, and under load the Enter went to the widget the Tab
        had moved to, leaving the paste unsent in the prompt."""
        active = self.screen.active_bindings.get(event.key)
        if active is None or not active.enabled or active.binding.action != "app.focus_next":
            return False
        self.screen.focus_next()
        return True

    def _to_editor(self, event: events.Event) -> None:
        editor = self._editor()
        self._focus(editor)
        editor.post_message(event)

    def _focus(self, editor: PromptEditor) -> None:
        """Focus the prompt when it is on this router's screen; over the workbench it waits,
        and the screen says so the first time."""
        if editor.screen is self.screen:
            if self.screen.focused is not editor:
                self.screen.set_focus(editor, scroll_visible=False)
        elif not self._told:
            self._told = True
            self.screen.notify(OVER_NOTICE)
        self._typed_on = editor

    def _flush_held(self) -> None:
        """Text followed the held keys: they were typed text too, sent first."""
        held, self._held = self._held, []
        for key in held:
            self._to_editor(key)

    def _release_held(self) -> None:
        """Something other than text followed: the held keys were keys of their own."""
        held, self._held = self._held, []
        if held:
            self.screen.call_next(self._run_all, held)

    async def _run_all(self, held: list[events.Key]) -> None:
        for key in held:  # each key's binding, as Textual would have run it
            active = self.screen.active_bindings.get(key.key)
            if active is not None and active.enabled:
                await self.screen.app.run_action(active.binding.action, active.node)

    async def _held_alone(self, held: list[events.Key]) -> None:
        started = self.clock()
        await self.wait(self.burst)
        if self.clock() - started > 2 * self.burst and self._held == held:
            # Woken this late, the process was held up (a loaded machine): the key typed right
            # behind may not have been read from the terminal yet. One more window for it.
            await self.wait(self.burst)
        if self._held == held:
            # Decided behind whatever the app has queued: a key already read goes first.
            self.screen.app.call_later(self._alone, held)

    async def _alone(self, held: list[events.Key]) -> None:
        if self._held == held:  # no text came after them: keys of their own
            self._held = []
            await self._run_all(held)
