"""Escalation after compaction, and the guard against replacing a live conversation.

Repeated compaction in one run means retention is getting thin. ``CompactionCounter`` counts the
applied stages of one run (a two-stage compaction adds 2; a new run and a manual ``/compact``
start from zero); after each applied compaction the count and the post-compaction prompt map to a
health event through ``budget.compaction_escalation``.

``replacement_refusal`` is the driver's guard: a conversation is never swapped (compaction,
resume, fork) while a run generates or sub-agents are still running. The driver never queues
input: it refuses a submit while a run generates, and the workbench marks itself busy the moment
it accepts some, before the run starts, so "generating" covers that moment too (a message sent
meanwhile waits in the workbench's prompt until the run has ended).
"""

from __future__ import annotations

import msgspec

from steiner_tui.engine.budget import (
    INEFFECTIVE_PERCENT,
    compaction_escalation,
    escalation_guidance,
)
from steiner_tui.engine.events import HealthEvent

__all__ = [
    "CompactionCounter",
    "compaction_health",
    "noted_health",
    "ineffective_note",
    "over_window_health",
    "replacement_refusal",
]


class CompactionCounter(msgspec.Struct):
    """Applied compaction stages in one run (mutable, owned by the run)."""

    stages: int = 0

    def add(self, stage_count: int) -> int:
        """Add an applied outcome's stage count; returns the new total."""
        self.stages += max(0, stage_count)
        return self.stages


def compaction_health(stage_total: int, prompt_tokens: int, hard_limit_tokens: int) -> HealthEvent:
    """The health event after a compaction.

    Args:
        stage_total: applied stages in this run, this compaction included.
        prompt_tokens: estimated prompt after compaction.
        hard_limit_tokens: main context size minus safety margin.
    """
    severity, state = compaction_escalation(stage_total, prompt_tokens, hard_limit_tokens)
    return HealthEvent(severity, state, escalation_guidance(state), stage_total)


def ineffective_note(before: int, after: int) -> str:
    """``ineffective: freed 8% of the prompt (...)`` when a compaction freed less than
    ``INEFFECTIVE_PERCENT`` of ``before``; "" otherwise."""
    freed = before - after
    if before <= 0 or freed * 100 >= before * INEFFECTIVE_PERCENT:
        return ""
    share = max(0, freed) * 100 // before
    return (
        f"ineffective: freed {share}% of the prompt ({before:,} to {after:,} tokens; "
        f"under {INEFFECTIVE_PERCENT}%)"
    )


def noted_health(health: HealthEvent, note: str) -> HealthEvent:
    """``health`` after a compaction that went wrong (freed too little, a summary rejected):
    at least warning/fragile, saying why."""
    if health.severity == "info":
        health = HealthEvent(
            "warning", "fragile", escalation_guidance("fragile"), health.stage_count
        )
    return msgspec.structs.replace(health, guidance=f"{note}; {health.guidance}")


def over_window_health(stage_total: int = 0) -> HealthEvent:
    """The health event of a request that cannot fit the window, even after compaction."""
    return HealthEvent("critical", "over_window", escalation_guidance("over_window"), stage_total)


def replacement_refusal(busy: bool, pending_sub_agents: int) -> str | None:
    """Why the conversation may not be replaced now, or None when it may.

    Args:
        busy: a run is generating (or input was accepted and its run is starting).
        pending_sub_agents: sub-agents still running or queued.
    """
    if busy:
        return "a run is still generating; wait for it to finish or cancel it"
    if pending_sub_agents > 0:
        if pending_sub_agents == 1:
            return "1 sub-agent is still running; wait for it to finish"
        return f"{pending_sub_agents} sub-agents are still running; wait for them to finish"
    return None
