"""Tool definitions as the model sees them, sorted and serialized byte-stably.

The tool list is part of the cacheable prefix, so its bytes must not change within a session:
definitions are sorted by name and encoded as compact JSON in one fixed byte form (``jsonenc``).
A request snapshot's ``tools_bytes`` is the length of that encoding, computed on every request,
never memoized by the list's identity: a list rebuilt with other content must not reuse a size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from steiner_tui.engine.frozen import freeze, thaw
from steiner_tui.engine.jsonenc import go_json

__all__ = ["ToolDefinition", "sort_tools", "tools_json", "tools_bytes"]


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool's name, description and JSON-schema parameters (deep-frozen)."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", freeze(self.parameters))

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
    """The byte-stable encoding of a tool list (``[]`` when empty)."""
    return go_json([t.to_json_obj() for t in tools])


def tools_bytes(tools: Iterable[ToolDefinition]) -> int:
    """ToolsBytes: UTF-8 length of ``tools_json``; 0 for no tools."""
    items = list(tools)
    if not items:
        return 0
    return len(tools_json(items).encode())
