"""A server's retry delay: capped, said, and ended by a cancel.

The SDKs retry a 429 or a 5xx themselves and wait what the server's ``Retry-After`` asks: the
Anthropic SDK waited 3600 s when told to, with nothing on screen. An HTTP response hook on the
SDK's client caps the delay at ``RETRY_WAIT_CAP`` by rewriting the header before the SDK reads it,
and, when the SDK will retry, puts a sentence saying so on the current call's queue;
``send_saying_waits`` runs the call's send in a task and yields those sentences while it waits
(the provider's stream turns them into ``StreamNotice``). The SDK sleeps on the event loop, so a
cancelled turn (Esc, Ctrl+C) ends the wait at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextvars import ContextVar
from typing import Any, TypeVar

from steiner_tui.providers.errors import parse_retry_after, retries_made

__all__ = ["RETRY_WAIT_CAP", "retry_wait_hook", "send_saying_waits"]

RETRY_WAIT_CAP = 60.0
"""Seconds: the longest wait before a retry, whatever a server asks."""
_RETRIED = frozenset({408, 409, 429})
"""Statuses the SDKs retry (with every 5xx), unless the server says ``x-should-retry: false``."""

T = TypeVar("T")
_WAITS: ContextVar[asyncio.Queue[str] | None] = ContextVar("steiner_retry_waits", default=None)


def retry_wait_hook(max_retries: int) -> Callable[[Any], Awaitable[None]]:
    """The response hook for an SDK client that retries at most ``max_retries`` times."""

    async def cap(response: Any) -> None:
        headers = response.headers
        asked = parse_retry_after(headers)
        if asked is None or asked <= 0 or response.status_code < 400:
            return
        wait = min(asked, RETRY_WAIT_CAP)
        if wait < asked:
            headers.pop("retry-after-ms", None)
            headers["retry-after"] = f"{wait:g}"
        made = retries_made(response.request.headers) or 0
        should = headers.get("x-should-retry", "")
        retried = should == "true" or (
            should != "false" and (response.status_code in _RETRIED or response.status_code >= 500)
        )
        queue = _WAITS.get()
        if queue is None or made >= max_retries or not retried or (wait < 1 and wait == asked):
            return
        capped = f" (at most {RETRY_WAIT_CAP:g} s)" if wait < asked else ""
        queue.put_nowait(
            f"HTTP {response.status_code}: the server asks to wait {asked:g} s before retry "
            f"{made + 1} of {max_retries}; waiting {wait:g} s{capped}. Esc (Ctrl+C in a command) "
            "stops it."
        )

    return cap


async def send_saying_waits(
    send: Coroutine[Any, Any, T], close: Callable[[T], Awaitable[None]]
) -> AsyncIterator[str | T]:
    """Run ``send``; yield each wait said meanwhile, then its result (a cancel ends it).

    A result made but never handed over (the caller was cancelled as the send finished) is
    closed with ``close``: it holds an open connection.
    """
    waits: asyncio.Queue[str] = asyncio.Queue()
    handed = False
    token = _WAITS.set(waits)
    try:
        sending = asyncio.ensure_future(send)  # the task copies the context: the hook sees it
    finally:
        _WAITS.reset(token)
    try:
        while not sending.done():
            said = asyncio.ensure_future(waits.get())
            try:
                await asyncio.wait({sending, said}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not said.done():
                    said.cancel()
            if said.done() and not said.cancelled():
                yield said.result()
        while not waits.empty():
            yield waits.get_nowait()
        handed = True
        yield sending.result()
    finally:
        if not sending.done():
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sending
        if not handed and not sending.cancelled() and sending.exception() is None:
            await close(sending.result())
