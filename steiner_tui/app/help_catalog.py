"""What the F1 screen lists: the keys of the screen it was opened on, and the slash commands.

Help is per screen and read from the bindings themselves (bindings are data: each has an id,
a description and a tooltip). First the keys active right now, from ``Screen.active_bindings``
(the focused widget, its containers, the screen, the app; the keys shown are the effective
ones, after the config keymap); then the screen's and the app's keys that do nothing right now
(F8 with no permission request waiting), and the focused widget's (the prompt's Tab with no
completion shown), saying so; then the keys of the screen's other
widgets, which work once that widget has the focus (a screen names the widgets that may appear
later, such as tool blocks, in ``HELP_WIDGETS``). Only bindings with an id or shown in the
footer are listed, so a text area's dozens of editing keys stay out. The main screen adds its
slash commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.keys import format_key
from textual.screen import Screen
from textual.widget import Widget

from steiner_tui.app.slash import ALIASES, SLASH_COMMANDS

__all__ = ["HelpRow", "key_label", "screen_rows", "section_name", "slash_rows"]

_NAMES = {"escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn"}
_SECTIONS = {
    "SteinerApp": "Everywhere",
    "MainScreen": "Workbench",
    "PromptEditor": "Prompt",
    "SkillList": "Skills sidebar",
    "BudgetPanel": "Context panel",
    "ConversationPane": "Conversation",
    "ToolBlock": "Tool block (Tab or a click focuses it)",
    "PermissionPrompt": "Permission request (F8 turns to it)",
    "CompactionPrompt": "Compaction question (F8 turns to it)",
    "UnpinPrompt": "Pins question (F8 turns to it)",
    "CostRanking": "Cost ranking",
    "WhatIfView": "What-if",
    "SubAgentPanel": "Sub-agent panel",
    "InspectorScreen": "Request inspector",
    "LineageScreen": "Lineage browser",
    "SessionsScreen": "Sessions",
    "RowTable": "List",
    "RequestTable": "Requests",
    "GenerationTable": "Generations",
    "ConfigSaveScreen": "Write to the project config",
    "TrustScreen": "Trust prompt",
}
IDLE_NOTE = "when available"
"""Added to the description of a key that does nothing right now (``noted``)."""


def noted(text: str, note: str) -> str:
    """``text`` with ``note`` in parentheses, inside the ones it ends with when it does:
    "Stop the reply, as Esc does (with text selected, Ctrl+C copies it; when available)"."""
    if not note:
        return text
    return f"{text[:-1]}; {note})" if text.endswith(")") else f"{text} ({note})"


class HelpRow(msgspec.Struct, frozen=True):
    """One line of the help screen."""

    section: str
    keys: str
    description: str


def key_label(key: str) -> str:
    """``ctrl+l`` -> ``Ctrl+L``, ``escape`` -> ``Esc``, ``a`` -> ``a``, ``A`` -> ``Shift+A``."""
    labels = []
    for one in key.split(","):
        *mods, base = one.strip().split("+")
        if len(base) == 1 and base.isupper():
            mods.append("shift")
        symbol = format_key(base)  # Textual's own: equals_sign -> =, but not enter -> ⏎
        name = _NAMES.get(base) or (
            symbol if len(symbol) == 1 and symbol.isascii() else base.capitalize()
        )
        if (len(name) == 1 and mods) or (name[0] == "F" and name[1:].isdigit()):
            name = name.upper()
        labels.append("+".join([*(m.capitalize() for m in mods), name]))
    return " / ".join(labels)


def _keys_label(keys: list[str]) -> str:
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}-{keys[-1]}"
    return " ".join(key_label(k) for k in keys)


def section_name(kind: type[DOMNode]) -> str:
    """The help section of the keys of a widget, screen or app class."""
    return _SECTIONS.get(kind.__name__, kind.__name__)


def _listed(binding: Binding) -> bool:
    return not binding.system and (bool(binding.id) or binding.show)


def _rows(
    section: str, keyed: Iterable[tuple[str, Binding]], listed: set[str], note: str = ""
) -> list[HelpRow]:
    """One row per description (``1``-``9`` share one), recording the ids listed."""
    merged: dict[str, list[str]] = {}
    for key, binding in keyed:
        if _listed(binding):
            keys = merged.setdefault(noted(binding.tooltip or binding.description, note), [])
            if key not in keys:
                keys.append(key)
            if binding.id:
                listed.add(binding.id)
    return [HelpRow(section, _keys_label(keys), text) for text, keys in merged.items()]


def _class_keys(
    kind: type[DOMNode], keymap: Mapping[str, str], skip: set[str]
) -> list[tuple[str, Binding]]:
    """A class's bindings (its own and its steiner-tui bases') with their effective keys
    (``keymap`` by binding id)."""
    keyed: list[tuple[str, Binding]] = []
    owners = [c for c in kind.__mro__ if c is kind or c.__module__.startswith("steiner_tui.")]
    declared = [b for c in owners for b in c.__dict__.get("BINDINGS", ())]
    for binding in declared:
        if not isinstance(binding, Binding) or (binding.id and binding.id in skip):
            continue
        keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
        keyed.extend((key.strip(), binding) for key in keys.split(","))
    return keyed


def _declared_first(
    kind: type[DOMNode], keyed: list[tuple[str, Binding]]
) -> list[tuple[str, Binding]]:
    """``keyed`` (a widget's active bindings) in the order ``kind`` declares them, then the
    rest as they came: Textual lists a key a class takes over from its base (the prompt's
    Ctrl+D, the text area's delete) in the base's place, first."""
    declared = _class_keys(kind, {}, set())
    order = {_named(binding): i for i, (_, binding) in reversed(list(enumerate(declared)))}
    return sorted(keyed, key=lambda pair: order.get(_named(pair[1]), len(order)))


def _named(binding: Binding) -> str:
    """A binding's id, else its action (Textual hands out copies of the declared ones)."""
    return binding.id or binding.action


def screen_rows(screen: Screen[Any], keymap: Mapping[str, str]) -> list[HelpRow]:
    """The keys of ``screen``: active ones by node, idle ones, then its other widgets' keys."""
    by_node: dict[DOMNode, list[tuple[str, Binding]]] = {}
    for key, active in screen.active_bindings.items():
        by_node.setdefault(active.node, []).append((key, active.binding))
    rows: list[HelpRow] = []
    listed: set[str] = set()
    for node, keyed in by_node.items():
        if not isinstance(node, (Screen, App)):  # those keep the footer's order
            keyed = _declared_first(type(node), keyed)
        rows.extend(_rows(section_name(type(node)), keyed, listed))
    # The focused widget's own keys that do nothing right now (Tab with no completion shown)
    # too, beside the screen's and the app's.
    focused = [type(node) for node in by_node if isinstance(node, Widget)]
    owners = dict.fromkeys([*focused, type(screen), type(screen.app)])
    for owner in owners:
        idle = _class_keys(owner, keymap, set(listed))
        rows.extend(_rows(section_name(owner), idle, listed, IDLE_NOTE))
    seen = {type(node) for node in by_node}
    others: list[type[DOMNode]] = []
    extra: Sequence[type[DOMNode]] = getattr(screen, "HELP_WIDGETS", ())
    present = [type(w) for w in screen.query(Widget) if w.can_focus]
    for other in [*present, *extra]:
        if other not in seen and other not in others:
            others.append(other)
    for other in others:  # a key listed already (Home in every list of rows) is not again
        rows.extend(_rows(section_name(other), _class_keys(other, keymap, set(listed)), listed))
    order = list(dict.fromkeys(row.section for row in rows))
    return sorted(rows, key=lambda row: order.index(row.section))  # each section together


def slash_rows() -> list[HelpRow]:
    """One row per slash command, with the other agents' names it answers to."""
    rows = []
    for name, (synopsis, description) in SLASH_COMMANDS.items():
        others = ", ".join(f"/{alias}" for alias, command in ALIASES.items() if command == name)
        said = noted(description, f"also {others}" if others else "")
        rows.append(HelpRow("Commands", f"/{name} {synopsis}".rstrip(), said))
    return rows
