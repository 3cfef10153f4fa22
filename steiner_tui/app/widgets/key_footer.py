"""Textual's ``Footer``, recomposed only when the keys it shows change.

Textual's ``Footer`` removes and mounts all its keys after every ``refresh_bindings`` of its
screen, and a screen publishes one for every focus change (two: one when focus moves and one
after the next refresh), every binding reactive and every ``refresh_bindings`` call. With the
workbench's two dozen keys one recompose restyles some fifty widgets, and opening a session
published three in a row, each drawing the same keys as the one before, while the context
panel's first figures waited behind them (``docs/ARCHITECTURE.md``, "Start-up"). This footer
asks Textual for a recompose only when none is pending and the keys it would draw (binding,
enabled, tooltip) differ from those drawn.

Each key Textual's ``Footer`` composes starts compact (its ``compact`` reactive is True) and is
bound to the footer's own ``compact`` (False here): on mount the key adds its ``-compact``
class, restyling itself, then removes it, restyling itself again, one key at a time. The keys
are given the footer's value before they mount (``Widget.set_reactive``, which runs no
watcher), so they mount as they stay and no key is restyled twice after its first styling (the
command palette's key is not bound and keeps its own value).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widgets import Footer

__all__ = ["KeyFooter"]

Shown = tuple[tuple[Binding, bool, str], ...]
"""What the footer draws: each active binding it shows, whether enabled, its tooltip."""


def shown_keys(screen: Screen[Any]) -> Shown:
    """The keys a ``Footer`` on ``screen`` draws now (Textual's ``Footer.compose`` reads these)."""
    return tuple(
        (binding, enabled, tooltip)
        for (_, binding, enabled, tooltip) in screen.active_bindings.values()
        if binding.show or binding.key == screen.app.COMMAND_PALETTE_BINDING
    )


class KeyFooter(Footer):
    """A ``Footer`` that skips recomposes which would draw the keys it already shows."""

    _keys_ready = False
    """Whether Textual has told it the bindings once (before that it composes empty)."""
    _recompose_pending = False
    """Whether a recompose is scheduled and has not composed yet."""
    _keys_shown: Shown | None = None
    """The keys of the last compose (``None`` before the first with bindings)."""

    def bindings_changed(self, screen: Screen[Any]) -> None:
        """Schedule a recompose (as ``Footer`` does) unless one is pending or nothing changed."""
        if self._keys_ready and (self._recompose_pending or shown_keys(screen) == self._keys_shown):
            return
        self._keys_ready = True
        super().bindings_changed(screen)
        # Footer schedules a recompose only for its own screen while the app has focus.
        self._recompose_pending = (
            screen.app.app_focus and self.is_attached and screen is self.screen
        )

    def compose(self) -> ComposeResult:
        if self._keys_ready:
            self._recompose_pending = False
            self._keys_shown = shown_keys(self.screen)
        for widget in super().compose():
            compact = getattr(type(widget), "compact", None)
            # A key bound to the footer's ``compact`` (the command palette's key is not bound:
            # it stays compact).
            if isinstance(compact, Reactive) and not widget.has_class("-command-palette"):
                widget.set_reactive(compact, self.compact)
            yield widget
