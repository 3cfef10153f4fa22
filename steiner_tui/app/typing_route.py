"""Where a printable key goes when no text field has the focus: to the prompt editor.

Text is never lost and never turns into a command by accident. A key reaches the screen only
when the focused widget did not take it (an editor or input takes every printable key itself).
If an enabled binding takes the key (the skill sidebar's Space and 1-9, an open permission
prompt's a/A/r/R after the user turned to it, the workbench's ``p`` that pins the focused tool
result), the binding runs; otherwise the character goes to the prompt editor at its cursor,
which takes the focus.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import Input, TextArea

__all__ = ["route_typing"]


def route_typing(screen: Screen[Any], event: events.Key, editor: TextArea) -> bool:
    """Send ``event``'s character to ``editor`` unless a focused widget binds its key.

    Returns:
        Whether the key went to the editor (the event is then stopped).
    """
    character = event.character
    if not event.is_printable or character is None:
        return False
    focused = screen.focused
    if focused is editor or isinstance(focused, TextArea | Input):
        return False
    active = screen.active_bindings.get(event.key)
    if active is not None and active.enabled:
        return False  # a key the focused widget, its containers or the screen binds
    event.stop()
    event.prevent_default()
    editor.focus()
    start, end = editor.selection
    editor.replace(character, start, end, maintain_selection_offset=False)
    return True
