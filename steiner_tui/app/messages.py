"""The app's own messages: one for every engine event, one for a question a run waits on, one
for a line a widget or a command has to say, and the run's end.

Engine events are not mirrored class by class: ``adapter.UiEventSink`` posts the engine's own
frozen event inside one ``EngineUpdate``, and each widget matches the events it owns (the
conversation its replies, tools and stored messages; the screen the rest).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from steiner_tui.app.transcript import CompactionEntry, PermissionEntry, UnpinEntry
from steiner_tui.engine.events import EngineEvent

__all__ = ["Asked", "EngineUpdate", "RunEnded", "Said", "WorkbenchReady"]


@dataclass
class EngineUpdate(Message):
    """An engine event, exactly as the engine emitted it."""

    event: EngineEvent


@dataclass
class Asked(Message):
    """A run waits on a question: a tool's permission, ``ask`` mode's compaction, or pins to
    drop (the entry's ``answer`` resolves the run's await)."""

    entry: PermissionEntry | CompactionEntry | UnpinEntry


@dataclass
class Said(Message):
    """A line for the conversation (what a key or a command did, or why it did nothing)."""

    text: str
    kind: str = "steer"
    """The notice's kind (``NoticeEntry.kind``): ``steer`` also refreshes the context panel."""


@dataclass
class RunEnded(Message):
    """A run (episode or manual compaction) ended: ``done``, ``cancelled`` or ``error``."""

    status: str
    detail: str = ""
    compaction: bool = False
    """The run was a compaction asked for (``/compact``)."""


class WorkbenchReady(Message):
    """The workbench has started: session open, side panels filled (it bubbles to the app)."""
