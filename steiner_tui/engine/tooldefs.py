"""Tool definitions as the model sees them, sorted and serialized byte-stably.

The tool list is part of the cacheable prefix, so its bytes must not change within a session:
definitions are sorted by name and encoded as compact JSON in one fixed byte form (``jsonenc``).
A request snapshot's ``tools_bytes`` is the length of that encoding, never memoized by the
list's identity: a list rebuilt with other content must not reuse a size. Each definition
caches its own encoding (it is immutable), so computing it is a join; the last list's join is
kept, for a list equal to it (item by item: the same definitions, or equal ones). A turn asks
for it five times, and one string keeps its hash for the token cache's lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from steiner_tui.engine.frozen import freeze, thaw
from steiner_tui.engine.jsonenc import go_json

__all__ = ["ToolDefinition", "sort_tools", "tools_json", "tools_bytes"]


class _Encoding:
    """The slot where a definition caches its compact JSON: outside its fields, so outside
    ``__init__``, equality, hash and repr. A speed trick kept because it pays: encoding the
    default tool list afresh costs 0.27 ms a request, two requests a turn, over half of
    bench_soak's engine work per turn (about 0.95 ms offline)."""

    __slots__ = ("_json",)
    _json: str


class ToolDefinition(msgspec.Struct, _Encoding, frozen=True):
    """A tool's name, description and JSON-schema parameters (deep-frozen).

    Its compact JSON is written once, on first use (``json``): a definition cannot change, so
    the encoding of a request's tool list joins the definitions' own, whatever list holds them.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "parameters", freeze(self.parameters))
        msgspec.structs.force_setattr(self, "_json", "")

    @property
    def json(self) -> str:
        """The definition's compact JSON (``go_json`` of ``to_json_obj()``)."""
        cached = self._json
        if not cached:
            cached = go_json(self.to_json_obj())
            msgspec.structs.force_setattr(self, "_json", cached)
        return cached

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": thaw(self.parameters),
        }


def sort_tools(tools: Iterable[ToolDefinition]) -> tuple[ToolDefinition, ...]:
    """Tools sorted by name: the order every request uses."""
    return tuple(sorted(tools, key=lambda t: t.name))


_last_json: tuple[tuple[ToolDefinition, ...], str] = ((), "[]")
"""The last list ``tools_json`` encoded, and its encoding."""


def tools_json(tools: Iterable[ToolDefinition]) -> str:
    """The byte-stable encoding of a tool list (``[]`` when empty): the list of the
    definitions' own encodings, in order (the same bytes as encoding the list at once)."""
    global _last_json
    items = tuple(tools)
    last, text = _last_json
    if items != last:
        text = "[" + ",".join(t.json for t in items) + "]"
        _last_json = (items, text)
    return text


def tools_bytes(tools: Iterable[ToolDefinition]) -> int:
    """ToolsBytes: UTF-8 length of ``tools_json``; 0 for no tools."""
    items = list(tools)
    if not items:
        return 0
    return len(tools_json(items).encode())
