"""Token usage read from a reply the proxy passed through: a server-sent event stream or JSON.

The reply is kept as the upstream sent it (the proxy asks for an uncompressed one) and read
once it has ended. Streams are parsed by ``sseclient`` (sseclient-py): it takes any iterable of
byte chunks, which is what a recorded reply is.

* Anthropic Messages: ``message_start`` carries the input side (``input_tokens``,
  ``cache_read_input_tokens``, ``cache_creation_input_tokens``), ``message_delta`` the final
  ``output_tokens`` (and sometimes updated input figures).
* OpenAI Responses: ``response.completed`` (or ``.incomplete``/``.failed``) carries
  ``usage.input_tokens``, which *includes* ``input_tokens_details.cached_tokens``.
* Chat Completions: the chunk with ``usage`` (``prompt_tokens`` includes
  ``prompt_tokens_details.cached_tokens``).

``Usage.input_tokens`` is always the uncached input, so that the context a request took is
``input + cache read + cache creation`` for every API.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from sseclient import SSEClient

from steiner_tui.capture.decode import API_ANTHROPIC, API_CHAT, API_RESPONSES

__all__ = ["Usage", "reply_usage"]


class Usage(msgspec.Struct, frozen=True):
    """What the upstream reported for one request."""

    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    output_tokens: int = 0
    cache_creation_1h_tokens: int = 0
    """The part of ``cache_creation_tokens`` written for an hour (Anthropic's
    ``cache_creation.ephemeral_1h_input_tokens``), priced 2x input."""

    @property
    def context_tokens(self) -> int:
        return self.input_tokens + self.cache_read_tokens + self.cache_creation_tokens

    def to_json(self) -> dict[str, int]:
        figures = msgspec.structs.asdict(self)
        if not self.cache_creation_1h_tokens:  # the four figures every API reports
            del figures["cache_creation_1h_tokens"]
        return figures


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _events(reply: bytes) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for event in SSEClient(iter([reply])).events():
        if event.data.strip() == "[DONE]":
            continue
        try:
            value = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _anthropic(values: list[dict[str, Any]]) -> Usage | None:
    found = False
    figures = {"input_tokens": 0, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
    output = hour = 0
    for value in values:
        kind = value.get("type")
        usage: Any = None
        if kind == "message_start" and isinstance(value.get("message"), dict):
            usage = value["message"].get("usage")
        elif kind in ("message_delta", "message") or ("usage" in value and kind is None):
            usage = value.get("usage")
        if not isinstance(usage, dict):
            continue
        found = True
        for key in figures:
            if usage.get(key) is not None:
                figures[key] = _int(usage.get(key))
        if usage.get("output_tokens") is not None:
            output = _int(usage.get("output_tokens"))
        if isinstance(split := usage.get("cache_creation"), dict):
            hour = _int(split.get("ephemeral_1h_input_tokens"))
    if not found:
        return None
    return Usage(
        figures["input_tokens"],
        figures["cache_read_input_tokens"],
        figures["cache_creation_input_tokens"],
        output,
        min(hour, figures["cache_creation_input_tokens"]),
    )


def _openai(usage: Any, prompt: str, completion: str, details: str) -> Usage | None:
    if not isinstance(usage, dict):
        return None
    total = _int(usage.get(prompt))
    cached = usage.get(details)
    cached_tokens = _int(cached.get("cached_tokens")) if isinstance(cached, dict) else 0
    return Usage(max(total - cached_tokens, 0), cached_tokens, 0, _int(usage.get(completion)))


def _responses(values: list[dict[str, Any]]) -> Usage | None:
    found: Usage | None = None
    for value in values:
        response = value.get("response") if "response" in value else value
        if isinstance(response, dict) and isinstance(response.get("usage"), dict):
            found = _openai(
                response["usage"], "input_tokens", "output_tokens", "input_tokens_details"
            )
    return found


def _chat(values: list[dict[str, Any]]) -> Usage | None:
    found: Usage | None = None
    for value in values:
        if isinstance(value.get("usage"), dict):
            found = _openai(
                value["usage"], "prompt_tokens", "completion_tokens", "prompt_tokens_details"
            )
    return found


def reply_usage(api: str, content_type: str, reply: bytes) -> Usage | None:
    """The usage in ``reply`` (None when it reports none: an error, a cut stream)."""
    if "text/event-stream" in content_type:
        values = _events(reply)
    else:
        try:
            value = json.loads(reply)
        except ValueError:
            return None
        values = [value] if isinstance(value, dict) else []
    if api == API_ANTHROPIC:
        return _anthropic(values)
    if api == API_RESPONSES:
        return _responses(values)
    if api == API_CHAT:
        return _chat(values)
    return None
