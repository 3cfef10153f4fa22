"""Textual messages the app's adapter posts for engine events, and the run's own results.

The engine emits frozen events to sinks; ``adapter.UiEventSink`` turns each one it cares about
into one of these messages and posts it to the main screen, which routes it to the widgets. They
are small classes with plain attributes, set in ``__init__`` as Textual's guide writes messages, so
handlers read plain fields and tests can build them directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


class ReplyDelta(Message):
    """A chunk of the assistant's streamed reply."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class ToolStarted(Message):
    """A tool call started running."""

    def __init__(
        self, call_id: str, name: str, summary: str, arguments: Mapping[str, Any] | None = None
    ) -> None:
        self.call_id = call_id
        self.name = name
        self.summary = summary
        self.arguments: Mapping[str, Any] = {} if arguments is None else arguments
        """The call's arguments (an opened block shows an edit's change from them)."""
        super().__init__()


class ToolFinished(Message):
    """A tool call finished with ``status`` done, failed or rejected; ``cut`` says what of its
    output the model did not get (None: all of it)."""

    def __init__(
        self, call_id: str, status: str, output: str, cut: OutputCut | None = None, name: str = ""
    ) -> None:
        self.call_id = call_id
        self.status = status
        self.output = output
        self.cut = cut
        self.name = name
        super().__init__()


class RequestSent(Message):
    """A request snapshot was recorded (the request is about to be sent)."""

    def __init__(self, snapshot: RequestSnapshot) -> None:
        self.snapshot = snapshot
        super().__init__()


class UsageReceived(Message):
    """The provider reported usage for the latest model call."""

    def __init__(self, usage: UsageReported) -> None:
        self.usage = usage
        super().__init__()


class EngineNotice(Message):
    """A warning or error from the engine, shown as a notice."""

    def __init__(self, severity: str, code: str, text: str) -> None:
        self.severity = severity
        self.code = code
        self.text = text
        super().__init__()


class ErrorReported(Message):
    """A turn ended in an error: shown as an entry in the conversation, with its remedies."""

    def __init__(self, code: str, text: str, remedies: tuple[Remedy, ...] = ()) -> None:
        self.code = code
        self.text = text
        self.remedies = remedies
        super().__init__()


class HealthChanged(Message):
    """Session health after a compaction."""

    def __init__(self, health: HealthEvent) -> None:
        self.health = health
        super().__init__()


class MessageStored(Message):
    """A message was appended to the conversation, exactly as stored."""

    def __init__(self, message: ChatMessage) -> None:
        self.message = message
        super().__init__()


class PinsChanged(Message):
    """A message was pinned or unpinned (``key``: its pin key; the lineage has them all)."""

    def __init__(self, key: str, pinned: bool) -> None:
        self.key = key
        self.pinned = pinned
        super().__init__()


class Compacted(Message):
    """A compaction applied and started generation ``generation_id``."""

    def __init__(self, generation_id: int, outcome: CompactionOutcome) -> None:
        self.generation_id = generation_id
        self.outcome = outcome
        super().__init__()


class SkillNotice(Message):
    """Something happened to a skill (truncated by the cap, replayed on resume)."""

    def __init__(self, name: str, text: str, warning: bool = False) -> None:
        self.name = name
        self.text = text
        self.warning = warning
        super().__init__()


class SubAgentChanged(Message):
    """A sub-agent's snapshot changed (state, turns, tokens or transcript)."""

    def __init__(self, info: SubAgentInfo) -> None:
        self.info = info
        super().__init__()


class PermissionAsked(Message):
    """A tool asks permission; ``answer`` resolves the run's awaited decision."""

    def __init__(
        self, request: PermissionRequest, answer: Callable[[PermissionDecision], None]
    ) -> None:
        self.request = request
        self.answer = answer
        super().__init__()


class CompactionQuestionPosted(Message):
    """``ask`` mode asks before the next request; ``answer`` resolves the run's await."""

    def __init__(
        self, question: CompactionQuestion, answer: Callable[[CompactionAnswer], None]
    ) -> None:
        self.question = question
        self.answer = answer
        super().__init__()


class UnpinQuestionPosted(Message):
    """The pins alone cannot fit: which to unpin; ``answer`` resolves the run's await."""

    def __init__(self, question: PinsQuestion, answer: Callable[[PinsAnswer], None]) -> None:
        self.question = question
        self.answer = answer
        super().__init__()


class RunEnded(Message):
    """A run (episode or manual compaction) ended: ``done``, ``cancelled`` or ``error``."""

    def __init__(self, status: str, detail: str = "") -> None:
        self.status = status
        self.detail = detail
        super().__init__()


class WorkbenchReady(Message):
    """The workbench has started: session open, side panels filled (it bubbles to the app)."""


class BudgetReady(Message):
    """The context panel's figures, computed off the UI loop (``error``: why there are none).

    ``version`` is the panel refresh they answer; an older one's figures are out of date.
    """

    def __init__(self, view: BudgetView | None, error: str = "", version: int = 0) -> None:
        self.view = view
        self.error = error
        self.version = version
        super().__init__()
