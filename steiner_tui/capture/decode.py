"""Decode one captured request body into what the workbench shows: blocks, tools, messages.

Three request shapes are understood, told apart by the path the agent posted to:

* the Anthropic Messages API (``…/v1/messages``): ``system`` blocks, each with its cache
  breakpoint; ``tools``; ``messages``, where Claude Code puts CLAUDE.md and other notes in
  ``<system-reminder>`` text blocks of a user message and, with its per-turn-control beta,
  sends ``role: "system"`` messages too;
* the OpenAI Responses API (``…/responses``): ``instructions``; ``input`` items, where Codex
  sends its base instructions as developer messages, AGENTS.md in a user message part, and, for
  some models, tool definitions inside an ``additional_tools`` item; ``tools``;
* OpenAI Chat Completions (``…/chat/completions``): ``messages`` and ``tools``.

Every byte of the body is accounted for (``Accounting``): each top-level member's value, and
inside ``system``, ``tools``, ``messages`` and ``input`` each element, plus the framing (keys,
commas, brackets, spacing) that separates them. Sizes are those of the raw text as sent.

Message hashes are taken over a normal form (``capture.wire``, which holds what a decoded body
is made of).

Pure: no I/O; the proxy and the commands feed it stored bodies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from steiner_tui.capture.spans import Span, Spans, elements, members
from steiner_tui.capture.wire import (
    Accounting,
    Block,
    DecodedRequest,
    Section,
    Tool,
    ToolResult,
    WireMessage,
    call_target,
    digest,
    normal_form,
)

__all__ = [
    "API_ANTHROPIC",
    "API_CHAT",
    "API_RESPONSES",
    "Accounting",
    "Block",
    "DecodedRequest",
    "Section",
    "Tool",
    "ToolResult",
    "WireMessage",
    "api_of_path",
    "decode_request",
    "normal_form",
]

API_ANTHROPIC = "anthropic-messages"
API_RESPONSES = "openai-responses"
API_CHAT = "openai-chat"

_SECTIONS = ("system", "tools", "messages", "input")
"""Top-level members whose elements are accounted one by one."""

_INSTRUCTION_FILE = re.compile(r"Contents of (\S+?) \(")
_AGENTS_MD = re.compile(r"\A# AGENTS\.md instructions for (\S[^\n]*)")


def api_of_path(path: str) -> str:
    """The API a request path belongs to ("" when it is none of the three)."""
    bare = path.split("?", 1)[0].rstrip("/")
    if bare.endswith("/messages") and not bare.endswith("/chat/messages"):
        return API_ANTHROPIC
    if bare.endswith("/responses"):
        return API_RESPONSES
    if bare.endswith("/chat/completions"):
        return API_CHAT
    return ""


# -- helpers --------------------------------------------------------------------------------


def _has_cache_control(value: Any) -> bool:
    if isinstance(value, dict):
        return "cache_control" in value or any(_has_cache_control(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_cache_control(v) for v in value)
    return False


_TEXT_PARTS = frozenset({"text", "output_text", "input_text"})
"""Content part types that hold words (Anthropic, OpenAI Responses)."""


def _text_of(value: Any) -> str:
    """The readable text of a message or content value (text parts joined)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text_of(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "content", "output", "arguments", "input"):
            item = value.get(key)
            if isinstance(item, str):
                return item
            if isinstance(item, list):
                return _text_of(item)
            if isinstance(item, dict) and key == "input":
                return json.dumps(item, ensure_ascii=False)
    return ""


def _wire_message(
    role: str, kind: str, size: int, message: Any, content: Any, results: Sequence[ToolResult]
) -> WireMessage:
    """One message of the request: its digest and cache mark from ``message``, its text from
    ``content`` (the message itself where the text is not in a ``content`` field)."""
    return WireMessage(
        role,
        kind,
        size,
        digest(message),
        _text_of(content),
        _has_cache_control(message),
        tuple(results),
        _said(content),
    )


def _said(content: Any) -> str:
    """The text parts of a content value (a reply's words, not its tool calls' input)."""
    if not isinstance(content, list):
        return _text_of(content)
    texts = (
        str(part.get("text", ""))
        for part in content
        if isinstance(part, dict) and part.get("type") in _TEXT_PARTS
    )
    return "\n".join(t for t in texts if t)


def _tool_name(tool: Any) -> str:
    if not isinstance(tool, dict):
        return "?"
    name = tool.get("name")
    if isinstance(name, str) and name:
        return name
    function = tool.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return str(function["name"])
    kind = tool.get("type")
    return str(kind) if kind else "?"


def _description(tool: Any) -> str:
    if isinstance(tool, dict):
        description = tool.get("description")
        if isinstance(description, str):
            return description
        function = tool.get("function")
        if isinstance(function, dict) and isinstance(function.get("description"), str):
            return str(function["description"])
    return ""


class _Reader:
    """Spans and values of one body, decoded once."""

    def __init__(self, text: str) -> None:
        self.spans = Spans(text)
        self.text = text
        self.root = self.spans.whole()
        self.top = members(text, self.root)
        self.value: dict[str, Any] = json.loads(text)

    def size(self, span: Span) -> int:
        return self.spans.size(span)

    def items(self, name: str) -> list[Span]:
        span = self.top.get(name)
        if span is None:
            return []
        try:
            return elements(self.text, span)
        except ValueError:
            return []

    def accounting(self, total: int) -> Accounting:
        sections: list[Section] = []
        for name, span in self.top.items():
            size = self.size(span)
            if name in _SECTIONS:
                items = tuple(self.size(s) for s in self.items(name))
                sections.append(Section(name, size, items, size - sum(items)))
            else:
                sections.append(Section(name, size))
        return Accounting(total, tuple(sections), total - sum(s.bytes for s in sections))


def _tools(reader: _Reader, name: str = "tools") -> list[Tool]:
    values = reader.value.get(name)
    if not isinstance(values, list):
        return []
    return [
        Tool(_tool_name(tool), reader.size(span), f"{name}[{i}]", _description(tool))
        for i, (tool, span) in enumerate(zip(values, reader.items(name), strict=True))
    ]


# -- Anthropic Messages ---------------------------------------------------------------------


def _anthropic(reader: _Reader) -> tuple[list[Block], list[Tool], list[WireMessage]]:
    body = reader.value
    blocks: list[Block] = []
    system = body.get("system")
    if isinstance(system, str):
        blocks.append(
            Block("system", "system", "system", reader.size(reader.top["system"]), system)
        )
    elif isinstance(system, list):
        for i, (item, span) in enumerate(zip(system, reader.items("system"), strict=True)):
            blocks.append(
                Block(
                    "system",
                    "system",
                    f"system[{i}]",
                    reader.size(span),
                    _text_of(item),
                    cache_control=_has_cache_control(item),
                )
            )
    calls: dict[str, tuple[str, str]] = {}
    messages: list[WireMessage] = []
    raw = body.get("messages")
    raw = raw if isinstance(raw, list) else []
    for mi, (message, span) in enumerate(zip(raw, reader.items("messages"), strict=True)):
        role = str(message.get("role", "?")) if isinstance(message, dict) else "?"
        content = message.get("content") if isinstance(message, dict) else None
        results: list[ToolResult] = []
        parts: list[tuple[Any, Span]] = []
        if isinstance(content, list):
            content_span = members(reader.text, span).get("content")
            if content_span is not None:
                parts = list(zip(content, elements(reader.text, content_span), strict=True))
        for pi, (part, part_span) in enumerate(parts):
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            where = f"messages[{mi}].content[{pi}]"
            if kind == "tool_use":
                calls[str(part.get("id", ""))] = (
                    str(part.get("name", "?")),
                    call_target(part.get("input")),
                )
            elif kind == "tool_result":
                call = str(part.get("tool_use_id", ""))
                name, target = calls.get(call, ("?", ""))
                results.append(ToolResult(name, target, reader.size(part_span), mi, call))
            elif kind == "text" and role == "user":
                text = str(part.get("text", ""))
                if "<system-reminder>" in text:
                    files = _INSTRUCTION_FILE.findall(text)
                    blocks.append(
                        Block(
                            "instructions" if files else "reminder",
                            role,
                            where,
                            reader.size(part_span),
                            text,
                            path=", ".join(files),
                            cache_control="cache_control" in part,
                        )
                    )
        if role == "system":
            blocks.append(
                Block(
                    "system_message",
                    role,
                    f"messages[{mi}]",
                    reader.size(span),
                    _text_of(content),
                    cache_control=_has_cache_control(message),
                )
            )
        messages.append(
            _wire_message(role, "message", reader.size(span), message, content, results)
        )
    return blocks, _tools(reader), messages


# -- OpenAI Responses -----------------------------------------------------------------------


def _responses(reader: _Reader) -> tuple[list[Block], list[Tool], list[WireMessage]]:
    body = reader.value
    blocks: list[Block] = []
    tools = _tools(reader)
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        size = reader.size(reader.top["instructions"])
        blocks.append(Block("system", "system", "instructions", size, instructions))
    raw = body.get("input")
    messages: list[WireMessage] = []
    if isinstance(raw, str):
        size = reader.size(reader.top["input"])
        messages.append(WireMessage("user", "message", size, digest(raw), raw))
        return blocks, tools, messages
    raw = raw if isinstance(raw, list) else []
    calls: dict[str, tuple[str, str]] = {}
    for ii, (item, span) in enumerate(zip(raw, reader.items("input"), strict=True)):
        if not isinstance(item, dict):
            continue
        kind = str(item.get("type") or "message")
        role = str(item.get("role") or "")
        results: list[ToolResult] = []
        where = f"input[{ii}]"
        if kind == "additional_tools":
            inner = item.get("tools")
            tool_span = members(reader.text, span).get("tools")
            if isinstance(inner, list) and tool_span is not None:
                spans = elements(reader.text, tool_span)
                for ti, (tool, tspan) in enumerate(zip(inner, spans, strict=True)):
                    tools.append(
                        Tool(
                            _tool_name(tool),
                            reader.size(tspan),
                            f"{where}.tools[{ti}]",
                            _description(tool),
                        )
                    )
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            arguments = item.get("arguments", item.get("input", item.get("action")))
            name = str(item.get("name", kind))
            calls[str(item.get("call_id", ""))] = (name, call_target(arguments))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            call = str(item.get("call_id", ""))
            name, target = calls.get(call, ("?", ""))
            results.append(ToolResult(name, target, reader.size(span), ii, call))
        elif kind == "message" and role in ("developer", "system"):
            blocks.append(
                Block("developer", role, where, reader.size(span), _text_of(item.get("content")))
            )
        elif kind == "message" and role == "user":
            content = item.get("content")
            content_span = members(reader.text, span).get("content")
            if isinstance(content, list) and content_span is not None:
                spans = elements(reader.text, content_span)
                for pi, (part, pspan) in enumerate(zip(content, spans, strict=True)):
                    text = _text_of(part)
                    agents = _AGENTS_MD.match(text)
                    source, path = "", ""
                    if agents:
                        source, path = "instructions", f"{agents.group(1).rstrip()}/AGENTS.md"
                    elif text.startswith("<environment_context>"):
                        source = "environment"
                    if source:
                        blocks.append(
                            Block(
                                source,
                                role,
                                f"{where}.content[{pi}]",
                                reader.size(pspan),
                                text,
                                path=path,
                            )
                        )
        messages.append(_wire_message(role or kind, kind, reader.size(span), item, item, results))
    return blocks, tools, messages


# -- OpenAI Chat Completions ----------------------------------------------------------------


def _chat(reader: _Reader) -> tuple[list[Block], list[Tool], list[WireMessage]]:
    body = reader.value
    blocks: list[Block] = []
    messages: list[WireMessage] = []
    calls: dict[str, tuple[str, str]] = {}
    raw = body.get("messages")
    raw = raw if isinstance(raw, list) else []
    for mi, (message, span) in enumerate(zip(raw, reader.items("messages"), strict=True)):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role", "?"))
        content = message.get("content")
        results: list[ToolResult] = []
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and isinstance(call.get("function"), dict):
                function = call["function"]
                calls[str(call.get("id", ""))] = (
                    str(function.get("name", "?")),
                    call_target(function.get("arguments")),
                )
        if role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            name, target = calls.get(call_id, ("?", ""))
            results.append(ToolResult(name, target, reader.size(span), mi, call_id))
        if role in ("system", "developer"):
            blocks.append(
                Block(role, role, f"messages[{mi}]", reader.size(span), _text_of(content))
            )
        messages.append(
            _wire_message(role, "message", reader.size(span), message, content, results)
        )
    return blocks, _tools(reader), messages


def decode_request(path: str, body: bytes) -> DecodedRequest:
    """Decode the body the agent posted to ``path``.

    A body that is not a JSON object (or not UTF-8, or nested deeper than Python's JSON reader
    goes) is still accounted for, as one opaque section, with ``problem`` saying why it could
    not be read.
    """
    api = api_of_path(path)
    try:
        return _decode_request(api, body)
    except RecursionError:
        opaque = Accounting(len(body), (Section("body", len(body)),), 0)
        return DecodedRequest(api, "", False, (), (), (), opaque, problem="JSON nested too deeply")


def _decode_request(api: str, body: bytes) -> DecodedRequest:
    try:
        text = body.decode("utf-8", "surrogatepass")
        reader = _Reader(text)
        if not isinstance(reader.value, dict):
            raise ValueError("the body is not a JSON object")
    except (ValueError, IndexError) as exc:
        opaque = Accounting(len(body), (Section("body", len(body)),), 0)
        return DecodedRequest(api, "", False, (), (), (), opaque, problem=str(exc))
    decoders = {API_ANTHROPIC: _anthropic, API_RESPONSES: _responses, API_CHAT: _chat}
    decoder = decoders.get(api, _chat)
    blocks, tools, messages = decoder(reader)
    body_value = reader.value
    system_value = body_value.get("system", body_value.get("instructions"))
    tools_value = body_value.get("tools")
    max_tokens = body_value.get("max_tokens", body_value.get("max_output_tokens", 0))
    return DecodedRequest(
        api,
        str(body_value.get("model", "")),
        bool(body_value.get("stream", False)),
        tuple(blocks),
        tuple(tools),
        tuple(messages),
        reader.accounting(len(body)),
        system_hash=digest(system_value) if system_value is not None else "",
        tools_hash=digest(tools_value) if tools_value is not None else "",
        max_tokens=max_tokens if isinstance(max_tokens, int) else 0,
    )
