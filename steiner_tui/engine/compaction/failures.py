"""How a compaction fails, and whether the backend transcript survived the failure.

A failed compaction leaves the conversation as it was, except for one thing its caller has to
know: a main summary on a stateful provider may already have retired the backend transcript
(an earlier stage's summary did, or the failing call itself did and its ``ProviderError`` says
so). The caller must then drop the lineage's backend state. That fact travels in the constructor
field ``backend_state_retired`` of the two exceptions ``compact_with_lineage`` raises:

* ``CompactionFailed(Exception)``: any error of a stage, its summary call included (the error is
  the ``__cause__``; ``str()`` is its text). ``cancelled`` marks a cancellation that did not
  arrive as ``asyncio.CancelledError`` (a ``cancelled`` provider error, or any error while a
  cancellation of the task is pending): never rerun on main, never reported as a warning.
* ``CompactionCancelled(asyncio.CancelledError)``: the task was cancelled during a stage. It is
  a ``CancelledError``, so cancellation propagates as usual.

(docs/design.md, "12. Stateful providers")
"""

from __future__ import annotations

import asyncio

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.provider import ProviderError
from steiner_tui.errors import CompactionError

__all__ = ["CompactionCancelled", "CompactionFailed", "is_cancellation", "lineage_after_failure"]


class CompactionFailed(CompactionError):
    """A compaction failed; its ``__cause__`` is the error that ended it.

    Args:
        error: the error that ended it (its text is this exception's text).
        backend_state_retired: the stateful backend transcript was retired before the failure
            or by the failing call; the caller drops the lineage's backend state.
        cancelled: the error is a cancellation (see ``is_cancellation``).
    """

    def __init__(
        self, error: Exception, *, backend_state_retired: bool, cancelled: bool = False
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.backend_state_retired = backend_state_retired
        self.cancelled = cancelled


class CompactionCancelled(asyncio.CancelledError):
    """The task was cancelled while a compaction ran.

    Args:
        backend_state_retired: the stateful backend transcript was retired before the
            cancellation; the caller drops the lineage's backend state before re-raising.
    """

    def __init__(self, *args: object, backend_state_retired: bool) -> None:
        super().__init__(*args)
        self.backend_state_retired = backend_state_retired


def is_cancellation(error: BaseException) -> bool:
    """True for cancellation: never rerun on main, never retried."""
    if isinstance(error, asyncio.CancelledError):
        return True
    if isinstance(error, ProviderError) and error.kind == "cancelled":
        return True
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def lineage_after_failure(
    lineage: ConversationLineage, failure: CompactionFailed | CompactionCancelled
) -> ConversationLineage:
    """The lineage to keep after ``failure``: ``lineage``, minus a retired backend state."""
    return lineage.clear_backend_state() if failure.backend_state_retired else lineage
