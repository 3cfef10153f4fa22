"""``ChatRequest`` -> OpenAI Responses API parameters, and which messages the backend already holds.

Conversion: ``system`` messages are joined (blank line between) into ``instructions``, which the
API does not carry over ``previous_response_id`` and so is resent on every call. Other messages
become input items: ``user`` -> a user message (``input_text``/``input_image`` parts),
``assistant`` -> an assistant message plus one ``function_call`` item per tool call, ``tool`` ->
``function_call_output`` (a list with ``input_image`` parts when the result carries images).

The continuation rule (``new_input_start``): the runner always passes the whole conversation. The
provider remembers, per response id it produced, how many non-system messages that call's input
held (``held``). The backend then holds those plus its own output, which the runner stored as the
assistant message at position ``held``; so the new input starts after it (or at ``held`` when
position ``held`` is not an assistant message, e.g. the output was never stored). For an id this
process did not produce (a resumed session), the new input is everything after the last
assistant message the backend produced: an interrupted one (``INTERRUPTION_NOTE``) never was, the
stream that carried it having failed before its response completed. Without ``backend_state``
everything is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from steiner_tui.engine.frozen import thaw
from steiner_tui.engine.messages import INTERRUPTION_NOTE, Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.openai_chat_convert import arguments_text
from steiner_tui.providers.streaming import data_url

__all__ = ["conversation", "input_items", "new_input_start", "to_responses_params"]


def conversation(request: ChatRequest) -> list[Message]:
    """The non-system messages of a request (what input items are made of)."""
    return [m for m in request.messages if m.role != "system"]


def new_input_start(messages: Sequence[Message], held: int | None) -> int:
    """Index of the first message the backend does not hold yet (see the module docstring)."""
    if held is not None and 0 <= held <= len(messages):
        if held < len(messages) and messages[held].role == "assistant":
            return held + 1
        return held
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant" and not message.content.endswith(INTERRUPTION_NOTE):
            return index + 1
    return 0


def _image(media_type: str, data: str) -> dict[str, Any]:
    return {"type": "input_image", "image_url": data_url(media_type, data), "detail": "auto"}


def input_items(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Responses API input items for ``messages`` (no system messages)."""
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            output: str | list[dict[str, Any]] = message.content
            if message.images:
                parts = [{"type": "input_text", "text": message.content}] if message.content else []
                output = parts + [_image(i.media_type, i.data) for i in message.images]
            items.append(
                {"type": "function_call_output", "call_id": message.tool_call_id, "output": output}
            )
        elif message.role == "assistant":
            if message.content:
                items.append({"type": "message", "role": "assistant", "content": message.content})
            items.extend(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": arguments_text(call),
                }
                for call in message.tool_calls
            )
        else:
            content: list[dict[str, Any]] = []
            if message.content:
                content.append({"type": "input_text", "text": message.content})
            content.extend(_image(i.media_type, i.data) for i in message.images)
            if content:
                items.append({"type": "message", "role": message.role, "content": content})
    return items


def to_responses_params(
    request: ChatRequest, *, held: int | None, official: bool
) -> tuple[dict[str, Any], int]:
    """Keyword arguments for ``responses.create`` and the count of conversation messages sent.

    Args:
        request: the assembled request (whole conversation).
        held: how many conversation messages the backend held as input for
            ``request.backend_state`` (``None`` when unknown).
        official: the server is OpenAI's own API (enables ``prompt_cache_key``).

    Returns:
        The parameters, and the number of non-system messages in the request (the ``held`` value
        to remember for the response this call creates).
    """
    messages = conversation(request)
    retire = request.retire_backend_state
    previous = None if retire else request.backend_state
    start = new_input_start(messages, held) if previous else 0
    params: dict[str, Any] = {
        "model": request.model,
        "input": input_items(messages[start:]),
        "max_output_tokens": request.max_tokens,
        # A retiring summary or a compaction call must not leave a transcript to continue.
        "store": not (retire or request.compaction),
    }
    instructions = "\n\n".join(m.content for m in request.messages if m.role == "system")
    if instructions:
        params["instructions"] = instructions
    if previous:
        params["previous_response_id"] = previous
    if request.tools:
        params["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": thaw(t.parameters),
                "strict": False,
            }
            for t in request.tools
        ]
    if official and request.prompt_cache_key:
        params["prompt_cache_key"] = request.prompt_cache_key
    if request.extra_body:
        params["extra_body"] = thaw(request.extra_body)
    return params, len(messages)
