"""What the F1 screen lists: every binding with its effective key, and the slash commands.

Bindings are data (``BINDINGS`` lists with ids); the keymap from config replaces a binding's key
by id, so the help shows the keys the user actually has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from textual.binding import Binding, BindingType

from steiner_tui.app.slash import SLASH_COMMANDS

__all__ = ["HelpRow", "binding_rows", "key_label", "slash_rows"]

_NAMES = {"escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn", "question_mark": "?"}


@dataclass(frozen=True, slots=True)
class HelpRow:
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
        name = _NAMES.get(base, base if len(base) == 1 else base.capitalize())
        if (len(name) == 1 and mods) or (name[0] == "F" and name[1:].isdigit()):
            name = name.upper()
        labels.append("+".join([*(m.capitalize() for m in mods), name]))
    return " / ".join(labels)


def _keys_label(keys: list[str]) -> str:
    if len(keys) > 2 and all(k.isdigit() and len(k) == 1 for k in keys):
        return f"{keys[0]}-{keys[-1]}"
    return " ".join(key_label(k) for k in keys)


def binding_rows(
    sections: Iterable[tuple[str, Sequence[BindingType]]], keymap: Mapping[str, str]
) -> list[HelpRow]:
    """Rows for each section's bindings, keys from ``keymap`` where it names the binding id.

    Bindings that share a description (``1``-``9``) are listed once with all their keys.
    """
    rows: list[HelpRow] = []
    for section, bindings in sections:
        merged: dict[str, list[str]] = {}
        for binding in bindings:
            if not isinstance(binding, Binding) or binding.system:
                continue
            key = keymap.get(binding.id, binding.key) if binding.id else binding.key
            merged.setdefault(binding.tooltip or binding.description, []).append(key)
        rows.extend(HelpRow(section, _keys_label(keys), text) for text, keys in merged.items())
    return rows


def slash_rows() -> list[HelpRow]:
    """One row per slash command."""
    return [
        HelpRow("Commands", f"/{name} {synopsis}".rstrip(), description)
        for name, (synopsis, description) in SLASH_COMMANDS.items()
    ]
