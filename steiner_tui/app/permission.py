"""Permission prompts: the session's permission callback, answered inline in the conversation.

``PermissionBroker`` is the ``PermissionCallback`` handed to the ``PermissionPolicy``. When a
tool asks, it posts ``Asked`` (with a ``PermissionEntry``) to the main screen and awaits a
future; the inline prompt's a/A/r/R keys call the entry's ``answer``, which resolves that
future on the loop that awaits it (thread-safe, so it holds whether the runner runs on the UI
loop or elsewhere). A cancelled run cancels the await; a late answer is then ignored.
``ScreenBroker`` is that asking, shared with the compaction broker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from steiner_tui.app.messages import Asked
from steiner_tui.app.transcript import PermissionEntry
from steiner_tui.tools.base import PermissionDecision, PermissionRequest

__all__ = ["PermissionBroker", "ScreenBroker"]

T = TypeVar("T")


def _resolve(future: asyncio.Future[T], value: T) -> None:
    if not future.done():
        future.set_result(value)


class ScreenBroker:
    """Asks the attached screen (with none attached, a subclass answers as a headless run)."""

    def __init__(self) -> None:
        self._target: MessagePump | None = None

    def attach(self, target: MessagePump) -> None:
        """Ask ``target`` from now on."""
        self._target = target

    def detach(self) -> None:
        """Stop asking (the headless answer from now on)."""
        self._target = None

    async def _ask(self, target: MessagePump, make: Callable[[Callable[[T], None]], Message]) -> T:
        """Post ``make(answer)`` to ``target`` and wait until ``answer`` is called."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def answer(value: T) -> None:
            loop.call_soon_threadsafe(_resolve, future, value)

        target.post_message(make(answer))
        return await future


class PermissionBroker(ScreenBroker):
    """With no screen attached every request is rejected once."""

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        """Post the request to the screen and wait for the user's decision."""
        target = self._target
        if target is None:
            return PermissionDecision.REJECT_ONCE
        return await self._ask(target, lambda answer: Asked(PermissionEntry(request, answer)))
