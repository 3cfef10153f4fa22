"""What a decoded request body holds, as plain frozen data: blocks, tools, messages, bytes.

``capture.decode`` fills these from a body; the report, the snapshots and the workbench read
them. ``normal_form`` and ``digest`` are the message hashes' rules: string content as one text
block and no ``cache_control``, because Claude Code re-sends an unchanged message with its
content as a string and without the breakpoint it carried the request before (byte-different,
the same to the prompt cache's reader of content).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgspec

__all__ = [
    "Accounting",
    "Block",
    "DecodedRequest",
    "Section",
    "Tool",
    "ToolResult",
    "WireMessage",
    "call_target",
    "json_object",
    "digest",
    "normal_form",
]


class Section(msgspec.Struct, frozen=True):
    """One top-level member of the body: its value's bytes, and for the listed sections each
    element's bytes and the framing between them (``bytes == sum(items) + framing``)."""

    name: str
    bytes: int
    items: tuple[int, ...] = ()
    framing: int = 0


class Accounting(msgspec.Struct, frozen=True):
    """Every byte of the body: ``total == sum(section bytes) + framing``."""

    total: int
    sections: tuple[Section, ...]
    framing: int

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "framing": self.framing,
            "sections": {
                s.name: {"bytes": s.bytes, "items": list(s.items), "framing": s.framing}
                for s in self.sections
            },
        }


class Block(msgspec.Struct, frozen=True):
    """A piece of context the agent put in the request, by source.

    ``source``: ``system`` (a system block or ``instructions``), ``system_message`` (a
    ``role: "system"`` message), ``developer`` (a developer message), ``instructions`` (an
    instruction file the agent injected: CLAUDE.md, AGENTS.md; ``path`` names it),
    ``reminder`` (another ``<system-reminder>``) or ``environment`` (Codex's environment
    context). ``where`` is its place in the body; ``cache_control`` whether it carries a cache
    breakpoint.
    """

    source: str
    role: str
    where: str
    bytes: int
    text: str
    path: str = ""
    cache_control: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            key: getattr(self, key)
            for key in ("source", "path", "role", "where", "bytes", "cache_control")
        }


class Tool(msgspec.Struct, frozen=True):
    """A tool definition: its name and the bytes of its JSON as sent (``where`` in the body)."""

    name: str
    bytes: int
    where: str
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bytes": self.bytes, "where": self.where}


class ToolResult(msgspec.Struct, frozen=True):
    """A tool result in the request: the tool that produced it, the file or command it was
    about (from the call's arguments) and its bytes as sent."""

    tool: str
    target: str
    bytes: int
    message: int
    call_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in ("tool", "target", "bytes", "message")}


class WireMessage(msgspec.Struct, frozen=True):
    """One message (or Responses input item) as sent: role, kind, bytes, normal-form hash."""

    role: str
    kind: str
    bytes: int
    hash: str
    text: str
    cache_control: bool = False
    tool_results: tuple[ToolResult, ...] = ()
    said: str = ""
    """Only the message's text parts: a reply without the arguments of the tool calls in it
    (``text`` joins every part, so the inspector accounts for all of the message)."""

    def to_json(self) -> dict[str, Any]:
        return {
            key: getattr(self, key) for key in ("role", "kind", "bytes", "hash", "cache_control")
        }


class DecodedRequest(msgspec.Struct, frozen=True):
    """What one request body holds."""

    api: str
    model: str
    stream: bool
    blocks: tuple[Block, ...]
    tools: tuple[Tool, ...]
    messages: tuple[WireMessage, ...]
    accounting: Accounting
    system_hash: str = ""
    tools_hash: str = ""
    max_tokens: int = 0
    problem: str = ""

    @property
    def tools_bytes(self) -> int:
        """Bytes of every tool definition, the ``tools`` array's framing included."""
        framing = (s.framing for s in self.accounting.sections if s.name == "tools")
        return sum(t.bytes for t in self.tools) + next(framing, 0)

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(r for m in self.messages for r in m.tool_results)


def normal_form(value: Any) -> Any:
    """``value`` without ``cache_control`` anywhere, string ``content`` as one text block."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "cache_control":
                continue
            if key == "content" and isinstance(item, str):
                out[key] = [{"type": "text", "text": item}]
            else:
                out[key] = normal_form(item)
        return out
    if isinstance(value, list):
        return [normal_form(item) for item in value]
    return value


def digest(value: Any) -> str:
    """The sha256 of ``value``'s normal form, as compact sorted JSON."""
    text = json.dumps(normal_form(value), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


TARGET_KEYS = ("file_path", "path", "notebook_path", "command", "cmd", "pattern", "url", "query")
"""Argument names that say what a tool call is about, in the order they are looked for."""


def json_object(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, or the object its JSON text holds (tool arguments as
    the OpenAI APIs send them); else an empty one."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def call_target(arguments: Any) -> str:
    """The file or command a tool call is about, from its arguments (``json_object``); ""
    when none of ``TARGET_KEYS`` names one."""
    found = json_object(arguments)
    for key in TARGET_KEYS:
        item = found.get(key)
        if isinstance(item, str) and item:
            return item
        if isinstance(item, list) and item and all(isinstance(x, str) for x in item):
            return " ".join(item)
    return ""
