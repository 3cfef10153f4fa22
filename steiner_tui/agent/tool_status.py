"""Remember how each tool call ended, so the history archive marks failures correctly.

A ``tool`` message carries the result text but not the tool's status (the wire format has no
field for it). The runner reports statuses in ``ToolCallFinished`` events; this book records
them by tool-call id and answers the archive's status question, falling back to the text-based
guess for calls it never saw. It keeps the permission answers of the calls too
(``PermissionAnswered``), which the conversation shows again when it is loaded anew. A resumed
session seeds it with the statuses and answers its log recorded (``LoadedSession``), which the
transcript shows, and whose ``always`` answers the session's permission policy holds again.
"""

from __future__ import annotations

from collections.abc import Mapping

from steiner_tui.engine.events import EngineEvent, PermissionAnswered, ToolCallFinished
from steiner_tui.engine.messages import Message
from steiner_tui.engine.tool_results import default_tool_status
from steiner_tui.tools.base import PermissionDecision

__all__ = ["ToolStatusBook"]

_REMEMBERED = frozenset(decision.value for decision in PermissionDecision if decision.remembered)


class ToolStatusBook:
    """An ``EventSink`` that records tool statuses and permission answers, and a status reader
    for the archive."""

    accepts = (ToolCallFinished, PermissionAnswered)

    def __init__(
        self,
        recorded: Mapping[str, str] | None = None,
        answers: Mapping[str, PermissionAnswered] | None = None,
    ) -> None:
        self._statuses: dict[str, str] = dict(recorded or {})
        self._answers: dict[str, PermissionAnswered] = dict(answers or {})

    @property
    def statuses(self) -> Mapping[str, str]:
        """The statuses known, by tool-call id (reported, or recorded in a resumed log)."""
        return self._statuses

    @property
    def answers(self) -> Mapping[str, PermissionAnswered]:
        """The permission answers known, by tool-call id (the session model's calls)."""
        return self._answers

    def always(self) -> dict[str, PermissionDecision]:
        """The ``always`` answers among the answers known, by tool (the last one for each)."""
        held: dict[str, PermissionDecision] = {}
        for answer in self._answers.values():
            if answer.decision in _REMEMBERED:
                held[answer.tool] = PermissionDecision(answer.decision)
        return held

    def emit(self, event: EngineEvent) -> None:
        if isinstance(event, ToolCallFinished):
            self._statuses[event.call.id] = event.status
        elif isinstance(event, PermissionAnswered) and not event.agent:
            self._answers[event.call_id] = event

    def __call__(self, result: Message) -> str:
        return self._statuses.get(result.tool_call_id) or default_tool_status(result)
