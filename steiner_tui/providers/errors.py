"""One translation from SDK and transport failures to ``ProviderError``.

The ``anthropic`` and ``openai`` SDKs share one exception shape (``APIStatusError`` with a
``status_code``, ``APITimeoutError`` under ``APIConnectionError``, ``APIError`` for errors sent
inside a stream), and both stream over ``httpx2``, whose transport errors escape the SDK once a
stream has started. ``map_error`` takes the SDK module so this file never imports an SDK itself.

Kinds: 401/403 ``auth``; 429 ``rate_limit`` (``retry_after`` from ``retry-after-ms`` or
``retry-after``); 408 and timeouts ``timeout``; 5xx/529 ``server``; transport failures, including a
connection dropped mid-stream, ``connection``; unparsable stream data ``protocol``; other 4xx
``bad_request``, refined to ``context_length`` or ``image_rejected`` from the API's message.
Every message names the provider, the HTTP status when there is one, and the API's own words.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from steiner_tui.engine.provider import ProviderError

__all__ = ["classify_api_message", "map_error", "parse_retry_after", "stream_error"]

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
        return body.strip()
    return fallback


def _error_type(body: object) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error")
        source = inner if isinstance(inner, Mapping) else body
        for key in ("code", "type"):
            value = source.get(key)
            if isinstance(value, str) and value in _STREAM_ERROR_STATUS:
                return value
    return ""


def classify_api_message(status: int, message: str) -> tuple[str, str]:
    """The kind and a short description for an HTTP status and the API's error message."""
    lowered = message.lower()
    if status in (401, 403):
        return "auth", "authentication failed"
    if status == 429:
        return "rate_limit", "rate limited"
    if status == 408:
        return "timeout", "the server timed out the request"
    if status >= 500:
        return "server", "server error"
    if any(marker in lowered for marker in _CONTEXT_MARKERS):
        return "context_length", "the request is larger than the model's context window"
    if any(marker in lowered for marker in _IMAGE_MARKERS):
        return "image_rejected", "an image in the request was rejected"
    return "bad_request", "the request was rejected"


def stream_error(label: str, body: object, *, default_status: int = 500) -> ProviderError:
    """A ``ProviderError`` for an error the API reported inside a stream (no HTTP status)."""
    status = _STREAM_ERROR_STATUS.get(_error_type(body), default_status)
    message = _api_message(body, "the API reported an error in the stream")
    kind, what = classify_api_message(status, message)
    return ProviderError(kind, f"{label}: {what} (reported mid-stream): {message}")


def _status_error(label: str, exc: Any) -> ProviderError:
    status = int(exc.status_code)
    body = exc.body
    if status < 400:
        return stream_error(label, body)
    message = _api_message(body, str(getattr(exc, "message", "")) or f"HTTP {status}")
    kind, what = classify_api_message(status, message)
    retry_after = None
    text = f"{label}: {what} (HTTP {status}): {message}"
    if kind == "rate_limit":
        retry_after = parse_retry_after(exc.response.headers)
        if retry_after is not None:
            text += f"; retry after {retry_after:g}s"
    return ProviderError(kind, text, status=status, retry_after=retry_after)


def map_error(exc: BaseException, *, label: str, sdk: ModuleType) -> ProviderError | None:
    """Translate ``exc`` raised while calling or streaming from ``sdk``.

    Args:
        exc: the exception caught around the SDK call and the stream iteration.
        label: who failed, e.g. ``anthropic/claude-sonnet-4-5``; starts every message.
        sdk: the imported ``anthropic`` or ``openai`` module (for its exception classes).

    Returns:
        The ``ProviderError`` to raise, or ``None`` when ``exc`` is not a provider failure
        (a programming error) and should propagate unchanged.
    """
    # The SDKs' HTTP library, imported with them: on the first call, never at start-up.
    import httpx2

    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException):
        return ProviderError(
            "timeout", f"{label}: timed out waiting for the API (the configured timeout passed)"
        )
    if isinstance(exc, sdk.APIResponseValidationError):
        return ProviderError("protocol", f"{label}: malformed response from the API: {exc}")
    if isinstance(exc, sdk.APIStatusError):
        return _status_error(label, exc)
    if isinstance(exc, sdk.APIConnectionError):
        cause = exc.__cause__ or exc
        url = getattr(getattr(exc, "request", None), "url", None)
        at = f" at {url}" if url is not None else ""
        return ProviderError("connection", f"{label}: could not connect to the API{at}: {cause}")
    if isinstance(exc, httpx2.TransportError):
        return ProviderError(
            "connection",
            f"{label}: the connection was lost mid-stream: {exc or type(exc).__name__}",
        )
    if isinstance(exc, sdk.APIError):
        return stream_error(label, exc.body if exc.body is not None else exc.message)
    if isinstance(exc, json.JSONDecodeError | httpx2.DecodingError | UnicodeDecodeError):
        return ProviderError("protocol", f"{label}: malformed data in the event stream: {exc}")
    return None
