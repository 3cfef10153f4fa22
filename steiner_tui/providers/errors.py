"""One translation from SDK and transport failures to ``ProviderError``, and what the user can do.

The ``anthropic`` and ``openai`` SDKs share one exception shape (``APIStatusError`` with a
``status_code``, ``APITimeoutError`` under ``APIConnectionError``, ``APIError`` for errors sent
inside a stream), and both stream over ``httpx2``, whose transport errors can escape the SDK once
a stream has started. ``map_error`` takes the SDK module so this file never imports an SDK itself.

The SDK alone cannot say how far a call got, so the caller passes a ``CallContext``: the same
transport error is "could not connect" before the response's headers arrived and "cut
mid-reply" after them; a read timeout is "no response" before and "the stream stalled" after.

Kinds: 401/403 ``auth``; 429 ``rate_limit`` (``retry_after`` from ``retry-after-ms`` or
``retry-after``); 408 and timeouts ``timeout``; 5xx/529 ``server``; transport failures
``connection``; unparsable stream data ``protocol``; other 4xx ``bad_request`` (a 404 about the
model says the model does not exist; any other 404 names the URL and says to check the base
URL: the server serves no such path), refined to ``context_length`` from the API's message, or
to ``image_rejected`` when the request had images and the message is about one. Statuses the
SDK retries (408, 409, 429, 5xx) say how many retries were made and that they are used up. Every
message starts with the label (``alias/model``) once, then the HTTP status when there is one,
then the API's own words (a body that is not JSON: an HTML page's title, other text cut
short); ``remedies_for`` adds what the user can do about each kind.
"""

from __future__ import annotations

import email.utils
import html
import json
import os
import re
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any, Literal

import msgspec

from steiner_tui.engine.provider import READ_AT_START, ProviderError, Remedy

__all__ = [
    "CallContext",
    "classify_api_message",
    "dropped_error",
    "malformed_event",
    "map_error",
    "parse_retry_after",
    "retries_made",
    "remedies_for",
    "stream_error",
    "with_remedies",
]

Phase = Literal["connect", "stream"]

_CONTEXT_MARKERS = (
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "exceeds the available context size",
    "too many tokens",
)
_IMAGE_MARKERS = ("image",)
_LOADING = "the server is still loading the model"
_BODY_LIMIT = 300
"""Characters of an error body that is not JSON kept in the message."""
_VALUE_LIMIT = 60
"""Characters of a malformed event's value quoted in the message."""
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_RETRIED_STATUSES = frozenset({408, 409, 429})
_RETRY_COUNT_HEADER = "x-stainless-retry-count"
"""The SDKs number each attempt of a request in this header (0 for the first)."""

# Error ``type``/``code`` values sent inside a stream (no HTTP error status) -> equivalent status.
_STREAM_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "api_error": 500,
    "server_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
    "context_length_exceeded": 400,
    "invalid_prompt": 400,
    "invalid_image": 400,
}


class CallContext(msgspec.Struct):
    """Who is calling and how far the call got, for accurate messages and remedies."""

    label: str
    """``alias/model``: starts every message."""
    alias: str = ""
    base_url: str = ""
    timeout: float = 600.0
    """Seconds to wait for a response, and the longest silence within a stream."""
    connect_timeout: float = 600.0
    max_retries: int = 0
    key_env: str = ""
    """The environment variable the key came from (empty: a local server without a key)."""
    self_hosted: bool = False
    """A server someone runs (llama.cpp, Ollama...), not a hosted API."""
    has_images: bool = False
    """The request carried images (a 400 about an image is then ``image_rejected``)."""
    phase: Phase = "connect"
    """``connect`` until the response's headers arrived, ``stream`` after."""
    events: int = 0
    """Stream events received so far."""


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        return max(0.0, float(email.utils.mktime_tz(parsed)) - time.time())


def _api_message(body: object, fallback: str) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error")
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(body.get("message"), str):
            return str(body["message"])
    if isinstance(body, str) and body.strip():
        return _plain_body(body.strip())
    return fallback


def _plain_body(text: str) -> str:
    """A body that is not the API's JSON: an HTML page by its title (a proxy's or gateway's
    error page, nginx's or Cloudflare's, is a screenful), any other text cut at
    ``_BODY_LIMIT``."""
    title = _TITLE.search(text) if text.startswith("<") else None
    if title is not None and title.group(1).strip():
        words = " ".join(html.unescape(title.group(1)).split())
        return f"{words} (an HTML page: a proxy or gateway answered, not the API)"
    return text if len(text) <= _BODY_LIMIT else text[:_BODY_LIMIT].rstrip() + "…"


def _error_type(body: object) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error")
        source = inner if isinstance(inner, Mapping) else body
        for key in ("code", "type"):
            value = source.get(key)
            if isinstance(value, str) and value in _STREAM_ERROR_STATUS:
                return value
    return ""


def classify_api_message(status: int, message: str, *, has_images: bool = True) -> tuple[str, str]:
    """The kind and a short description for an HTTP status and the API's error message.

    ``has_images``: the request carried images (without any, a 400 mentioning an image is a
    plain ``bad_request``).
    """
    lowered = message.lower()
    if status in (401, 403):
        return "auth", "authentication failed"
    if status == 429:
        return "rate_limit", "rate limited"
    if status == 408:
        return "timeout", "the server timed out the request"
    if status == 503 and "loading" in lowered:  # llama.cpp until its model is loaded
        return "server", _LOADING
    if status >= 500:
        return "server", "server error"
    if any(marker in lowered for marker in _CONTEXT_MARKERS):
        return "context_length", "the request is larger than the model's context window"
    if status == 404 and "model" in lowered:
        return "bad_request", "the model does not exist here, or this key cannot use it"
    if has_images and any(marker in lowered for marker in _IMAGE_MARKERS):
        return "image_rejected", "an image in the request was rejected"
    return "bad_request", "the request was rejected"


def stream_error(call: CallContext, body: object) -> ProviderError:
    """A ``ProviderError`` for an error the API reported inside a stream (no HTTP status)."""
    status = _STREAM_ERROR_STATUS.get(_error_type(body), 500)
    message = _api_message(body, "the API reported an error in the stream")
    kind, what = classify_api_message(status, message, has_images=call.has_images)
    return ProviderError(kind, f"{call.label}: {what} (reported mid-stream): {message}")


def dropped_error(call: CallContext, terminal: str) -> ProviderError:
    """The stream ended cleanly at the transport level, but before its ``terminal`` event."""
    return ProviderError(
        "connection",
        f"{call.label}: the connection was cut mid-reply: the stream ended after "
        f"{_events(call.events)} without {terminal}",
    )


def malformed_event(call: CallContext, event: object, exc: Exception) -> ProviderError:
    """A stream event the reader could not use (``exc``), said by what is wrong in it.

    The SDKs build events without checking them, so a field sent as ``null`` or left out
    surfaces as Python's words ("'NoneType' object has no attribute 'content'"); checking the
    event against its own type (pydantic, as the SDK declares it) names the field instead.
    """
    kind = getattr(event, "type", None) or getattr(event, "object", None) or "event"
    what = _what_is_wrong(event) or f"it could not be read ({exc})"
    return ProviderError(
        "protocol",
        f"{call.label}: the server sent a malformed {kind} (stream event {call.events}): {what}",
    )


_EXPECTED = {
    "model_type": "an object",
    "dict_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "a list",
    "string_type": "a string",
    "int_type": "a number",
    "int_parsing": "a number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
}
"""What belongs where pydantic found a value of another type (by its error type)."""


def _what_is_wrong(event: Any) -> str:
    """``choices[0].delta is null where an object belongs``; "" when the event checks out (or
    is not an SDK model). Literal values the SDK does not know (a finish_reason of its own)
    are passed over: they never stop a reader."""
    try:
        type(event).model_validate(event.to_dict(warnings=False))
    except AttributeError:
        return ""
    except ValueError as invalid:  # pydantic's ValidationError
        errors: list[dict[str, Any]] = getattr(invalid, "errors", list)()
        for error in errors:
            if error["type"] in ("literal_error", "enum"):
                continue
            path = "".join(
                f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"]
            ).lstrip(".")
            value = error.get("input")
            if error["type"] == "missing":
                return f"{path} is missing"
            expected = _EXPECTED.get(error["type"])
            if expected is None:
                return f"{path}: {error['msg']}"
            shown = json.dumps(value, default=str)
            shown = shown if len(shown) <= _VALUE_LIMIT else shown[:_VALUE_LIMIT] + "…"
            return f"{path} is {shown} where {expected} belongs"
    return ""


def _events(count: int) -> str:
    return f"{count} event" if count == 1 else f"{count} events"


def retries_made(headers: Mapping[str, str] | None) -> int | None:
    """How many retries the SDK made before the attempt whose request had ``headers``."""
    if headers is None:
        return None
    try:
        return int(headers.get(_RETRY_COUNT_HEADER, ""))
    except ValueError:
        return None


def _retry_note(retries: int | None, max_retries: int) -> str:
    """``after 2 retries, retries exhausted``; ``not retried: max_retries is 0``."""
    if retries is None:
        retries = max_retries
    if retries > 0:
        plural = "retry" if retries == 1 else "retries"
        return f"after {retries} {plural}, retries exhausted"
    if max_retries == 0:
        return "not retried: max_retries is 0"
    return "not retried: the server said not to"


def _status_error(call: CallContext, exc: Any) -> ProviderError:
    status = int(exc.status_code)
    body = exc.body
    if status < 400:
        return stream_error(call, body)
    message = _api_message(body, str(getattr(exc, "message", "")) or f"HTTP {status}")
    kind, what = classify_api_message(status, message, has_images=call.has_images)
    response = exc.response
    where = f"HTTP {status}"
    if status in _RETRIED_STATUSES or status >= 500:
        where += ", " + _retry_note(retries_made(response.request.headers), call.max_retries)
    retry_after = parse_retry_after(response.headers) if kind == "rate_limit" else None
    if status == 404 and kind == "bad_request" and "model" not in message.lower():
        return _no_such_path(call, str(response.request.url), message)
    text = f"{call.label}: {what} ({where}): {message}"
    if retry_after is not None:
        text += f"; the server asks to wait {retry_after:g}s before the next request"
    remedies: tuple[Remedy, ...] = ()
    if what == _LOADING:
        wait = Remedy("wait", "wait until the server has loaded the model, then retry")
        remedies = (wait, *remedies_for(kind, call)[1:])
    return ProviderError(kind, text, status=status, retry_after=retry_after, remedies=remedies)


def _no_such_path(call: CallContext, url: str, message: str) -> ProviderError:
    """A 404 that names no model: the server serves no such path, so the base URL is wrong."""
    hint = (
        f"check base_url under [providers.{call.alias}] (now {call.base_url}): "
        "OpenAI-compatible servers (llama.cpp, Ollama, vLLM, LM Studio) serve their API under "
        f"/v1, e.g. http://127.0.0.1:8080/v1; {READ_AT_START}"
    )
    return ProviderError(
        "bad_request",
        f"{call.label}: nothing answers at {url} (HTTP 404): {message}",
        status=404,
        remedies=(Remedy("fix_config", hint),),
    )


_PLAIN_CAUSES = {
    "peer closed connection without sending complete message body": (
        "the server closed it before the reply was complete"
    ),
}
"""The HTTP library's words for a failure (by how they start) -> the same in plain words."""


def _cause(exc: BaseException) -> str:
    """What failed, in words: the system's for an OS error down the chain of causes, where
    httpx says "All connection attempts failed" over a refusal or nothing over a reset; plain
    words for a body cut short (h11's "peer closed connection without sending complete
    message body (incomplete chunked read)"); else the first words in the chain."""
    chain: list[BaseException] = []
    cause: BaseException | None = exc.__cause__ or exc
    while cause is not None and len(chain) < 8:  # a chain of causes may loop
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    for cause in reversed(chain):
        if isinstance(cause, OSError) and cause.errno and cause.errno > 0:
            return os.strerror(cause.errno)  # a resolver's errors are negative: its own words
    said = next((str(cause) for cause in chain if str(cause)), type(chain[0]).__name__)
    return next((plain for start, plain in _PLAIN_CAUSES.items() if said.startswith(start)), said)


def _timeout_error(call: CallContext, exc: BaseException, httpx: ModuleType) -> ProviderError:
    if call.phase == "stream":
        return ProviderError(
            "timeout",
            f"{call.label}: the stream stalled: no data for {call.timeout:g}s after "
            f"{_events(call.events)} (the configured timeout)",
        )
    request = getattr(exc, "request", None)
    retries = _retry_note(retries_made(getattr(request, "headers", None)), call.max_retries)
    if isinstance(exc.__cause__ or exc, httpx.ConnectTimeout):
        return ProviderError(
            "timeout",
            f"{call.label}: could not connect within {call.connect_timeout:g}s ({retries})",
        )
    return ProviderError(
        "timeout",
        f"{call.label}: no response from the API within {call.timeout:g}s, the configured "
        f"timeout ({retries})",
    )


def _connection_error(call: CallContext, exc: BaseException, httpx: ModuleType) -> ProviderError:
    if call.phase == "stream":
        return ProviderError(
            "connection",
            f"{call.label}: the connection was cut mid-reply after {_events(call.events)}: "
            f"{_cause(exc)}",
        )
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None) or call.base_url
    retries = _retry_note(retries_made(getattr(request, "headers", None)), call.max_retries)
    connected = not isinstance(exc.__cause__ or exc, httpx.ConnectError)
    failed = (
        "the connection closed without a response from" if connected else "could not connect to"
    )
    return ProviderError(
        "connection", f"{call.label}: {failed} the API at {url} ({retries}): {_cause(exc)}"
    )


def map_error(exc: BaseException, call: CallContext, sdk: ModuleType) -> ProviderError | None:
    """Translate ``exc`` raised while calling or streaming from ``sdk``.

    Args:
        exc: the exception caught around the SDK call and the stream iteration.
        call: who failed and how far the call got.
        sdk: the imported ``anthropic`` or ``openai`` module (for its exception classes).

    Returns:
        The ``ProviderError`` to raise (without remedies: ``with_remedies`` adds them), or
        ``None`` when ``exc`` is not a provider failure (a programming error) and should
        propagate unchanged.
    """
    # The SDKs' HTTP library, already imported with them (never at start-up).
    import httpx2

    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException):
        return _timeout_error(call, exc, httpx2)
    if isinstance(exc, sdk.APIResponseValidationError):
        return ProviderError("protocol", f"{call.label}: malformed response from the API: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        return _status_error(call, exc)
    if isinstance(exc, sdk.APIConnectionError | httpx2.TransportError):
        return _connection_error(call, exc, httpx2)
    if isinstance(exc, sdk.APIError):
        return stream_error(call, exc.body if exc.body is not None else exc.message)
    if isinstance(exc, json.JSONDecodeError):  # an event's data is one line: no line number
        at = "" if exc.msg.endswith(" at") else " at"  # "Unterminated string starting at"
        return ProviderError(
            "protocol",
            f"{call.label}: the server sent stream data that is not JSON after "
            f"{_events(call.events)}: {exc.msg}{at} column {exc.colno}",
        )
    if isinstance(exc, httpx2.DecodingError | UnicodeDecodeError):
        return ProviderError(
            "protocol",
            f"{call.label}: the server sent stream data that cannot be decoded after "
            f"{_events(call.events)}: {exc}",
        )
    return None


def remedies_for(
    kind: str, call: CallContext, retry_after: float | None = None
) -> tuple[Remedy, ...]:
    """What the user can do about an error of ``kind``, most useful first."""
    switch = Remedy("switch_model", "switch to another model (/model)")
    retry = Remedy("retry", "send the message again")
    if kind == "auth":
        if call.key_env:
            key = Remedy("set_key", f"set {call.key_env} to a valid key, then retry")
        else:
            key = Remedy(
                "set_key", f"give [providers.{call.alias}] an api_key_env the server accepts"
            )
        return (key, switch)
    if kind == "rate_limit":
        wait = f"wait {retry_after:g}s, then retry" if retry_after else "wait a moment, then retry"
        return (Remedy("wait", wait), switch)
    if kind == "server":
        return (Remedy("retry", "retry: server errors are often brief"), switch)
    if kind == "connection" and call.phase == "connect":
        check = Remedy("check_server", f"check that {call.base_url} is up and reachable")
        if not call.self_hosted:
            return (check, switch)
        elsewhere = f"or, if the server is elsewhere, correct [providers.{call.alias}] base_url"
        return (check, Remedy("fix_config", f"{elsewhere}: {READ_AT_START}"), switch)
    if kind == "connection" and not call.events:
        return (Remedy("retry", "retry: the connection dropped before the reply began"), switch)
    if kind == "connection":
        return (Remedy("retry", "retry: the reply was cut off, what streamed is kept"), switch)
    if kind == "timeout":
        raise_it = f"raise [providers.{call.alias}] timeout (now {call.timeout:g}s)"
        return (retry, Remedy("raise_timeout", raise_it))
    if kind == "protocol":
        return (retry, switch)
    if kind == "context_length":
        larger = "switch to a model with a larger context window (/model)"
        if call.self_hosted:
            # The window is the server's setting, not the model's: its owner can raise it.
            larger = (
                "restart the server with a larger context (llama.cpp --ctx-size, Ollama "
                "num_ctx, vLLM --max-model-len), or " + larger
            )
        return (
            Remedy("compact", "compact the conversation (/compact)"),
            Remedy("switch_model", larger),
        )
    if kind == "image_rejected":
        return (
            Remedy("retry", "retry: images are left out for this model from now on"),
            Remedy("switch_model", "switch to a model that accepts images (/model)"),
        )
    if kind == "bad_request":
        return (
            Remedy("switch_model", "check the model id and its [models] settings, or switch model"),
        )
    return ()


def with_remedies(error: ProviderError, call: CallContext) -> ProviderError:
    """``error`` carrying ``remedies_for`` its kind (unchanged when it already has some)."""
    if error.remedies:
        return error
    return ProviderError(
        error.kind,
        error.message,
        status=error.status,
        retry_after=error.retry_after,
        backend_state_retired=error.backend_state_retired,
        remedies=remedies_for(error.kind, call, error.retry_after),
    )
