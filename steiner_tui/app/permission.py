"""Permission prompts: the session's permission callback, answered inline in the conversation.

``PermissionBroker`` is the ``PermissionCallback`` handed to the ``PermissionPolicy``. When a
tool asks, it posts ``Asked`` (with a ``PermissionEntry``) to the main screen and awaits a
future; the inline prompt's a/A/r/R keys call the entry's ``answer``, which resolves that
future on the loop that awaits it (thread-safe, so it holds whether the runner runs on the UI
loop or elsewhere). A cancelled run cancels the await; a late answer is then ignored.
"""

from __future__ import annotations

import asyncio

from textual.message_pump import MessagePump

from steiner_tui.app.messages import Asked
from steiner_tui.app.transcript import PermissionEntry
from steiner_tui.tools.base import PermissionDecision, PermissionRequest

__all__ = ["PermissionBroker"]


def _resolve(future: asyncio.Future[PermissionDecision], decision: PermissionDecision) -> None:
    if not future.done():
        future.set_result(decision)


class PermissionBroker:
    """Asks the attached screen; with no screen attached every request is rejected once."""

    def __init__(self) -> None:
        self._target: MessagePump | None = None

    def attach(self, target: MessagePump) -> None:
        """Ask ``target`` from now on."""
        self._target = target

    def detach(self) -> None:
        """Stop asking (requests are rejected once)."""
        self._target = None

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        """Post the request to the screen and wait for the user's decision."""
        target = self._target
        if target is None:
            return PermissionDecision.REJECT_ONCE
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PermissionDecision] = loop.create_future()

        def answer(decision: PermissionDecision) -> None:
            loop.call_soon_threadsafe(_resolve, future, decision)

        target.post_message(Asked(PermissionEntry(request, answer)))
        return await future
