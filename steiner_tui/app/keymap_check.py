"""Which keys from the config keymap another binding takes, found from the bindings as data.

Textual applies ``[keymap]`` silently: a key that another binding also has does nothing, or
takes that binding's key away, and nothing says so. This module works out, for each place a key
can be pressed (a screen, with the prompt focused or not), which binding the key runs, the way
Textual dispatches it:

1. priority bindings first, from the app down to the focused widget (the app's Ctrl+P and
   Ctrl+Q beat everything);
2. a key the focused widget types (a printable key in the prompt) goes to that widget, and its
   containers' bindings for that key are dropped (``Widget.check_consume_key``);
3. then the other bindings, from the focused widget up to the screen and then the app (a modal
   screen stops there), so a key of the prompt's (Textual's F6, select the line) beats the
   workbench's own while the prompt has focus;
4. within one node, a key the keymap gives a binding takes it from the node's other bindings.

A conflict is reported only where the keymap put a key (a key a binding has by default, such as
``p`` to pin a focused entry, is where the design put it), and only between bindings that are
active together: the same key on two screens is no conflict. ``keymap_conflicts`` is pure: it
reads ``Binding.key``, ``.id`` and ``.priority`` of the layers it is given, which
``class_bindings`` builds from the classes' ``BINDINGS``. Whether an action is enabled right now
(``check_action``) is not considered: a key is reported if it can be lost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Literal

import msgspec
from textual.binding import Binding
from textual.dom import DOMNode

from steiner_tui.app.help_catalog import key_label

__all__ = [
    "BindingChain",
    "BindingLayer",
    "KeymapConflict",
    "class_bindings",
    "keymap_conflicts",
    "split_keys",
]

Outcome = Literal["keymap wins", "other wins", "typed"]
"""Who gets the key: the keymap's binding, the other binding, or the focused widget's typing."""


def split_keys(keys: str) -> list[str]:
    """``"f2, ctrl+i"`` -> ``["f2", "ctrl+i"]``, each key as Textual's bindings name it."""
    return [binding.key for binding in Binding.make_bindings([Binding(keys, "")])]


def class_bindings(kind: type[DOMNode]) -> tuple[Binding, ...]:
    """The bindings of a node of class ``kind``, one key each, merged as Textual merges them:
    each class's ``BINDINGS`` over its bases', a key a subclass binds replacing the base's."""
    by_key: dict[str, list[Binding]] = {}
    for owner in reversed(kind.__mro__):
        declared: dict[str, list[Binding]] = {}
        for binding in Binding.make_bindings(owner.__dict__.get("BINDINGS", ())):
            declared.setdefault(binding.key, []).append(binding)
        by_key.update(declared)
    return tuple(binding for bindings in by_key.values() for binding in bindings)


class BindingLayer(msgspec.Struct, frozen=True):
    """One node on a binding chain: its name in a notice and its bindings."""

    name: str
    """How a notice names the node: "the app", "the workbench", "the prompt"."""
    bindings: tuple[Binding, ...]
    """Its bindings, one key each (``class_bindings``), before the keymap."""
    types: Callable[[str], bool] | None = None
    """Whether the node takes a key as typing (a focused text area: printable keys)."""


class BindingChain(msgspec.Struct, frozen=True):
    """The nodes a key press meets in one place: the focused widget first, the app last."""

    screen: str
    """The screen's name in a notice ("the workbench")."""
    layers: tuple[BindingLayer, ...]
    """The focused widget (if any), its containers, the screen, the app."""
    focus: str = ""
    """The focused widget's name when the chain starts at one ("the prompt"), else ""."""
    modal: bool = False
    """A modal screen: the app's keys reach it only if they are priority keys."""


class KeymapConflict(msgspec.Struct, frozen=True):
    """A key the keymap gives a binding that another binding active with it also has."""

    binding_id: str
    """The keymap entry's binding id."""
    key: str
    """The key, as Textual names it ("ctrl+p")."""
    other: str
    """The other binding as a notice names it ("the app's 'app.command_palette' (Commands, a
    priority key)", "the prompt's Select line"), or the widget typing the key ("the prompt")."""
    other_id: str
    """The other binding's id ("" for a binding without one, or for typing)."""
    outcome: Outcome
    """Who gets the key."""
    places: tuple[str, ...]
    """Where: "on the workbench", "on the workbench while the prompt has focus"."""

    def describe(self) -> str:
        """The notice's text after ``[keymap] 'id' = 'keys': ``."""
        key = key_label(self.key)
        where = " and ".join(self.places)
        if self.outcome == "typed":
            return f"{self.other} types {key} (a printable key), which wins {where}"
        if self.outcome == "other wins":
            return f"{key} is also {self.other}, which wins {where}"
        lost = repr(self.other_id) if self.other_id else "that one"
        return f"{key} is also {self.other}; {self.binding_id!r} wins {where}, so {lost} loses it"


class _Bound(msgspec.Struct, frozen=True):
    """A binding with a key it has after the keymap, and the layer that declares it."""

    binding: Binding
    layer: int
    key: str
    from_keymap: bool


def _effective(
    layer: int, bindings: Iterable[Binding], keymap: Mapping[str, Sequence[str]]
) -> list[_Bound]:
    """The layer's bindings with the keys the keymap gives them (as ``apply_keymap`` does)."""
    done: set[str] = set()
    bounds: list[_Bound] = []
    for binding in bindings:
        if binding.id is None or binding.id not in keymap:
            bounds.append(_Bound(binding, layer, binding.key, from_keymap=False))
        elif binding.id not in done:  # "a,b" made two bindings: the keymap replaces both
            done.add(binding.id)
            bounds.extend(_Bound(binding, layer, key, True) for key in keymap[binding.id])
    return bounds


def _label(bound: _Bound, chain: BindingChain) -> str:
    """``the app's 'app.command_palette' (Commands, a priority key)``; the screen's own
    bindings without the screen's name (the notice names the place)."""
    binding = bound.binding
    owner = chain.layers[bound.layer].name
    whose = "" if owner == chain.screen else f"{owner}'s "
    if not binding.id:
        return f"{whose}{binding.description or binding.action}"
    details = [binding.description] if binding.description else []
    if binding.priority:
        details.append("a priority key")
    return f"{whose}{binding.id!r}" + (f" ({', '.join(details)})" if details else "")


def _order(bounds: list[_Bound], chain: BindingChain) -> list[_Bound]:
    """One key's bindings in the order Textual tries them: priority ones from the app down,
    then the others from the focused widget up (on a modal screen, up to the screen)."""
    app = len(chain.layers) - 1
    priority = sorted((b for b in bounds if b.binding.priority), key=lambda b: -b.layer)
    others = sorted(
        (b for b in bounds if not b.binding.priority and not (chain.modal and b.layer == app)),
        key=lambda b: b.layer,
    )
    return priority + others


def _place(chain: BindingChain, *bounds: _Bound) -> str:
    """Where a conflict between ``bounds`` happens: with the focus named when one is its."""
    if chain.focus and any(bound.layer == 0 for bound in bounds):
        return f"on {chain.screen} while {chain.focus} has focus"
    return f"on {chain.screen}"


def _conflict(
    entry: _Bound, other: _Bound, chain: BindingChain, outcome: Outcome
) -> KeymapConflict:
    return KeymapConflict(
        entry.binding.id or "",
        entry.key,
        _label(other, chain),
        other.binding.id or "",
        outcome,
        (_place(chain, entry, other),),
    )


def _chain_conflicts(
    chain: BindingChain, keymap: Mapping[str, Sequence[str]], defaults: Mapping[str, set[str]]
) -> Iterator[KeymapConflict]:
    """The conflicts in one place."""

    def new(bound: _Bound) -> bool:  # a key the keymap gave, not one the binding has anyway
        return bound.from_keymap and bound.key not in defaults.get(bound.binding.id or "", ())

    by_key: dict[str, list[_Bound]] = {}
    for index, layer in enumerate(chain.layers):
        bounds = _effective(index, layer.bindings, keymap)
        taken = {b.key: b for b in reversed(bounds) if b.from_keymap}  # first one per key
        for bound in bounds:
            winner = taken.get(bound.key)
            if bound.from_keymap or winner is None:
                by_key.setdefault(bound.key, []).append(bound)
            elif new(winner) and winner.binding.id != bound.binding.id:
                # The keymap gave another binding of this node this key: Textual drops this one.
                yield _conflict(winner, bound, chain, "keymap wins")
    focused = chain.layers[0]
    for key, bounds in by_key.items():
        if not any(new(b) for b in bounds):
            continue  # every binding has this key by default: the design, not the keymap
        if focused.types is not None and focused.types(key):
            typed = focused.types
            for bound in bounds:
                # A binding whose own key is one the widget types (``p`` pins a focused entry)
                # is meant for when that widget has no focus.
                meant = any(typed(k) for k in defaults.get(bound.binding.id or "", ()))
                if bound.layer > 0 and new(bound) and not meant:
                    place = f"on {chain.screen} while {chain.focus} has focus"
                    yield KeymapConflict(
                        bound.binding.id or "", key, focused.name, "", "typed", (place,)
                    )
            continue
        ordered = _order(bounds, chain)
        if not ordered:
            continue  # only the app's ordinary keys, which a modal screen never sees
        winner, *losers = ordered
        for bound in losers:
            if bound.binding.id is not None and bound.binding.id == winner.binding.id:
                continue
            if new(bound):
                yield _conflict(bound, winner, chain, "other wins")
            elif new(winner):
                yield _conflict(winner, bound, chain, "keymap wins")


def _broadest(places: list[str]) -> tuple[str, ...]:
    """``places`` without "on X while ..." where "on X" is there too."""
    return tuple(p for p in places if not any(p.startswith(q + " while ") for q in places))


def keymap_conflicts(
    keymap: Mapping[str, str], chains: Iterable[BindingChain]
) -> list[KeymapConflict]:
    """The keys ``keymap`` gives bindings that another binding active with them also has.

    Args:
        keymap: binding id -> keys, as in ``[keymap]`` (``App.set_keymap`` form).
        chains: every place a key can be pressed, each with its nodes' bindings.

    Returns:
        One conflict per keymap entry, key and other binding, naming every place it happens
        (a screen's own place covers the same conflict while a widget of it has focus), in the
        keymap's order.
    """
    keys = {binding_id: split_keys(value) for binding_id, value in keymap.items()}
    chains = list(chains)
    defaults: dict[str, set[str]] = {}
    for chain in chains:
        for layer in chain.layers:
            for binding in layer.bindings:
                if binding.id:
                    defaults.setdefault(binding.id, set()).add(binding.key)
    found: dict[tuple[str, str, str, str, Outcome], list[str]] = {}
    for chain in chains:
        for conflict in _chain_conflicts(chain, keys, defaults):
            ident = _ident(conflict)
            places = found.setdefault(ident, [])
            places.extend(p for p in conflict.places if p not in places)
    order = list(keymap)
    conflicts = [
        KeymapConflict(binding_id, key, other, other_id, outcome, _broadest(places))
        for (binding_id, key, other, other_id, outcome), places in found.items()
    ]
    return sorted(
        conflicts,
        key=lambda c: (order.index(c.binding_id), keys[c.binding_id].index(c.key)),
    )


def _ident(conflict: KeymapConflict) -> tuple[str, str, str, str, Outcome]:
    return (conflict.binding_id, conflict.key, conflict.other, conflict.other_id, conflict.outcome)
