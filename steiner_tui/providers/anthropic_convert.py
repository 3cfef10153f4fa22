"""``ChatRequest`` -> Anthropic Messages API parameters, with prompt-cache breakpoints.

Rules:
- Every ``system`` message becomes a text block of the ``system`` parameter, in order (a
  compaction summary arrives as ``system`` and joins them).
- ``user`` -> a user turn (images first, as Anthropic recommends, then the text);
  ``assistant`` -> text plus ``tool_use`` blocks (reasoning is not resent: it would need the
  thinking signature); ``tool`` -> a user turn holding one ``tool_result`` (text, plus images).
  Consecutive turns of one role are merged, so tool results of one step share a turn.
- Empty text blocks are left out (the API rejects them); a message left empty is dropped.
- ``cache_control: ephemeral`` marks the byte-stable prefix, at most four breakpoints: the last
  tool definition, the last system block before the conversation, the last system block (when
  different), and the last block of message ``cacheable_prefix_messages - 1`` when that is a
  conversation message.
"""

from __future__ import annotations

from typing import Any

from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["MAX_BREAKPOINTS", "message_blocks", "to_anthropic_params", "tool_param"]

MAX_BREAKPOINTS = 4


def _image_block(media_type: str, data: str) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}


def message_blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """The Anthropic role and content blocks of one non-system message."""
    if message.role == "tool":
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if message.images:
            parts: list[dict[str, Any]] = []
            if message.content:
                parts.append({"type": "text", "text": message.content})
            parts.extend(_image_block(i.media_type, i.data) for i in message.images)
            result["content"] = parts
        elif message.content:
            result["content"] = message.content
        return "user", [result]
    blocks: list[dict[str, Any]] = []
    if message.role == "assistant":
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        for call in message.tool_calls:
            arguments = thaw(call.arguments) if call.arguments is not None else {}
            blocks.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments}
            )
        return "assistant", blocks
    blocks.extend(_image_block(i.media_type, i.data) for i in message.images)
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    return "user", blocks


def tool_param(tool: ToolDefinition) -> dict[str, Any]:
    """One tool definition in Anthropic's shape."""
    return {
        "name": tool.name,
        "description": tool.description,
        "input_schema": thaw(tool.parameters),
    }


def to_anthropic_params(request: ChatRequest) -> dict[str, Any]:
    """Keyword arguments for ``messages.create`` (without ``stream``).

    Args:
        request: the assembled request; ``messages`` are in provider roles.

    Returns:
        ``model``, ``max_tokens``, ``messages`` and, when present, ``system`` and ``tools``.
    """
    system: list[dict[str, Any]] = []
    leading_system: dict[str, Any] | None = None
    turns: list[dict[str, Any]] = []
    prefix_block: dict[str, Any] | None = None
    prefix_index = request.cacheable_prefix_messages - 1
    for index, message in enumerate(request.messages):
        if message.role == "system":
            if message.content:
                system.append({"type": "text", "text": message.content})
                if not turns:
                    leading_system = system[-1]
            continue
        role, blocks = message_blocks(message)
        if blocks:
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})
        if index == prefix_index and turns:
            prefix_block = turns[-1]["content"][-1]

    tools = [tool_param(t) for t in request.tools]
    marks: list[dict[str, Any]] = []
    for block in (
        tools[-1] if tools else None,
        leading_system,
        system[-1] if system else None,
        prefix_block,
    ):
        if block is not None and all(block is not m for m in marks):
            marks.append(block)
    for block in marks[:MAX_BREAKPOINTS]:
        block["cache_control"] = {"type": "ephemeral"}

    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": request.max_tokens,
        "messages": turns,
    }
    if system:
        params["system"] = system
    if tools:
        params["tools"] = tools
    if request.extra_body:
        params["extra_body"] = thaw(request.extra_body)
    return params
