"""The engine-to-UI adapter: an ``EventSink`` that posts each engine event as one Textual message.

The runner emits events synchronously on whatever task or thread runs it. The app runs it in an
async worker, so events arrive on the event-loop thread; a thread worker would emit from another
thread. ``MessagePump.post_message`` covers both: on the loop's thread it queues directly, off it
it hands the message to the loop with ``call_soon_threadsafe``. That never blocks the runner
(``App.call_from_thread`` would wait for the UI, and deadlock if the UI awaited the runner).

Events emitted before the screen attaches (skill discovery warnings while the session is built)
are kept and delivered on ``attach``. Messages all go to one target, so their order is the
order of the events.
"""

from __future__ import annotations

import threading

from textual.message import Message
from textual.message_pump import MessagePump

from steiner_tui.agent.delegation.model import SubAgentUpdated
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.engine.events import (
    CompactionApplied,
    CompactionProgress,
    EngineEvent,
    ErrorEvent,
    HealthEvent,
    MessageAppended,
    PinChanged,
    ReasoningDelta,
    RequestSnapshot,
    SkillStateEvent,
    SkillTruncated,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolInputDelta,
    ToolOutputProgress,
    UsageReported,
    WarningEvent,
)
from steiner_tui.units import byte_count

__all__ = ["UiEventSink", "skill_notice"]

MAX_PENDING = 200
"""Events kept while no screen is attached (older ones are dropped)."""

SHOWN = (
    TextDelta, ToolCallStarted, ToolCallFinished, RequestSnapshot, UsageReported, WarningEvent,
    ErrorEvent, HealthEvent, MessageAppended, PinChanged, CompactionApplied, SkillTruncated,
    CompactionProgress, ReasoningDelta, ToolInputDelta, ToolOutputProgress,
    SkillStateEvent, SubAgentUpdated,
)  # fmt: skip
"""The events the workbench shows (reasoning and a tool call being written only as what the
status line says streams); the others are left to the session log."""


def skill_notice(event: EngineEvent) -> tuple[str, bool] | None:
    """What a skill event says, and whether it is a warning (None: not a skill event)."""
    match event:
        case SkillTruncated(name=name, original_bytes=size, cap_bytes=cap):
            return f"skill {name!r} cut to {byte_count(cap)} (was {byte_count(size)})", True
        case SkillStateEvent(name=name, state=state):
            return f"skill {name!r} replayed as {state}", False
    return None


class UiEventSink:
    """Forwards engine events to one message pump (the main screen), each as an ``EngineUpdate``."""

    def __init__(self) -> None:
        self._target: MessagePump | None = None
        self._pending: list[Message] = []
        self._lock = threading.Lock()

    @property
    def attached(self) -> bool:
        """Whether a screen receives the messages."""
        return self._target is not None

    def attach(self, target: MessagePump) -> None:
        """Send messages to ``target`` from now on, after the ones kept so far."""
        with self._lock:
            self._target = target
            pending, self._pending = self._pending, []
        for message in pending:
            target.post_message(message)

    def detach(self) -> None:
        """Stop forwarding (the screen is going away)."""
        with self._lock:
            self._target = None

    def emit(self, event: EngineEvent) -> None:
        """Translate ``event`` and post it; never raises, never blocks."""
        if not isinstance(event, SHOWN):
            return
        message = EngineUpdate(event)
        with self._lock:
            target = self._target
            if target is None:
                self._pending.append(message)
                del self._pending[:-MAX_PENDING]
                return
        target.post_message(message)
