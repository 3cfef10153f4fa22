"""Tool definitions as the model sees them, sorted and serialized byte-stably.

The tool list is part of the cacheable prefix, so its bytes must not change within a session:
definitions are sorted by name and encoded as compact JSON in one fixed byte form (``jsonenc``).
A request snapshot's ``tools_bytes`` is the length of that encoding, computed on every request,
never memoized by the list's identity: a list rebuilt with other content must not reuse a size.
Each definition caches its own encoding (it is immutable), so computing it is a join.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from steiner_tui.engine.frozen import freeze, thaw
from steiner_tui.engine.jsonenc import go_json

__all__ = ["ToolDefinition", "sort_tools", "tools_json", "tools_bytes"]


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool's name, description and JSON-schema parameters (deep-frozen).

    Its compact JSON is written once, on first use (``json``): a definition cannot change, so
    the encoding of a request's tool list joins the definitions' own, whatever list holds them.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    _json: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", freeze(self.parameters))

    @property
    def json(self) -> str:
        """The definition's compact JSON (``go_json`` of ``to_json_obj()``)."""
        cached = self._json
        if not cached:
            cached = go_json(self.to_json_obj())
            object.__setattr__(self, "_json", cached)
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


def tools_json(tools: Iterable[ToolDefinition]) -> str:
    """The byte-stable encoding of a tool list (``[]`` when empty): the list of the
    definitions' own encodings, in order (the same bytes as encoding the list at once)."""
    return "[" + ",".join(t.json for t in tools) + "]"


def tools_bytes(tools: Iterable[ToolDefinition]) -> int:
    """ToolsBytes: UTF-8 length of ``tools_json``; 0 for no tools."""
    items = list(tools)
    if not items:
        return 0
    return len(tools_json(items).encode())
