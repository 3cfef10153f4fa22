"""The engine events that only a running turn, a resume or an oversized skill emits.

``steiner_tui.engine.events`` re-exports every class here lazily (PEP 562): creating a frozen
dataclass costs about a millisecond, and none of these is needed to draw the app's first frame,
so they are created on first use. Import them from ``steiner_tui.engine.events``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from steiner_tui.engine.events import EngineEvent

if TYPE_CHECKING:
    from steiner_tui.engine.messages import Message, ToolCall

__all__ = [
    "ErrorEvent",
    "MessageAppended",
    "ReasoningDelta",
    "SkillStateEvent",
    "SkillTruncated",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
]


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
class ErrorEvent(EngineEvent):
    """A turn ended in an error; the conversation stays intact."""

    kind: ClassVar[str] = "error"
    code: str
    message: str


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
