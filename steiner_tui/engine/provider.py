"""The small interface every model provider implements, and the data that crosses it.

The engine and the runner build a ``ChatRequest`` and consume ``ProviderEvent``s; concrete
providers (Anthropic, OpenAI chat, OpenAI Responses, the offline model) live in
``steiner_tui.providers`` and are handed in. Nothing here performs I/O.

Errors: a provider raises ``ProviderError`` with a ``kind`` from ``ERROR_KINDS`` and the
``Remedy``s the user has (retry, wait, set a key, compact, switch model...). The runner turns it
into an ``ErrorEvent`` carrying both and keeps the conversation intact. A stateful provider that
fails a call after retiring its backend transcript says so in the error's
``backend_state_retired`` field (``is_backend_state_retired`` reads it along the cause chain).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol

import msgspec

from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.errors import SteinerError

__all__ = [
    "ERROR_KINDS",
    "LARGEST_WINDOW",
    "ChatRequest",
    "ModelInfo",
    "Provider",
    "ProviderError",
    "ProviderEvent",
    "READ_AT_START",
    "Remedy",
    "RemedyAction",
    "StreamDone",
    "StreamNotice",
    "StreamReasoning",
    "StreamText",
    "StreamToolCall",
    "StreamToolInput",
    "StreamUsage",
    "is_backend_state_retired",
    "usage_problem",
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


RemedyAction = Literal[
    "retry",
    "wait",
    "set_key",
    "compact",
    "switch_model",
    "check_server",
    "raise_timeout",
    "fix_config",
]
"""What the user can do about a failed call: ``retry`` the turn, ``wait`` before retrying,
``set_key`` (a valid API key), ``compact`` the conversation, ``switch_model``, ``check_server``
(is it running), ``raise_timeout`` (the provider's ``timeout`` setting) or ``fix_config`` (a
setting such as ``base_url``: the configuration is read at start, so resending does not help)."""


READ_AT_START = (
    "the configuration is read at start (start again with -c to go on with this session)"
)
"""A ``fix_config`` remedy's end: why resending does not help once a setting is corrected,
and what does."""


class Remedy(msgspec.Struct, frozen=True):
    """Something the user can do about a failed call, as data for the UI to offer."""

    action: RemedyAction
    hint: str
    """One line for people, e.g. ``set ANTHROPIC_API_KEY to a valid key, then retry``."""


class ProviderError(SteinerError):
    """A model call failed. ``kind`` is one of ``ERROR_KINDS``.

    ``remedies`` are what the user can do about it, most useful first. ``backend_state_retired``
    is set by a stateful provider whose failed call had retired the backend transcript (a main
    compaction summary): the caller must not continue it.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        backend_state_retired: bool = False,
        remedies: tuple[Remedy, ...] = (),
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.backend_state_retired = backend_state_retired
        self.remedies = remedies

    def __str__(self) -> str:
        return self.message

    def after_retirement(self) -> ProviderError:
        """The same error, raised by a call that retired the backend transcript."""
        return ProviderError(
            self.kind,
            self.message,
            status=self.status,
            retry_after=self.retry_after,
            backend_state_retired=True,
            remedies=self.remedies,
        )


def is_backend_state_retired(error: BaseException) -> bool:
    """True when ``error``, or a ``ProviderError`` in its cause chain, reports a retirement."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ProviderError) and current.backend_state_retired:
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


class ModelInfo(msgspec.Struct, frozen=True):
    """Limits and capabilities of one backend model."""

    context_window: int = 32768
    max_output: int = 4096
    vision: bool = False
    tokenizer: str = "cl100k_base"


class ChatRequest(msgspec.Struct, frozen=True):
    """One model call, already assembled and projected (system-zone first, then user blocks,
    then the conversation). ``messages`` use provider roles (no ``summary``)."""

    model: str
    messages: Sequence[Message]
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
    extra_body: Mapping[str, Any] = msgspec.field(default_factory=FrozenDict)
    """Fields merged into the request body as they are (the model's configured ``params`` and
    ``extra_params``, max-tokens keys removed); they win over the fields the provider sets."""


class ProviderEvent(msgspec.Struct, frozen=True):
    """Base of what a provider's stream yields."""

    kind: ClassVar[str] = "provider_event"


class StreamText(ProviderEvent, frozen=True):
    """A chunk of reply text."""

    kind: ClassVar[str] = "text"
    text: str


class StreamReasoning(ProviderEvent, frozen=True):
    """A chunk of reasoning text."""

    kind: ClassVar[str] = "reasoning"
    text: str


class StreamToolCall(ProviderEvent, frozen=True):
    """A complete tool call (providers assemble chunked arguments before yielding it)."""

    kind: ClassVar[str] = "tool_call"
    call: ToolCall


class StreamToolInput(ProviderEvent, frozen=True):
    """A fragment of a tool call's arguments arrived (the call itself comes whole, as
    ``StreamToolCall``): the call's name so far and the characters of its arguments so far,
    so that a long call being written (a whole file) shows as progress."""

    kind: ClassVar[str] = "tool_input"
    name: str
    chars: int


class StreamUsage(ProviderEvent, frozen=True):
    """The call's token usage as the provider reports it."""

    kind: ClassVar[str] = "usage"
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cache_miss_reason: str = ""
    """The provider's own word on a cache miss (Anthropic's ``cache_miss_reason``, OpenAI's
    ``prompt_cache_diagnostics``), when it gives one."""


LARGEST_WINDOW = 10_000_000
"""No model's window holds more tokens (Llama 4 Scout's is 10M): a reported figure above it is
not a count, and taking it would make every later request look too big for the window."""


def usage_problem(usage: StreamUsage) -> str:
    """Why ``usage`` cannot be what a request used (``""`` when it can): a negative figure, or
    one larger than any model's window."""
    figures = {
        "input tokens": usage.prompt_tokens,
        "output tokens": usage.completion_tokens,
        "cache read tokens": usage.cache_read_tokens,
        "cache write tokens": usage.cache_write_tokens,
    }
    for name, value in figures.items():
        if value < 0:
            return f"{value:,} {name} (negative)"
        if value > LARGEST_WINDOW:
            return f"{value:,} {name} (more than any model's window, {LARGEST_WINDOW:,})"
    return ""


class StreamNotice(ProviderEvent, frozen=True):
    """Something the person should know about the call: a server's retry delay
    (``provider_wait``), bytes of the reply that were not UTF-8 (``reply_bytes_replaced``)."""

    kind: ClassVar[str] = "notice"
    text: str
    code: str = "provider_wait"
    """The warning's code (``WarningEvent.code``)."""


class StreamDone(ProviderEvent, frozen=True):
    """The stream ended normally."""

    kind: ClassVar[str] = "done"
    stop_reason: str = "stop"
    backend_state: str | None = None
    clear_backend_state: bool = False


class Provider(Protocol):
    """A model backend. ``stream`` yields events and raises ``ProviderError`` on failure."""

    alias: str
    """Provider alias from config (``offline``, ``anthropic``, ``openai``, ...)."""
    stateful: bool
    """True when the backend owns the transcript (``backend_state`` continues it)."""

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]: ...

    def model_info(self, model: str) -> ModelInfo: ...
