"""The app's own messages: one for every engine event, one for a question a run waits on, one
for a line a widget or a command has to say, and the run's end (``run_to_end`` posts it).

Engine events are not mirrored class by class: ``adapter.UiEventSink`` posts the engine's own
frozen event inside one ``EngineUpdate``, and each widget matches the events it owns (the
conversation its replies, tools and stored messages; the screen the rest).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from textual.message import Message

from steiner_tui.agent.interactive import DriverRefusal
from steiner_tui.app.transcript import CompactionEntry, PermissionEntry, UnpinEntry
from steiner_tui.engine.events import EngineEvent

__all__ = ["Asked", "EngineUpdate", "RunEnded", "Said", "WorkbenchReady", "run_to_end"]


# Plain classes, not dataclasses: a dataclass compiles its methods when the module is
# imported, on the start path (tests/test_startup_imports.py).


class EngineUpdate(Message):
    """An engine event, exactly as the engine emitted it."""

    def __init__(self, event: EngineEvent) -> None:
        self.event = event
        super().__init__()


class Asked(Message):
    """A run waits on a question: a tool's permission, ``ask`` mode's compaction, or pins to
    drop (the entry's ``answer`` resolves the run's await)."""

    def __init__(self, entry: PermissionEntry | CompactionEntry | UnpinEntry) -> None:
        self.entry = entry
        super().__init__()


class Said(Message):
    """A line for the conversation (what a key or a command did, or why it did nothing);
    ``kind`` is the notice's (``NoticeEntry.kind``): ``steer`` also refreshes the panel."""

    def __init__(self, text: str, kind: str = "steer") -> None:
        self.text = text
        self.kind = kind
        super().__init__()


class RunEnded(Message):
    """A run (episode or manual compaction) ended: ``done``, ``cancelled`` or ``error``;
    ``compaction``: the run was a compaction asked for (``/compact``)."""

    def __init__(self, status: str, detail: str = "", compaction: bool = False) -> None:
        self.status = status
        self.detail = detail
        self.compaction = compaction
        super().__init__()


async def run_to_end(
    run: Awaitable[Any], post: Callable[[RunEnded], object], *, compaction: bool = False
) -> None:
    """Await ``run`` (an episode, or ``/compact``'s compaction) and ``post`` how it ended, a
    cancelled one too (the cancellation goes on)."""
    status, detail = "error", ""
    try:
        result = await run
        if compaction:
            status = "done"
            detail = "" if result is not None and result.applied else "nothing was compacted"
            if detail and result is not None and result.notes:  # why (``CompactionOutcome``)
                detail = f"{detail}: {'; '.join(result.notes)}"
        else:  # a run that ends in an error has already reported it (an ErrorEvent)
            status, detail = result.status, "" if result.status == "error" else result.error
    except asyncio.CancelledError:
        status = "cancelled"
        raise
    except Exception as error:  # refusals and engine failures end the run, not the app
        detail = str(error) if isinstance(error, DriverRefusal) else repr(error)
    finally:
        post(RunEnded(status, detail, compaction))


class WorkbenchReady(Message):
    """The workbench has started: session open, side panels filled (it bubbles to the app)."""
