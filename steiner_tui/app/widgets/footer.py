"""The footer of every screen: Textual's ``Footer``, rebuilt once per burst of changes.

Textual's ``Footer`` rebuilds its keys after each bindings change it hears of, and one action
sends several: moving focus publishes a change at once and again after the next refresh, and the
workbench's start adds its own. A rebuild mounts and styles every key again, so a Tab between
panes cost two rebuilds and the start three. This footer queues
one rebuild two refreshes after the first change, reading the bindings as they are then: the
keys show one frame later than ``Footer`` shows them (the key press's own frame is not delayed).
A change that still arrives after that rebuild rebuilds again only if the keys it would show
differ: how many refreshes the changes span depends on how soon frames are painted.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer as TextualFooter

__all__ = ["Footer"]


class Footer(TextualFooter):
    """``Footer`` with its rebuilds coalesced."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rebuild_queued = False
        self.rebuilds = 0
        """How many times the keys were rebuilt."""
        self._shown: tuple[Any, ...] | None = None
        """The screen's active bindings when the keys were last rebuilt."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Queue one rebuild (as ``Footer`` does for each change) unless one is queued."""
        self._bindings_ready = True
        if not screen.app.app_focus or self._rebuild_queued:
            return
        if self.is_attached and screen is self.screen:
            self._rebuild_queued = True
            # A frame later than ``Footer`` does: a focus change publishes again from the
            # screen's after-refresh callback, which then finds this rebuild still queued.
            self.call_after_refresh(self.call_after_refresh, self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_queued = False
        # What ``Footer.compose`` reads: each binding (its key, action, description and
        # display), whether it is enabled, and its tooltip.
        shown = tuple(
            (key, binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
        )
        if shown == self._shown:
            return
        self._shown = shown
        self.rebuilds += 1
        await self.recompose()
