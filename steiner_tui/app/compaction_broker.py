"""The app's compaction policy: ``ask`` mode's questions answered inline in the conversation.

``CompactionBroker`` is the ``CompactionPolicy`` the session is built with (the runner asks it;
the decision itself is the engine's). A question is posted to the main screen as
``Asked`` with a ``CompactionEntry`` (or an ``UnpinEntry`` when the pins alone cannot fit) with a
callback that resolves the awaited answer on the loop that awaits it, as the permission broker
does. With no screen attached every question is refused, as in exec.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

from steiner_tui.app.messages import Asked
from steiner_tui.app.transcript import CompactionEntry, UnpinEntry
from steiner_tui.engine.compaction.policy import (
    CompactionAnswer,
    CompactionQuestion,
    HeadlessPolicy,
    PinsAnswer,
    PinsQuestion,
)

__all__ = ["CompactionBroker"]

T = TypeVar("T")


def _resolve(future: asyncio.Future[T], value: T) -> None:
    if not future.done():
        future.set_result(value)


class CompactionBroker:
    """Asks the attached screen; with none attached, refuses like a headless run."""

    def __init__(self) -> None:
        self._target: MessagePump | None = None
        self._headless = HeadlessPolicy()

    def attach(self, target: MessagePump) -> None:
        """Ask ``target`` from now on."""
        self._target = target

    def detach(self) -> None:
        """Stop asking (questions are refused)."""
        self._target = None

    async def _ask(self, target: MessagePump, make: Callable[[Callable[[T], None]], Message]) -> T:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def answer(value: T) -> None:
            loop.call_soon_threadsafe(_resolve, future, value)

        target.post_message(make(answer))
        return await future

    async def ask(self, question: CompactionQuestion) -> CompactionAnswer:
        target = self._target
        if target is None:
            return await self._headless.ask(question)
        return await self._ask(target, lambda answer: Asked(CompactionEntry(question, answer)))

    async def ask_unpin(self, question: PinsQuestion) -> PinsAnswer:
        target = self._target
        if target is None:
            return await self._headless.ask_unpin(question)
        return await self._ask(target, lambda answer: Asked(UnpinEntry(question, answer)))
