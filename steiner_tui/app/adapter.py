"""The engine-to-UI adapter: an ``EventSink`` that posts Textual messages.

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
from steiner_tui.app import messages as ui
from steiner_tui.app.subagent_view import delegate_summary
from steiner_tui.engine.events import (
    CompactionApplied,
    EngineEvent,
    ErrorEvent,
    HealthEvent,
    MessageAppended,
    PinChanged,
    RequestSnapshot,
    SkillStateEvent,
    SkillTruncated,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
    WarningEvent,
)
from steiner_tui.units import byte_count

__all__ = ["MAX_PENDING", "UiEventSink", "to_ui_message"]

MAX_PENDING = 200
"""Events kept while no screen is attached (older ones are dropped)."""


def to_ui_message(event: EngineEvent) -> Message | None:
    """The app message for ``event``, or None for events the UI does not show.

    Reasoning deltas are not shown (the stored reply keeps them); the session log records them.
    """
    match event:
        case TextDelta(text=text):
            return ui.ReplyDelta(text)
        case ToolCallStarted(call=call, summary=summary):
            if call.name == "delegate":  # the engine's summary keys leave out type and task
                summary = delegate_summary(call.arguments or {})
            return ui.ToolStarted(call.id, call.name, summary, call.arguments or {})
        case ToolCallFinished(call=call, status=status, output=output, cut=cut):
            return ui.ToolFinished(call.id, status, output, cut, call.name)
        case RequestSnapshot():
            return ui.RequestSent(event)
        case UsageReported():
            return ui.UsageReceived(event)
        case WarningEvent(code=code, message=text):
            return ui.EngineNotice("warning", code, text)
        case ErrorEvent(code=code, message=text, remedies=remedies):
            return ui.ErrorReported(code, text, remedies)
        case HealthEvent():
            return ui.HealthChanged(event)
        case MessageAppended(message=message):
            return ui.MessageStored(message)
        case PinChanged(key=key, pinned=pinned):
            return ui.PinsChanged(key, pinned)
        case CompactionApplied(generation_id=generation, outcome=outcome):
            return ui.Compacted(generation, outcome)
        case SkillTruncated(name=name, original_bytes=size, cap_bytes=cap):
            text = f"skill {name!r} cut to {byte_count(cap)} (was {byte_count(size)})"
            return ui.SkillNotice(name, text, warning=True)
        case SkillStateEvent(name=name, state=state):
            return ui.SkillNotice(name, f"skill {name!r} replayed as {state}")
        case SubAgentUpdated(info=info):
            return ui.SubAgentChanged(info)
    return None


class UiEventSink:
    """Forwards engine events to one message pump (the main screen) as app messages."""

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
        message = to_ui_message(event)
        if message is None:
            return
        with self._lock:
            target = self._target
            if target is None:
                self._pending.append(message)
                del self._pending[:-MAX_PENDING]
                return
        target.post_message(message)
