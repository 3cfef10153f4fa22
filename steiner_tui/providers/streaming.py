"""Pieces every streaming provider shares: tool-call assembly, argument parsing, client reuse.

Tool calls arrive in fragments (Anthropic ``input_json_delta``, OpenAI chunked ``arguments``);
``ToolCallBuffer`` collects them and turns them into one complete ``ToolCall`` whose
``raw_arguments`` is exactly what the model sent. ``LoopClient`` keeps one SDK client per event
loop: an async HTTP pool is bound to the loop that opened its connections, and ``exec`` or tests
may run several loops in one process; it builds each client in a thread, SDK import included.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, TypeVar

import msgspec

from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.provider import StreamToolInput

__all__ = ["LoopClient", "ToolCallBuffer", "data_url", "parse_arguments"]

ClientT = TypeVar("ClientT")


def parse_arguments(raw: str) -> Mapping[str, Any] | None:
    """The JSON object in ``raw``; ``{}`` for blank input; ``None`` when it is not an object."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def data_url(media_type: str, data: str) -> str:
    """A ``data:`` URL for base64 image data (OpenAI image inputs)."""
    return f"data:{media_type};base64,{data}"


class ToolCallBuffer(msgspec.Struct):
    """Fragments of one streamed tool call."""

    id: str = ""
    name: str = ""
    parts: list[str] = msgspec.field(default_factory=list)
    initial: Mapping[str, Any] | None = None
    """Arguments announced before any fragment (Anthropic's ``content_block_start`` input)."""
    chars: int = 0
    """Characters of the fragments so far."""

    def add(self, fragment: str) -> StreamToolInput:
        """Keep a fragment of the arguments; what to tell the stream's reader of it."""
        self.parts.append(fragment)
        self.chars += len(fragment)
        return StreamToolInput(self.name, self.chars)

    def add_name(self, fragment: str) -> None:
        # Most servers send the name once; some split it, a few repeat it whole on every chunk.
        if fragment and fragment != self.name:
            self.name += fragment

    def to_call(self, raw_override: str | None = None) -> ToolCall:
        """The complete call; ``raw_override`` is a server's authoritative final argument text."""
        raw = raw_override if raw_override is not None else "".join(self.parts)
        arguments = parse_arguments(raw)
        if not raw.strip() and self.initial:
            arguments = self.initial
        return ToolCall(id=self.id, name=self.name, arguments=arguments, raw_arguments=raw)


class LoopClient(Generic[ClientT]):
    """One SDK client per running event loop, made on first use (in a thread) and closable.

    ``factory`` runs in a worker thread: it imports the SDK (a second or more the first time)
    and builds the client, so the caller's event loop (the UI's) never waits on either.
    """

    def __init__(
        self, factory: Callable[[], ClientT], closer: Callable[[ClientT], Awaitable[None]]
    ):
        self._factory = factory
        self._closer = closer
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: ClientT | None = None

    async def get(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is not None and self._loop is loop:
            return self._client
        made = await asyncio.to_thread(self._factory)
        if self._client is not None and self._loop is loop:
            await self._closer(made)  # a concurrent first call built one meanwhile
            return self._client
        # A client of a finished loop cannot be closed from here: its session closed it before
        # that loop ended (``Session.stop``), or a pooled socket waits for the collector.
        self._client, self._loop = made, loop
        return made

    async def aclose(self) -> None:
        client, self._client, self._loop = self._client, None, None
        if client is not None:
            await self._closer(client)
