"""What the lineage browser shows for one generation, derived once from the lineage.

The browser renders the lineage; it never recomputes what the engine knows. This module only
arranges engine values (the outcome, ``generation_parts`` and ``dropped_facts``) into the strings
of the table row and the detail panes, so the widgets stay display-only and tests can check the
text without running an app.
"""

from __future__ import annotations

from dataclasses import dataclass

from steiner_tui.app.widgets.inspector_format import clock, count
from steiner_tui.engine.compaction.diff import (
    DroppedFacts,
    GenerationParts,
    dropped_facts,
    generation_parts,
)
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.compaction.pins import is_pinned_by, pin_label
from steiner_tui.engine.events import CompactionOutcome

__all__ = [
    "GenerationView",
    "build_generation_view",
    "generation_heading",
    "generation_row",
    "pinned_labels",
]

START = "start"
"""What generation 0 shows in place of compaction figures."""


@dataclass(frozen=True, slots=True)
class GenerationView:
    """One generation as the detail panes show it."""

    generation: ConversationGeneration
    parts: GenerationParts
    previous_id: int | None
    """The generation it was compacted from (None for the first)."""
    dropped: DroppedFacts
    heading: str
    pinned: tuple[str, ...] = ()
    """The pinned messages this generation holds, named (kept verbatim by every stage)."""


def _stages(outcome: CompactionOutcome) -> str:
    modes = "+".join(outcome.modes)
    return f"{outcome.stage_count} {modes}".strip()


def _health(outcome: CompactionOutcome) -> str:
    health = outcome.health
    return "—" if health is None else health.state


def generation_row(generation: ConversationGeneration) -> tuple[str, ...]:
    """The table row: number, time, stages, tokens before/after, model, fallback, health."""
    outcome = generation.outcome
    when = clock(generation.created_at or (outcome.at if outcome else None))
    if outcome is None:
        label = START if generation.id == 0 else "—"
        return (str(generation.id), when, label, "", "", "", "", "", "")
    return (
        str(generation.id),
        when,
        _stages(outcome),
        count(outcome.before_tokens),
        count(outcome.after_tokens),
        outcome.summary_model or "—",
        outcome.fallback_status or "—",
        outcome.fallback_reason,
        _health(outcome),
    )


def generation_heading(generation: ConversationGeneration) -> str:
    """One line describing how the generation came to be (plain text, not markup)."""
    outcome = generation.outcome
    when = clock(generation.created_at or (outcome.at if outcome else None), date=True)
    if outcome is None:
        return f"Generation {generation.id} · {when} · start of the session"
    parts = [f"Generation {generation.id}", when, f"{outcome.stage_count} stage(s)"]
    if outcome.modes:
        parts.append(" + ".join(outcome.modes))
    parts.append("manual" if outcome.manual else "automatic")
    parts.append(f"{count(outcome.before_tokens)} → {count(outcome.after_tokens)} tokens")
    parts.append(f"summarized {outcome.summarized_count}, retained {outcome.retained_count}")
    if outcome.fallback_status:
        reason = f" ({outcome.fallback_reason})" if outcome.fallback_reason else ""
        parts.append(f"fallback {outcome.fallback_status}{reason}")
    if outcome.steering:
        parts.append(f"focus: {outcome.steering}")
    if outcome.health is not None:
        health = outcome.health
        parts.append(f"health {health.state} ({health.severity}): {health.guidance}")
    return " · ".join(parts)


def build_generation_view(lineage: ConversationLineage, index: int) -> GenerationView:
    """The view of ``lineage.generations[index]``, with its diff against the one before."""
    generation = lineage.generations[index]
    previous = lineage.generations[index - 1] if index > 0 else None
    return GenerationView(
        generation=generation,
        parts=generation_parts(generation),
        previous_id=None if previous is None else previous.id,
        dropped=DroppedFacts() if previous is None else dropped_facts(previous, generation),
        heading=generation_heading(generation),
        pinned=pinned_labels(lineage, generation),
    )


def pinned_labels(
    lineage: ConversationLineage, generation: ConversationGeneration
) -> tuple[str, ...]:
    """The labels of ``generation``'s messages that the conversation's pins name."""
    pinned = is_pinned_by(lineage.pins)
    messages = generation.messages
    return tuple(pin_label(m, messages[: i + 1]) for i, m in enumerate(messages) if pinned(m))
