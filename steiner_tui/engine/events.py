"""Typed engine events and the sink protocol.

The engine and the runner never call into the UI: they emit these frozen events to sinks (the
snapshot store, the session log, the app's adapter, a test's ``ListSink``). Every event has a
stable ``kind`` string used as the ``type`` field of the JSONL event log.

Event modules elsewhere in the engine (snapshots, skills, compaction) subclass ``EngineEvent``
with their own payloads; this module holds the base class, the sink protocol and the events the
runner emits. Only those needed from start-up are defined here: ``UsageReported`` and
``HealthEvent`` (the app's messages hold them) and ``WarningEvent`` (building a session may emit
it from many places). The others are defined in ``event_types`` and re-exported lazily (PEP 562
``__getattr__``): each dataclass costs about a millisecond to create, and the first frame needs
none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from steiner_tui.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from steiner_tui.engine.event_types import (
        ErrorEvent,
        MessageAppended,
        ReasoningDelta,
        SkillStateEvent,
        SkillTruncated,
        TextDelta,
        ToolCallFinished,
        ToolCallStarted,
    )

__all__ = [
    "EngineEvent",
    "EventSink",
    "FanoutSink",
    "ListSink",
    "TextDelta",
    "ReasoningDelta",
    "ToolCallStarted",
    "ToolCallFinished",
    "UsageReported",
    "WarningEvent",
    "ErrorEvent",
    "HealthEvent",
    "MessageAppended",
    "SkillTruncated",
    "SkillStateEvent",
]


@dataclass(frozen=True, slots=True)
class EngineEvent:
    """Base of every event. ``kind`` names the event in logs."""

    kind: ClassVar[str] = "event"


class EventSink(Protocol):
    """Anything that accepts engine events. Must not block for long; must not raise."""

    def emit(self, event: EngineEvent) -> None: ...


@dataclass(slots=True)
class ListSink:
    """Collects events in order (tests, and the runner's per-turn buffer)."""

    events: list[EngineEvent] = field(default_factory=list)

    def emit(self, event: EngineEvent) -> None:
        self.events.append(event)

    def of(self, cls: type[EngineEvent]) -> list[EngineEvent]:
        return [e for e in self.events if isinstance(e, cls)]


@dataclass(slots=True)
class FanoutSink:
    """Sends each event to several sinks in order."""

    sinks: Sequence[EventSink]

    def emit(self, event: EngineEvent) -> None:
        for sink in self.sinks:
            sink.emit(event)


@dataclass(frozen=True, slots=True)
class UsageReported(EngineEvent):
    """Provider-reported usage for one model call."""

    kind: ClassVar[str] = "usage"
    model: str
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated_prompt_tokens: int = 0


@dataclass(frozen=True, slots=True)
class HealthEvent(EngineEvent):
    """Session health after compaction: severity info/warning/critical, state and guidance."""

    kind: ClassVar[str] = "health"
    severity: str
    state: str
    guidance: str
    stage_count: int = 0


@dataclass(frozen=True, slots=True)
class WarningEvent(EngineEvent):
    """Something went wrong but nothing was lost (unreadable file, archive append failure...)."""

    kind: ClassVar[str] = "warning"
    code: str
    message: str


if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "steiner_tui.engine.event_types": (
                "ErrorEvent",
                "MessageAppended",
                "ReasoningDelta",
                "SkillStateEvent",
                "SkillTruncated",
                "TextDelta",
                "ToolCallFinished",
                "ToolCallStarted",
            ),
        },
    )
