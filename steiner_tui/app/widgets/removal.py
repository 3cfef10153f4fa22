"""Removing widgets so that reference counting frees them, not a full garbage collection.

A Textual widget refers to itself through its styles: the CSS and the inline ``Styles`` each
hold the widget as their ``node`` (``RenderStyles`` holds it weakly). So a removed widget, and
everything it holds (its caches of rendered strips, box models, layout results: about 260
objects each), is freed only when a collection examines it. The conversation pane unmounts
entries all the time while reading back; its widgets have lived long enough to reach the oldest
generation, so the garbage piled up there until a full collection, a long pause. Released, only
the cycles in Textual's own caches are left for it (docs/ARCHITECTURE.md, "Key press to frame").

``remove_released`` removes widgets as ``Widget.remove_children`` does, then, once Textual is done
with them (their message loops have ended), sets those ``node`` references to None, a state
Textual's styles handle (a ``Styles`` made on its own has no node). Nothing of the widget is
drawn or laid out again: the next layout maps the parent's remaining children only.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.widget import Widget

__all__ = ["remove_released"]


async def remove_released(parent: Widget, widgets: Sequence[Widget]) -> None:
    """Remove ``widgets`` (children of ``parent``) and release them and their descendants."""
    removed = [node for widget in widgets for node in widget.walk_children(Widget, with_self=True)]
    await parent.remove_children(widgets)
    for node in removed:
        _release(node)


def _release(widget: Widget) -> None:
    """Break the reference cycles a removed ``widget`` keeps with itself."""
    widget.styles.base.node = None
    widget.styles.inline.node = None
