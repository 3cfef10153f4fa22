"""What the lineage browser shows for one generation, derived once from the lineage.

The browser renders the lineage; it never recomputes what the engine knows. This module only
arranges engine values (the outcome, ``generation_parts`` and ``dropped_facts``) into the strings
of the table row and the detail panes, so the widgets stay display-only and tests can check the
text without running an app.
"""

from __future__ import annotations

import msgspec

from steiner_tui.app.widgets.inspector_format import clock, count
from steiner_tui.engine.compaction.diff import (
    DroppedFacts,
    GenerationParts,
    dropped_facts,
    generation_parts,
)
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.compaction.masking import MASK_MODE
from steiner_tui.engine.compaction.pins import is_pinned_by, pin_label
from steiner_tui.engine.compaction.triggers import trigger_label
from steiner_tui.engine.events import CompactionOutcome, RoomEdit
from steiner_tui.engine.messages import Message
from steiner_tui.engine.state.artifacts import ArtifactLedger, ledger_changes
from steiner_tui.units import counted

__all__ = [
    "GenerationView",
    "build_generation_view",
    "edit_line",
    "generation_heading",
    "generation_reason",
    "generation_row",
    "sizes_lines",
]

START = "start"
"""What generation 0 shows in place of compaction figures."""


class GenerationView(msgspec.Struct, frozen=True):
    """One generation as the detail panes show it."""

    generation: ConversationGeneration
    parts: GenerationParts
    previous_id: int | None
    """The generation it was compacted from (None for the first)."""
    dropped: DroppedFacts
    heading: str
    pinned: tuple[str, ...] = ()
    """The pinned messages this generation holds, named (kept verbatim by every stage)."""
    retained: tuple[Message, ...] = ()
    """The turns compaction kept, as they were when it ran (``outcome.retained_count``)."""
    added: tuple[Message, ...] = ()
    """The messages the generation gained after its compaction (sent since)."""
    ledger: tuple[str, ...] = ()
    """The artifact ledger its summary carries, one line per entry (``state.artifacts``)."""
    ledger_changes: tuple[str, ...] = ()
    """What changed in the ledger since the generation before."""


MASKING = "masking, no summary"
"""What a masking generation is, where a compaction's heading counts its stages."""


def _masking(outcome: CompactionOutcome) -> bool:
    """A generation made by masking tool results (no summary stage ran)."""
    return outcome.stage_count == 0 and MASK_MODE in outcome.modes


def _stages(outcome: CompactionOutcome) -> str:
    if _masking(outcome):
        return MASK_MODE
    modes = "+".join(outcome.modes)
    return f"{outcome.stage_count} {modes}".strip()


def stage_label(outcome: CompactionOutcome) -> str:
    """``1 stage · normal``, ``2 stages · normal + emergency``, or what a masking is."""
    if _masking(outcome):
        return MASKING
    stages = "1 stage" if outcome.stage_count == 1 else f"{outcome.stage_count} stages"
    return " · ".join([stages, *([" + ".join(outcome.modes)] if outcome.modes else [])])


def _asked(outcome: CompactionOutcome) -> str:
    """The text the compaction was asked with: a ``/compact`` focus, or a mask's reason."""
    label = "reason" if _masking(outcome) else "focus"
    return f"{label}: {outcome.steering}"


def _health(outcome: CompactionOutcome) -> str:
    health = outcome.health
    return "—" if health is None else health.state


BAR_CELLS = 10
"""Cells of the longest before/after bar in the table."""
_EIGHTHS = " ▏▎▍▌▋▊▉"


def _bar(tokens: int, scale: int) -> str:
    eighths = round(tokens * BAR_CELLS * 8 / scale) if scale else 0
    if tokens and not eighths:
        eighths = 1  # something is never drawn as nothing
    full, part = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[part] if part else "")).ljust(BAR_CELLS)


def token_bars(outcome: CompactionOutcome, scale: int) -> str:
    """Before and after as two bars on one scale (``scale``: the largest figure shown)."""
    return f"{_bar(outcome.before_tokens, scale)}→{_bar(outcome.after_tokens, scale)}"


def lineage_scale(lineage: ConversationLineage) -> int:
    """The largest before/after figure of the lineage (the bars' common scale)."""
    figures = [
        max(g.outcome.before_tokens, g.outcome.after_tokens)
        for g in lineage.generations
        if g.outcome is not None
    ]
    return max(figures, default=0)


def _edit_counts(edits: tuple[RoomEdit, ...]) -> str:
    kinds: dict[str, int] = {}
    for edit in edits:
        kinds[edit.kind] = kinds.get(edit.kind, 0) + edit.count
    return ", ".join(f"{kind} {n}" for kind, n in kinds.items())


def generation_reason(outcome: CompactionOutcome) -> str:
    """How it compacted: manual (with its focus, or a masking's reason) or automatic, the
    emergency stage, the fallback's reason, and what was masked, moved or cut to make room (why
    it ran is the trigger, ``trigger_label``)."""
    parts = ["manual" if outcome.manual else "automatic"]
    if outcome.steering:
        parts[0] += f" · {_asked(outcome)}"
    if "emergency" in outcome.modes:
        parts.append("emergency stage")
    if outcome.fallback_reason:
        parts.append(f"fallback: {outcome.fallback_reason}")
    if outcome.edits:
        parts.append(_edit_counts(outcome.edits))
    return " · ".join(parts)


def generation_row(generation: ConversationGeneration, scale: int = 0) -> tuple[str, ...]:
    """The table row: number, time, trigger, health, stages, tokens before/after and their
    bars, model, fallback, reason (``scale``: the bars' common scale, see
    ``lineage_scale``)."""
    outcome = generation.outcome
    when = clock(generation.created_at or (outcome.at if outcome else None))
    if outcome is None:
        label = START if generation.id == 0 else "—"
        return (str(generation.id), when, "", "", label, "", "", "", "", "", "")
    return (
        str(generation.id),
        when,
        trigger_label(outcome.trigger),
        _health(outcome),
        _stages(outcome),
        count(outcome.before_tokens),
        count(outcome.after_tokens),
        token_bars(outcome, scale or max(outcome.before_tokens, outcome.after_tokens)),
        outcome.summary_model or "—",
        outcome.fallback_status or "—",
        generation_reason(outcome),
    )


def sizes_lines(outcome: CompactionOutcome) -> str:
    """A compaction's sizes, as the engine estimated them: the conversation before and after,
    and what the after is made of (the summary, the retained messages, the rest: context
    blocks, tools, replayed skills, framing); an outcome from an older log has no split."""
    lines = [f"before {count(outcome.before_tokens)} tok → after {count(outcome.after_tokens)} tok"]
    summary, retained = outcome.summary_tokens, outcome.retained_tokens
    if summary or retained:
        rest = outcome.after_tokens - summary - retained
        kept = counted(outcome.retained_count, "message")
        lines += [
            f"  summary {count(summary)} tok",
            f"  retained {count(retained)} tok ({kept})",
            f"  context blocks, tools, replayed skills, framing {count(rest)} tok",
        ]
    elif outcome.stage_count:
        lines.append("  (the summary's and the retained messages' sizes were not recorded)")
    return "\n".join(lines)


def edit_line(edit: RoomEdit) -> str:
    """One edit a compaction made to fit: what, where, bytes and tokens, where it is kept."""
    what = {
        "masked": "masked",
        "summarized": "moved into the summary",
        "cut": "cut",
        "omitted": "left out of the summary request",
    }.get(edit.kind, edit.kind)
    where = "" if edit.where == "retained" else " (summary request)"
    sizes = f"{count(edit.bytes_before)} → {count(edit.bytes_after)} B"
    tokens = f"{count(edit.tokens_before)} → {count(edit.tokens_after)} tok"
    line = f"{what}{where}: {edit.role} {edit.label} · turn {edit.turn} · {sizes} · {tokens}"
    if edit.saved_at:
        line += f" · whole output: {edit.saved_at}"
    return line


def generation_heading(generation: ConversationGeneration) -> str:
    """One line describing how the generation came to be (plain text, not markup)."""
    outcome = generation.outcome
    when = clock(generation.created_at or (outcome.at if outcome else None), date=True)
    if outcome is None:
        return f"Generation {generation.id} · {when} · start of the session"
    parts = [f"Generation {generation.id}", when, stage_label(outcome)]
    parts.append("manual" if outcome.manual else "automatic")
    parts.append(f"trigger: {outcome.trigger}" if outcome.trigger else trigger_label(""))
    parts.append(f"{count(outcome.before_tokens)} → {count(outcome.after_tokens)} tokens")
    parts.append(
        f"summarized {outcome.summarized_count}, retained {outcome.retained_count} at compaction"
    )
    if outcome.fallback_status:
        reason = f" ({outcome.fallback_reason})" if outcome.fallback_reason else ""
        parts.append(f"fallback {outcome.fallback_status}{reason}")
    if outcome.steering:
        parts.append(_asked(outcome))
    if outcome.edits:
        parts.append(f"to make room: {_edit_counts(outcome.edits)}")
    guidance = ""
    if outcome.health is not None:
        health = outcome.health
        guidance = health.guidance
        parts.append(f"health {health.state} ({health.severity}): {guidance}")
    parts.extend(note for note in outcome.notes if note not in guidance)  # said once
    return " · ".join(parts)


def build_generation_view(lineage: ConversationLineage, index: int) -> GenerationView:
    """The view of ``lineage.generations[index]``, with its diff against the one before."""
    generation = lineage.generations[index]
    previous = lineage.generations[index - 1] if index > 0 else None
    parts = generation_parts(generation)
    outcome = generation.outcome
    # What compaction retained is the head of the tail; what follows came after it ran.
    kept = len(parts.retained) if outcome is None else outcome.retained_count
    ledger = ArtifactLedger.parse(generation.summary)
    before = ArtifactLedger.parse(previous.summary) if previous is not None else ArtifactLedger()
    return GenerationView(
        generation=generation,
        parts=parts,
        previous_id=None if previous is None else previous.id,
        dropped=DroppedFacts() if previous is None else dropped_facts(previous, generation),
        heading=generation_heading(generation),
        pinned=pinned_labels(lineage, generation),
        retained=parts.retained[:kept],
        added=parts.retained[kept:],
        ledger=tuple(entry.line() for entry in ledger.entries),
        ledger_changes=ledger_changes(before, ledger),
    )


def pinned_labels(
    lineage: ConversationLineage, generation: ConversationGeneration
) -> tuple[str, ...]:
    """The labels of ``generation``'s messages that the conversation's pins name."""
    pinned = is_pinned_by(lineage.pins)
    messages = generation.messages
    return tuple(pin_label(m, messages[: i + 1]) for i, m in enumerate(messages) if pinned(m))
