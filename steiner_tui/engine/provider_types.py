"""The data that crosses the provider interface: a ``ChatRequest`` in, ``ProviderEvent``s out.

``steiner_tui.engine.provider`` re-exports every class here lazily (PEP 562): creating a frozen
dataclass costs about a millisecond, and none of these is needed before the first model call,
so they are created on first use. Import them from ``steiner_tui.engine.provider``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from steiner_tui.engine.frozen import FrozenDict

if TYPE_CHECKING:
    from steiner_tui.engine.messages import Message, ToolCall
    from steiner_tui.engine.tooldefs import ToolDefinition

__all__ = [
    "ChatRequest",
    "ProviderEvent",
    "StreamDone",
    "StreamReasoning",
    "StreamText",
    "StreamToolCall",
    "StreamUsage",
]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One model call, already assembled and projected (system-zone first, then user blocks,
    then the conversation). ``messages`` use provider roles (no ``summary``)."""

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    max_tokens: int = 4096
    prompt_cache_key: str = ""
    transport_session: str = ""
    backend_state: str | None = None
    """Stateful providers: the backend transcript id to continue (e.g. previous_response_id)."""
    cacheable_prefix_messages: int = 0
    """How many leading messages are byte-stable for the session (cache breakpoints go there)."""
    raw_prompt_tokens: int | None = None
    """The prepared request's raw estimate, reused instead of re-estimating."""
    retire_backend_state: bool = False
    """Set on main compaction summaries of stateful providers: the call retires the transcript."""
    compaction: bool = False
    extra_body: Mapping[str, Any] = field(default_factory=FrozenDict)
    """Fields merged into the request body as they are (the model's configured ``params`` and
    ``extra_params``, max-tokens keys removed); they win over the fields the provider sets."""


@dataclass(frozen=True, slots=True)
class ProviderEvent:
    kind: ClassVar[str] = "provider_event"


@dataclass(frozen=True, slots=True)
class StreamText(ProviderEvent):
    kind: ClassVar[str] = "text"
    text: str


@dataclass(frozen=True, slots=True)
class StreamReasoning(ProviderEvent):
    kind: ClassVar[str] = "reasoning"
    text: str


@dataclass(frozen=True, slots=True)
class StreamToolCall(ProviderEvent):
    """A complete tool call (providers assemble chunked arguments before yielding it)."""

    kind: ClassVar[str] = "tool_call"
    call: ToolCall


@dataclass(frozen=True, slots=True)
class StreamUsage(ProviderEvent):
    kind: ClassVar[str] = "usage"
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True, slots=True)
class StreamDone(ProviderEvent):
    """The stream ended normally."""

    kind: ClassVar[str] = "done"
    stop_reason: str = "stop"
    backend_state: str | None = None
    clear_backend_state: bool = False
