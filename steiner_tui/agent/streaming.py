"""Consume one provider stream into an assistant reply, keeping whatever arrived.

The runner needs three things from a stream: the events forwarded to sinks as they arrive, the
assembled reply (text, reasoning, tool calls, usage, backend state), and — when the stream
fails or is cancelled — the partial text, so the conversation keeps exactly what the user saw.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec

from steiner_tui.engine.events import (
    EventSink,
    ReasoningDelta,
    TextDelta,
    ToolInputDelta,
    WarningEvent,
)
from steiner_tui.engine.messages import ToolCall
from steiner_tui.engine.provider import (
    ProviderEvent,
    StreamDone,
    StreamNotice,
    StreamReasoning,
    StreamText,
    StreamToolCall,
    StreamToolInput,
    StreamUsage,
)

__all__ = ["StreamCollector"]


class StreamCollector(msgspec.Struct):
    """Accumulates a reply while forwarding text and reasoning deltas to ``sink``."""

    sink: EventSink | None = None
    text_parts: list[str] = msgspec.field(default_factory=list)
    reasoning_parts: list[str] = msgspec.field(default_factory=list)
    tool_calls: list[ToolCall] = msgspec.field(default_factory=list)
    usage: StreamUsage | None = None
    done: StreamDone | None = None

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def reasoning(self) -> str:
        return "".join(self.reasoning_parts)

    @property
    def has_output(self) -> bool:
        return bool(self.text_parts or self.reasoning_parts or self.tool_calls)

    def feed(self, event: ProviderEvent) -> None:
        if isinstance(event, StreamText):
            if event.text:
                self.text_parts.append(event.text)
                if self.sink is not None:
                    self.sink.emit(TextDelta(event.text))
        elif isinstance(event, StreamReasoning):
            if event.text:
                self.reasoning_parts.append(event.text)
                if self.sink is not None:
                    self.sink.emit(ReasoningDelta(event.text))
        elif isinstance(event, StreamToolInput):
            if self.sink is not None:
                self.sink.emit(ToolInputDelta(event.name, event.chars))
        elif isinstance(event, StreamToolCall):
            self.tool_calls.append(event.call)
        elif isinstance(event, StreamUsage):
            self.usage = event
        elif isinstance(event, StreamDone):
            self.done = event
        elif isinstance(event, StreamNotice) and self.sink is not None:
            self.sink.emit(WarningEvent(event.code, event.text))

    async def consume(self, stream: AsyncIterator[ProviderEvent]) -> None:
        """Read ``stream`` to its end. Errors and cancellation propagate; parts stay here."""
        async for event in stream:
            self.feed(event)
