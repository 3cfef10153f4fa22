"""Typed engine events and the sink protocol.

The engine and the runner never call into the UI: they emit these frozen events to sinks (the
snapshot store, the session log, the app's adapter, a test's ``ListSink``). Every event has a
stable ``kind`` string used as the ``type`` field of the JSONL event log.

Event modules elsewhere in the engine (snapshots, skills, compaction) subclass ``EngineEvent``
with their own payloads; this module holds the base class, the sink protocol and the events the
runner emits while a turn streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from steiner_tui.engine.messages import Message, ToolCall

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
class TextDelta(EngineEvent):
    """A chunk of assistant text streamed by the model."""

    kind: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta(EngineEvent):
    """A chunk of reasoning text streamed by the model."""

    kind: ClassVar[str] = "reasoning_delta"
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallStarted(EngineEvent):
    """A tool call is about to run."""

    kind: ClassVar[str] = "tool_call_started"
    call: ToolCall
    summary: str


@dataclass(frozen=True, slots=True)
class ToolCallFinished(EngineEvent):
    """A tool call finished; ``status`` is ``done``, ``failed`` or ``rejected``."""

    kind: ClassVar[str] = "tool_call_finished"
    call: ToolCall
    status: str
    output: str


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
class WarningEvent(EngineEvent):
    """Something went wrong but nothing was lost (unreadable file, archive append failure...)."""

    kind: ClassVar[str] = "warning"
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ErrorEvent(EngineEvent):
    """A turn ended in an error; the conversation stays intact."""

    kind: ClassVar[str] = "error"
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class HealthEvent(EngineEvent):
    """Session health after compaction: severity info/warning/critical, state and guidance."""

    kind: ClassVar[str] = "health"
    severity: str
    state: str
    guidance: str
    stage_count: int = 0


@dataclass(frozen=True, slots=True)
class MessageAppended(EngineEvent):
    """A message was added to the active conversation (exactly as stored)."""

    kind: ClassVar[str] = "message"
    message: Message


@dataclass(frozen=True, slots=True)
class SkillTruncated(EngineEvent):
    """A skill body exceeded the cap and was cut."""

    kind: ClassVar[str] = "skill_truncated"
    name: str
    original_bytes: int
    cap_bytes: int


@dataclass(frozen=True, slots=True)
class SkillStateEvent(EngineEvent):
    """A skill envelope was replayed from a stored conversation (resume)."""

    kind: ClassVar[str] = "skill_state"
    name: str
    state: str
    bytes: int
