"""Captured requests as the engine's request snapshots, for the workbench's screens.

The request inspector, its compare view and the context figures render ``RequestSnapshot``s;
turning a captured request into one lets them show an agent's requests as they show steiner's
own. What the snapshot cannot know it says plainly: the "estimate" is the context the API
reported for the request (input, cache read and cache creation), its strategy ``reported``
with the three parts (and why the reply was cut short, when it was); a request with no usage
(its reply has not ended, or carried none) is estimated from its bytes
(``capture.figures.context_figures``), its strategy saying so, with low confidence. Message
hashes are the capture's normal-form hashes, so the compare view's first differing message is
the cache prefix break. The per-source rows and the compaction mark are ``capture.figures``'.

The engine knows five message roles; the wire has more. A developer message is a ``system``
one, a call item (Responses' ``function_call``) an ``assistant`` one, a call's output a
``tool`` one (with the call's id), and anything else a ``user`` one, the wire role kept as the
message's ``name`` so nothing is lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.capture.figures import (
    ContextFigure,
    context_figures,
    is_compaction_call,
    request_sources,
)
from steiner_tui.capture.report import CapturedRequest
from steiner_tui.capture.wire import WireMessage
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = ["to_snapshots"]


_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})


def engine_message(message: WireMessage) -> Message:
    """``message`` as the engine's ``Message`` (module docstring)."""
    if message.tool_results:
        call = message.tool_results[0].call_id
        return Message("tool", message.text, tool_call_id=call, name=message.role)
    if message.kind in _CALLS:
        return Message("assistant", message.text, name=message.kind)
    role = _ROLES.get(message.role)
    if role is None:
        return Message("user", message.text, name=message.role)
    return Message(role, message.text, name="" if role == message.role else message.role)


def _cut(request: CapturedRequest) -> str:
    reply = request.recorded.reply
    return f" (reply cut short: {reply.cut})" if reply is not None and reply.cut else ""


def to_snapshot(
    request: CapturedRequest, index: int, figure: ContextFigure | None = None
) -> RequestSnapshot:
    """The snapshot of one captured request, numbered ``index``; ``figure`` is its context
    when it has no usage (``context_figures``; by default estimated at 4 bytes a token)."""
    decoded = request.decoded
    usage = request.usage
    messages = tuple(engine_message(m) for m in decoded.messages)
    blocks = tuple(ContextBlock(b.source, b.role, b.text, b.path) for b in decoded.blocks)
    tools = tuple(ToolDefinition(t.name, t.description, {}) for t in decoded.tools)
    if figure is None:
        figure = context_figures([request])[0]
    tokens = usage.context_tokens if usage is not None else figure.tokens
    return RequestSnapshot(
        request_id=f"capture-{request.recorded.seq}",
        index=index,
        model=decoded.model or "?",
        provider=decoded.api,
        time=request.recorded.time,
        message_hashes=tuple(m.hash for m in decoded.messages),
        messages=messages,
        blocks=blocks,
        block_message_count=0,
        prompt_bytes=sum(m.bytes for m in decoded.messages),
        blocks_bytes=sum(b.bytes for b in decoded.blocks),
        tools=tools,
        tools_bytes=decoded.tools_bytes,
        max_tokens=decoded.max_tokens,
        estimated_prompt_tokens=tokens,
        raw_prompt_tokens=tokens,
        estimate_strategy=(
            f"reported: {usage.input_tokens:,} input, {usage.cache_read_tokens:,} cache read, "
            f"{usage.cache_creation_tokens:,} cache write{_cut(request)}"
            if usage is not None
            else figure.how + _cut(request)
        ),
        estimate_confidence="exact" if usage is not None else "low",
        compaction=is_compaction_call(decoded),
        sources=request_sources(decoded, tokens),
    )


def to_snapshots(requests: Sequence[CapturedRequest]) -> list[RequestSnapshot]:
    """Every captured request's snapshot, numbered from 1."""
    figures = context_figures(requests)
    return [
        to_snapshot(request, i, figure)
        for i, (request, figure) in enumerate(zip(requests, figures, strict=True), 1)
    ]
