"""The app's compaction policy: ``ask`` mode's questions answered inline in the conversation.

``CompactionBroker`` is the ``CompactionPolicy`` the session is built with (the runner asks it;
the decision itself is the engine's). A question is posted to the main screen as
``Asked`` with a ``CompactionEntry`` (or an ``UnpinEntry`` when the pins alone cannot fit) with a
callback that resolves the awaited answer on the loop that awaits it (``permission.ScreenBroker``).
With no screen attached every question is refused, as in exec.
"""

from __future__ import annotations

from steiner_tui.app.messages import Asked
from steiner_tui.app.permission import ScreenBroker
from steiner_tui.app.transcript import CompactionEntry, UnpinEntry
from steiner_tui.engine.compaction.policy import (
    CompactionAnswer,
    CompactionQuestion,
    HeadlessPolicy,
    PinsAnswer,
    PinsQuestion,
)

__all__ = ["CompactionBroker"]


class CompactionBroker(ScreenBroker):
    """With no screen attached, refuses like a headless run."""

    def __init__(self) -> None:
        super().__init__()
        self._headless = HeadlessPolicy()

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
