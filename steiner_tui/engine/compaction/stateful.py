"""Compaction decisions for stateful transcript providers, driven by reported usage.

When the backend owns the transcript (``claude_subscription``), the engine cannot estimate the
prompt: it compares the soft trigger with the last parent response's reported prompt tokens
(``ParentUsage``). Usage is kept in memory only, carried into the next run, and dropped when the
model or the context window changes.

After a stateful compaction the backend transcript restarts from a summary whose size the engine
does not control, so the first parent response arms a floor (``ParentUsage.floor``) from its prompt
tokens when they already reach the selected threshold but not the cap; the soft trigger then
waits for ``min(floor + 10% of window, 90% of window)`` instead of compacting on every turn. At
or above 90% of the window the run is marked cap-reached; its next decision stops the run with
``request exceeds context window`` and a critical ``likely_lossy`` health event, without calling
the compactor (a summary written from a transcript that full is likely lossy). What clears the
mark is the person's choice: a manual ``/compact`` (an applied compaction) or ``/clear``; the
stop message says so.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from steiner_tui.engine.budget import escalation_guidance, soft_threshold_tokens
from steiner_tui.engine.events import HealthEvent

__all__ = [
    "STATEFUL_CAP_STOP_ERROR",
    "ParentUsage",
    "StatefulDecision",
    "stateful_cap_stop",
]

CAP_USAGE_PERCENT = 90
FLOOR_STEP_PERCENT = 10
STATEFUL_CAP_STOP_ERROR = "request exceeds context window"

StatefulDecision = Literal["continue", "compact", "cap_stop"]


class ParentUsage(msgspec.Struct, frozen=True):
    """The last parent response's usage, and the floor and cap state derived from it.

    Attributes:
        model: the model the usage belongs to.
        context_window: that model's window.
        threshold_tokens: ``compaction_threshold_tokens`` (None: the 70% trigger).
        prompt_tokens: reported prompt tokens of the last parent response (0: none yet).
        floor: the armed floor (0: not armed).
        awaiting_floor: a stateful compaction happened and no parent response followed yet.
        cap_reached: a response reached 90% of the window.
    """

    model: str
    context_window: int
    threshold_tokens: int | None = None
    prompt_tokens: int = 0
    floor: int = 0
    awaiting_floor: bool = False
    cap_reached: bool = False

    @property
    def selected_threshold(self) -> int:
        """``compaction_threshold_tokens`` when set, otherwise the percent threshold."""
        return soft_threshold_tokens(self.context_window, self.threshold_tokens)

    @property
    def cap_tokens(self) -> int:
        """90% of the window, rounded up (``usage >= cap_tokens`` is ``usage >= 90%``)."""
        return -(-self.context_window * CAP_USAGE_PERCENT // 100)

    @property
    def soft_trigger(self) -> int:
        """The usage that triggers compaction: shifted above an armed floor."""
        if self.floor <= 0:
            return self.selected_threshold
        step = self.context_window * FLOOR_STEP_PERCENT // 100
        return min(self.floor + step, self.cap_tokens)

    def carried(self, model: str, context_window: int) -> ParentUsage:
        """The usage to carry into a run of ``model``: dropped when model or window differ."""
        if (model, context_window) == (self.model, self.context_window):
            return self
        return ParentUsage(model, context_window, self.threshold_tokens)

    def after_compaction(self) -> ParentUsage:
        """A stateful compaction applied: the next parent response may arm the floor, and the
        cap mark is cleared (the new transcript starts from the summary; if it is still at the
        cap, the next response marks it again)."""
        return msgspec.structs.replace(
            self, prompt_tokens=0, floor=0, awaiting_floor=True, cap_reached=False
        )

    def observe(self, prompt_tokens: int) -> ParentUsage:
        """Record a parent response's reported prompt tokens."""
        floor, awaiting = self.floor, self.awaiting_floor
        if awaiting:
            awaiting = False
            if self.selected_threshold <= prompt_tokens < self.cap_tokens:
                floor = prompt_tokens
        cap = self.cap_reached or prompt_tokens >= self.cap_tokens
        return msgspec.structs.replace(
            self, prompt_tokens=prompt_tokens, floor=floor, awaiting_floor=awaiting, cap_reached=cap
        )

    def decision(self) -> StatefulDecision:
        """The compaction decision before the next model call."""
        if self.cap_reached:
            return "cap_stop"
        if self.prompt_tokens > 0 and self.prompt_tokens >= self.soft_trigger:
            return "compact"
        return "continue"


def stateful_cap_stop(usage: ParentUsage) -> tuple[str, HealthEvent]:
    """The error text and the critical health event that stop a cap-reached run."""
    text = (
        f"{STATEFUL_CAP_STOP_ERROR}: the provider reported {usage.prompt_tokens:,} prompt "
        f"tokens, at or over {CAP_USAGE_PERCENT}% of the {usage.context_window:,}-token window; "
        "/compact or /clear clears the cap"
    )
    return text, HealthEvent("critical", "likely_lossy", escalation_guidance("likely_lossy"))
