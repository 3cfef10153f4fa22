"""The small interface every model provider implements, and the data that crosses it.

The engine and the runner build a ``ChatRequest`` and consume ``ProviderEvent``s; concrete
providers (Anthropic, OpenAI chat, OpenAI Responses, the offline model) live in
``steiner_tui.providers`` and are handed in. Nothing here performs I/O.

Errors: a provider raises ``ProviderError`` with a ``kind`` from ``ERROR_KINDS``. The runner turns
it into an ``ErrorEvent`` and keeps the conversation intact. ``BackendStateRetired`` marks an
error raised after a stateful provider retired its backend transcript (the compaction design's
``provider.BackendStateRetired``).

``ChatRequest`` and the stream events are defined in ``provider_types`` and re-exported lazily
(PEP 562 ``__getattr__``): each dataclass costs about a millisecond to create, and the app's
start-up needs none of them, only ``ModelInfo`` and the protocol.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from steiner_tui.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from steiner_tui.engine.provider_types import (
        ChatRequest,
        ProviderEvent,
        StreamDone,
        StreamReasoning,
        StreamText,
        StreamToolCall,
        StreamUsage,
    )

__all__ = [
    "ERROR_KINDS",
    "ChatRequest",
    "ModelInfo",
    "Provider",
    "ProviderError",
    "ProviderEvent",
    "StreamDone",
    "StreamReasoning",
    "StreamText",
    "StreamToolCall",
    "StreamUsage",
    "is_backend_state_retired",
]

ERROR_KINDS = (
    "auth",
    "rate_limit",
    "server",
    "connection",
    "timeout",
    "protocol",
    "bad_request",
    "context_length",
    "image_rejected",
    "cancelled",
)


class ProviderError(Exception):
    """A model call failed. ``kind`` is one of ``ERROR_KINDS``."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        backend_state_retired: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.backend_state_retired = backend_state_retired

    def __str__(self) -> str:
        return self.message


def is_backend_state_retired(error: BaseException) -> bool:
    """True when ``error`` (or one in its cause chain) is marked as following a retirement."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if getattr(current, "backend_state_retired", False):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """Limits and capabilities of one backend model."""

    context_window: int = 32768
    max_output: int = 4096
    vision: bool = False
    tokenizer: str = "cl100k_base"


class Provider(Protocol):
    """A model backend. ``stream`` yields events and raises ``ProviderError`` on failure."""

    alias: str
    """Provider alias from config (``offline``, ``anthropic``, ``openai``, ...)."""
    stateful: bool
    """True when the backend owns the transcript (``backend_state`` continues it)."""

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]: ...

    def model_info(self, model: str) -> ModelInfo: ...


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "steiner_tui.engine.provider_types": (
                "ChatRequest",
                "ProviderEvent",
                "StreamDone",
                "StreamReasoning",
                "StreamText",
                "StreamToolCall",
                "StreamUsage",
            ),
        },
    )
