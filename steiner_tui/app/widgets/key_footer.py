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

Textual's ``Footer`` lays its keys out in one row and lets what does not fit run under the
command palette's key, docked on the right: at 80 columns a key was cut to ``f2`` without its
``Inspect``. This footer shows only the keys that fit whole, in their order, and always the help
key (F1 lists every key, those hidden here included); a hidden key still works. Keys just
composed have no width until the screen lays them out, so they are measured when the screen
publishes its layout (``screen_layout_refresh_signal``): counting refreshes is not enough, since
Textual runs after-refresh callbacks without a refresh while a batch update is open (a resumed
conversation mounting its entries), and the keys were then fitted unmeasured, one cut short.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Label

__all__ = ["KeyFooter"]

_HELP_ACTIONS = frozenset({"help", "app.help"})
"""The help key's action: shown whatever the width, since F1 lists the keys hidden here."""

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
    _widths: dict[Widget, int] | None = None
    """Each key's (or key group's) width as laid out, measured while it showed."""
    _unmeasured = False
    """Whether keys composed since the last fit wait for the layout that gives them a width."""

    def on_mount(self) -> None:
        """Fit the keys after each layout of the screen that measures newly composed keys."""
        self.screen.screen_layout_refresh_signal.subscribe(self, self._laid_out)

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
        # Each key Textual composes is data-bound to the footer's ``compact``: a watcher the
        # footer keeps until ``compact`` next changes, which here it never does, so every
        # recompose's removed keys stayed alive (two recomposes a turn: 500 keys after 24
        # turns). Textual drops the watchers of closed keys whenever it runs them: running
        # them now, the old keys removed and the new ones not yet made, lets the old ones go.
        self.mutate_reactive(Footer.compact)
        for widget in super().compose():
            compact = getattr(type(widget), "compact", None)
            # A key bound to the footer's ``compact`` (the command palette's key is not bound:
            # it stays compact).
            if isinstance(compact, Reactive) and not widget.has_class("-command-palette"):
                widget.set_reactive(compact, self.compact)
            yield widget
        self._widths = {}
        self._unmeasured = True

    def _laid_out(self, screen: Screen[Any]) -> None:
        """The screen was laid out: fit keys composed since the last fit, once all have a
        width (until then they show as Textual's ``Footer`` shows them)."""
        if self._unmeasured and all(w.outer_size.width for w in self.children if w.display):
            self._unmeasured = False
            self._fit()

    def on_resize(self) -> None:
        """Show the keys that fit the new width."""
        self._fit()

    def _fit(self) -> None:
        """Show the keys that fit whole (and the help key), hide the rest."""
        units: list[list[Widget]] = []
        reserved = 0
        for widget in self.children:
            if widget.has_class("-command-palette"):
                reserved += self._width(widget)
            elif isinstance(widget, Label) and units:  # a key group's description
                units[-1].append(widget)
            else:
                units.append([widget])
        help_units = [u for u in units if getattr(u[0], "action", "") in _HELP_ACTIONS]
        reserved += sum(self._width(w) for unit in help_units for w in unit)
        room = self.size.width - reserved
        fits = True
        for unit in units:
            if unit in help_units:
                continue
            room -= sum(self._width(w) for w in unit)
            fits = fits and room >= 0
            for widget in unit:
                widget.display = fits

    def _width(self, widget: Widget) -> int:
        """The columns ``widget`` takes, margins included (as measured while it showed)."""
        if self._widths is None:
            self._widths = {}
        if widget.display and widget.outer_size.width:
            margin = widget.styles.margin
            self._widths[widget] = widget.outer_size.width + margin.left + margin.right
        return self._widths.get(widget, 0)
