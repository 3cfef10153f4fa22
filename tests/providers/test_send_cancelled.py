"""A stream opened just as its turn is cancelled is closed, not left holding its connection.

``send_saying_waits`` runs a call's send in a task. When the send finished in the same loop
step as the turn's cancel arrived, the opened stream (an HTTP response on a pooled connection)
was dropped unclosed, and its socket transport was collected later, in whatever test was
running then, as an "unclosed transport" ResourceWarning.
"""

from __future__ import annotations

import asyncio

import pytest

from steiner_tui.providers.retry_wait import send_saying_waits


class Opened:
    """What a send returns: a stream to close."""

    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


async def test_a_stream_opened_as_the_turn_is_cancelled_is_closed() -> None:
    started, ready = asyncio.Event(), asyncio.Event()
    opened = Opened()

    async def send() -> Opened:
        started.set()
        await ready.wait()
        return opened

    async def turn() -> None:
        async for _ in send_saying_waits(send(), Opened.close):
            pass

    task = asyncio.ensure_future(turn())
    await started.wait()  # the turn waits on the send
    ready.set()  # the send finishes first in the next loop step, then the cancel arrives
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert opened.closed


async def test_a_stream_handed_over_is_left_to_the_caller() -> None:
    opened = Opened()

    async def send() -> Opened:
        return opened

    taken = [sent async for sent in send_saying_waits(send(), Opened.close)]
    assert taken == [opened]
    assert not opened.closed
