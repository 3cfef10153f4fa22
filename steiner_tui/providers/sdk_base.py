"""The one stream skeleton the three SDK-backed providers share.

``SdkProvider.stream`` does, for every SDK: get this loop's client (the SDK is imported and the
client built in a thread, never on the caller's loop), convert the request, make the SDK call,
iterate its typed events through a ``StreamReader``, check that the stream reached its terminal
event, and turn every failure into a ``ProviderError`` that says how far the call got and what
the user can do (``providers.errors``). A subclass supplies only what differs:

* ``SDK``: the module to import (``anthropic``, ``openai``);
* ``_make_client``: the SDK's async client (runs in a worker thread);
* ``_start``: the request's SDK parameters and a fresh reader for the SDK's typed events;
* ``_send``: the SDK call that opens the stream.

A model that rejects images is remembered for the provider's life (a session): from then on
``model_info(model).vision`` is False, so the runner strips images before sending instead of
being rejected on every turn.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

import msgspec

from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderError,
    ProviderEvent,
    StreamNotice,
)
from steiner_tui.providers.errors import (
    CallContext,
    dropped_error,
    malformed_event,
    map_error,
    with_remedies,
)
from steiner_tui.providers.retry_wait import retry_wait_hook, send_saying_waits
from steiner_tui.providers.streaming import LoopClient

if TYPE_CHECKING:
    from steiner_tui.providers.sse_watch import StreamWatch

__all__ = ["CONNECT_TIMEOUT", "EventStream", "SdkProvider", "StreamReader"]

EventT = TypeVar("EventT")
EventT_co = TypeVar("EventT_co", covariant=True)
EventT_contra = TypeVar("EventT_contra", contravariant=True)

CONNECT_TIMEOUT = 5.0
"""Seconds: the least time given to opening a connection, whatever the configured timeout."""

_MALFORMED = (AttributeError, KeyError, TypeError, ValueError)
"""Raised by a reader given an event whose shape is not the one the SDK's types declare."""


class _Closable(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_Closable)


class EventStream(Protocol[EventT_co]):
    """What the SDKs' ``AsyncStream`` offers: typed events and ``close``."""

    def __aiter__(self) -> AsyncIterator[EventT_co]: ...

    async def close(self) -> None: ...


class StreamReader(Protocol[EventT_contra]):
    """Turns one call's typed SDK events into our stream events."""

    terminal: str
    """The event that ends a complete stream (named in the error when it never came)."""
    done_ends: bool
    """A ``data: [DONE]`` line ends the stream as its terminal event does (Chat Completions:
    local servers send it without a ``finish_reason``)."""

    @property
    def complete(self) -> bool:
        """The terminal event arrived."""
        ...

    def read(self, event: EventT_contra) -> Iterable[ProviderEvent]:
        """Events for one SDK event; raises ``ProviderError`` for an error sent in the stream."""
        ...

    def finish(self) -> Iterable[ProviderEvent]:
        """After a complete stream: calls still open, usage when reported, then ``StreamDone``."""
        ...


async def _close(client: _Closable) -> None:
    await client.close()


class SdkProvider(ABC, Generic[ClientT, EventT]):
    """Base of the Anthropic and OpenAI providers: one stream skeleton over typed SDK events.

    Args:
        alias: provider alias from config.
        api_key: the key (read from the environment by the factory).
        base_url: the endpoint; ``DEFAULT_BASE_URL`` when None. Always passed explicitly, so the
            SDK never falls back to its own environment variables or profiles.
        timeout: seconds to wait for a response and the longest silence within a stream
            (opening the connection gets at least ``CONNECT_TIMEOUT``).
        max_retries: the SDK's own retries (connection errors, 408, 409, 429 and 5xx, honouring
            ``retry-after``).
        model_info: limits lookup with config overrides (default: the model registry).
        key_env: the environment variable the key came from (named in an auth error's remedy).
        self_hosted: a server someone runs (``factory.is_local_server``): a window too small is
            its setting, which an error's remedy says how to raise.
    """

    SDK: ClassVar[str]
    """The SDK module, imported in a thread on the first call."""
    DEFAULT_BASE_URL: ClassVar[str] = ""
    stateful = False

    def __init__(
        self,
        alias: str,
        api_key: str,
        base_url: str | None = None,
        *,
        timeout: float = 600.0,
        max_retries: int = 2,
        model_info: Callable[[str], ModelInfo] | None = None,
        key_env: str = "",
        self_hosted: bool = False,
    ) -> None:
        self.alias = alias
        self._api_key = api_key
        self._base_url = base_url or self.DEFAULT_BASE_URL
        self._timeout = timeout
        self._connect_timeout = max(timeout, CONNECT_TIMEOUT)
        self._max_retries = max_retries
        self._key_env = key_env
        self.self_hosted = self_hosted
        self._model_info = model_info or lookup_model
        self._clients: LoopClient[ClientT] = LoopClient(self._make_client, _close)
        self._rejects_images: set[str] = set()

    # -- what each provider supplies ------------------------------------------------------

    @abstractmethod
    def _make_client(self) -> ClientT:
        """The SDK's async client from ``_client_settings`` (runs in a worker thread, where the
        SDK may be imported)."""

    @abstractmethod
    def _start(self, request: ChatRequest) -> tuple[dict[str, Any], StreamReader[EventT]]:
        """The SDK call's parameters for ``request`` and a fresh reader for its events."""

    @abstractmethod
    async def _send(self, client: ClientT, params: dict[str, Any]) -> EventStream[EventT]:
        """Open the stream (returns once the response's headers arrived)."""

    # -- shared -----------------------------------------------------------------------------

    def _client_settings(self) -> dict[str, Any]:
        """The SDK client's keyword arguments (every setting explicit; nothing from env).

        Called where the client is made (a worker thread, with the SDK imported): the SDKs'
        HTTP library is imported here too.
        """
        import httpx2

        from steiner_tui.providers.sse_watch import watch_event_stream

        sdk = importlib.import_module(self.SDK)
        # Connecting gets at least CONNECT_TIMEOUT (as the SDKs' own default does): a short
        # timeout is meant for a silent server, not for a busy machine slow to open a socket.
        timeout = httpx2.Timeout(self._timeout, connect=self._connect_timeout)
        return {
            "api_key": self._api_key,
            "base_url": self._base_url,
            "timeout": timeout,
            "max_retries": self._max_retries,
            "http_client": sdk.DefaultAsyncHttpxClient(
                timeout=timeout,
                event_hooks={"response": [retry_wait_hook(self._max_retries), watch_event_stream]},
            ),
        }

    def model_info(self, model: str) -> ModelInfo:
        """Limits of ``model`` (the registry, with config overrides applied by the factory);
        ``vision`` is False once the model has rejected an image in this session."""
        info = self._model_info(model)
        return (
            msgspec.structs.replace(info, vision=False) if model in self._rejects_images else info
        )

    async def warm(self) -> None:
        """Import the SDK and build this loop's client in a thread, ahead of the first call."""
        await self._clients.get()

    async def aclose(self) -> None:
        """Close the HTTP client of the current loop."""
        await self._clients.aclose()

    def _context(self, request: ChatRequest) -> CallContext:
        return CallContext(
            label=f"{self.alias}/{request.model}",
            alias=self.alias,
            base_url=self._base_url,
            timeout=self._timeout,
            connect_timeout=self._connect_timeout,
            max_retries=self._max_retries,
            key_env=self._key_env,
            self_hosted=self.self_hosted,
            has_images=any(message.images for message in request.messages),
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        """Stream one call; raises ``ProviderError`` on failure, after yielding what arrived."""
        call = self._context(request)
        client = await self._clients.get()
        sdk = importlib.import_module(self.SDK)  # already imported by ``_make_client``
        params, reader = self._start(request)
        watch: StreamWatch | None = None
        said_bytes = False
        try:
            events: EventStream[EventT] | None = None
            async for sent in send_saying_waits(self._send(client, params), _close):
                if isinstance(sent, str):
                    yield StreamNotice(f"{call.label}: {sent}")  # which provider waits
                else:
                    events = sent
            assert events is not None
            call.phase = "stream"
            from steiner_tui.providers.sse_watch import watch_of  # imported with the client

            watch = watch_of(events)
            try:
                async for event in events:
                    call.events += 1
                    for out in _read(reader, event, call):
                        yield out
                    if watch is not None and watch.not_utf8 and not said_bytes:
                        said_bytes = True
                        yield StreamNotice(f"{call.label}: {watch.said()}", "reply_bytes_replaced")
            finally:
                await events.close()
        except Exception as exc:
            error = map_error(exc, call, sdk)
            if error is None:
                raise
            raise self._failed(error, call, request) from exc
        done = reader.done_ends and watch is not None and watch.done
        if not (reader.complete or done):
            raise self._failed(dropped_error(call, reader.terminal), call, request)
        for out in reader.finish():
            yield out

    def _failed(
        self, error: ProviderError, call: CallContext, request: ChatRequest
    ) -> ProviderError:
        if error.kind == "image_rejected":
            self._rejects_images.add(request.model)
        return with_remedies(error, call)


def _read(reader: StreamReader[EventT], event: EventT, call: CallContext) -> list[ProviderEvent]:
    try:
        return list(reader.read(event))
    except _MALFORMED as exc:
        raise malformed_event(call, event, exc) from exc
