"""``ChatRequest`` -> OpenAI Chat Completions parameters (also for OpenAI-compatible servers).

Rules:
- ``system``/``user``/``assistant``/``tool`` map to the same roles. User images become
  ``image_url`` parts with ``data:`` URLs. Assistant tool calls resend the model's own
  ``raw_arguments`` (the exact text it produced), or the JSON of ``arguments`` when that is empty.
  Reasoning is not resent.
- Chat Completions has no images in ``tool`` messages, so images from a run of tool results
  follow that run as one user message.
- ``max_completion_tokens`` for OpenAI's o-series and gpt-5 models (they refuse ``max_tokens``),
  ``max_tokens`` otherwise (what local servers understand).
- ``stream_options.include_usage`` asks for the usage chunk; ``prompt_cache_key`` is sent only to
  OpenAI itself (``official``), since strict local servers reject unknown fields.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.models import model_key
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.streaming import data_url

__all__ = ["arguments_text", "to_chat_params", "uses_max_completion_tokens"]

_COMPLETION_TOKEN_MODELS = re.compile(r"^(o\d|gpt-5)")


def uses_max_completion_tokens(model: str) -> bool:
    """True for OpenAI models that only accept ``max_completion_tokens``."""
    return bool(_COMPLETION_TOKEN_MODELS.match(model_key(model)))


def arguments_text(call: ToolCall) -> str:
    """The argument text to resend for a stored tool call."""
    if call.raw_arguments:
        return call.raw_arguments
    return json.dumps(thaw(call.arguments) if call.arguments is not None else {})


def _user_content(message: Message) -> str | list[dict[str, Any]]:
    if not message.images:
        return message.content
    parts: list[dict[str, Any]] = []
    if message.content:
        parts.append({"type": "text", "text": message.content})
    parts.extend(
        {"type": "image_url", "image_url": {"url": data_url(i.media_type, i.data)}}
        for i in message.images
    )
    return parts


def _chat_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    pending_images: list[dict[str, Any]] = []

    def flush_images() -> None:
        if pending_images:
            text = {"type": "text", "text": "Images returned by the tool calls above:"}
            out.append({"role": "user", "content": [text, *pending_images]})
            pending_images.clear()

    for message in messages:
        if message.role != "tool":
            flush_images()
        if message.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            pending_images.extend(
                {"type": "image_url", "image_url": {"url": data_url(i.media_type, i.data)}}
                for i in message.images
            )
        elif message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments_text(call)},
                    }
                    for call in message.tool_calls
                ]
            elif not message.content:
                entry["content"] = ""
            out.append(entry)
        elif message.role == "user":
            out.append({"role": "user", "content": _user_content(message)})
        else:
            out.append({"role": message.role, "content": message.content})
    flush_images()
    return out


def to_chat_params(request: ChatRequest, *, official: bool) -> dict[str, Any]:
    """Keyword arguments for ``chat.completions.create`` (without ``stream``).

    Args:
        request: the assembled request.
        official: the server is OpenAI's own API (enables ``prompt_cache_key``).
    """
    params: dict[str, Any] = {
        "model": request.model,
        "messages": _chat_messages(request.messages),
        "stream_options": {"include_usage": True},
    }
    if uses_max_completion_tokens(request.model):
        params["max_completion_tokens"] = request.max_tokens
    else:
        params["max_tokens"] = request.max_tokens
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": thaw(t.parameters),
                },
            }
            for t in request.tools
        ]
    if official and request.prompt_cache_key:
        params["prompt_cache_key"] = request.prompt_cache_key
    if request.extra_body:
        params["extra_body"] = thaw(request.extra_body)
    return params
