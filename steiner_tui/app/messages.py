"""Textual messages the app's adapter posts for engine events, and the run's own results.

The engine emits frozen events to sinks; ``adapter.UiEventSink`` turns each one it cares about
into one of these messages and posts it to the main screen, which routes it to the widgets. They
are small dataclasses so handlers read plain fields and tests can build them directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.app.budget_view import BudgetView
from steiner_tui.engine.compaction.policy import (
    CompactionAnswer,
    CompactionQuestion,
    PinsAnswer,
    PinsQuestion,
)
from steiner_tui.engine.events import (
    CompactionOutcome,
    HealthEvent,
    OutputCut,
    RequestSnapshot,
    UsageReported,
)
from steiner_tui.engine.messages import Message as ChatMessage
from steiner_tui.engine.provider import Remedy
from steiner_tui.tools.base import PermissionDecision, PermissionRequest

__all__ = [
    "BudgetReady",
    "Compacted",
    "EngineNotice",
    "ErrorReported",
    "HealthChanged",
    "MessageStored",
    "PinsChanged",
    "CompactionQuestionPosted",
    "PermissionAsked",
    "ReplyDelta",
    "RequestSent",
    "RunEnded",
    "SkillNotice",
    "SubAgentChanged",
    "UnpinQuestionPosted",
    "ToolFinished",
    "ToolStarted",
    "UsageReceived",
    "WorkbenchReady",
]


@dataclass
class ReplyDelta(Message):
    """A chunk of the assistant's streamed reply."""

    text: str


@dataclass
class ToolStarted(Message):
    """A tool call started running."""

    call_id: str
    name: str
    summary: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    """The call's arguments (an opened block shows an edit's change from them)."""


@dataclass
class ToolFinished(Message):
    """A tool call finished with ``status`` done, failed or rejected; ``cut`` says what of its
    output the model did not get (None: all of it)."""

    call_id: str
    status: str
    output: str
    cut: OutputCut | None = None
    name: str = ""


@dataclass
class RequestSent(Message):
    """A request snapshot was recorded (the request is about to be sent)."""

    snapshot: RequestSnapshot


@dataclass
class UsageReceived(Message):
    """The provider reported usage for the latest model call."""

    usage: UsageReported


@dataclass
class EngineNotice(Message):
    """A warning or error from the engine, shown as a notice."""

    severity: str
    code: str
    text: str


@dataclass
class ErrorReported(Message):
    """A turn ended in an error: shown as an entry in the conversation, with its remedies."""

    code: str
    text: str
    remedies: tuple[Remedy, ...] = ()


@dataclass
class HealthChanged(Message):
    """Session health after a compaction."""

    health: HealthEvent


@dataclass
class MessageStored(Message):
    """A message was appended to the conversation, exactly as stored."""

    message: ChatMessage


@dataclass
class PinsChanged(Message):
    """A message was pinned or unpinned (``key``: its pin key; the lineage has them all)."""

    key: str
    pinned: bool


@dataclass
class Compacted(Message):
    """A compaction applied and started generation ``generation_id``."""

    generation_id: int
    outcome: CompactionOutcome


@dataclass
class SkillNotice(Message):
    """Something happened to a skill (truncated by the cap, replayed on resume)."""

    name: str
    text: str
    warning: bool = False


@dataclass
class SubAgentChanged(Message):
    """A sub-agent's snapshot changed (state, turns, tokens or transcript)."""

    info: SubAgentInfo


@dataclass
class PermissionAsked(Message):
    """A tool asks permission; ``answer`` resolves the run's awaited decision."""

    request: PermissionRequest
    answer: Callable[[PermissionDecision], None]


@dataclass
class CompactionQuestionPosted(Message):
    """``ask`` mode asks before the next request; ``answer`` resolves the run's await."""

    question: CompactionQuestion
    answer: Callable[[CompactionAnswer], None]


@dataclass
class UnpinQuestionPosted(Message):
    """The pins alone cannot fit: which to unpin; ``answer`` resolves the run's await."""

    question: PinsQuestion
    answer: Callable[[PinsAnswer], None]


@dataclass
class RunEnded(Message):
    """A run (episode or manual compaction) ended: ``done``, ``cancelled`` or ``error``."""

    status: str
    detail: str = ""


class WorkbenchReady(Message):
    """The workbench has started: session open, side panels filled (it bubbles to the app)."""


@dataclass
class BudgetReady(Message):
    """The context panel's figures, computed off the UI loop (``error``: why there are none).

    ``version`` is the panel refresh they answer; an older one's figures are out of date.
    """

    view: BudgetView | None
    error: str = ""
    version: int = 0
