"""Compaction: turns and retention, stages, summary requests, fallback, lineage, archive.

Modules, leaf first: ``turns`` (retention turns), ``retention`` (anchor, skill replay, pending
line, new conversation layout), ``reasons`` (fallback reason strings), ``triggers`` (why a
compaction ran, recorded in its outcome), ``lineage``
(generations; their outcomes are ``events.CompactionOutcome``), ``failures`` (the two
exceptions of a failed compaction), ``host`` (the protocol the runner implements and
``SummaryTarget``), ``summary_request`` (instruction, caps, isolation, empty summaries),
``archive`` (history note and deferred appends), ``history_render`` (``history.md`` Markdown),
``fallback`` (selection, LastMainRequest, memoized targets), ``escalation`` (stage counter,
health, replacement guard), ``stateful`` (usage-driven decisions for stateful providers),
``stage`` and ``stage_runner`` (one stage; normal then emergency), and ``operation``
(``compact_with_lineage``).
"""

from steiner_tui.engine.compaction.archive import (
    HISTORY_NOTE_MARKER,
    HistoryArchive,
    commit_history_archive,
    remove_history_note_lines,
    with_history_note,
)
from steiner_tui.engine.compaction.escalation import (
    CompactionCounter,
    compaction_health,
    replacement_refusal,
)
from steiner_tui.engine.compaction.failures import (
    CompactionCancelled,
    CompactionFailed,
    is_cancellation,
    lineage_after_failure,
)
from steiner_tui.engine.compaction.fallback import (
    CompactionFallback,
    CompactionFallbackTargets,
    LastMainRequest,
    compaction_cache_cold,
    seed_last_main_request,
    select_compaction_fallback,
)
from steiner_tui.engine.compaction.history_render import render_history
from steiner_tui.engine.compaction.host import CompactionHost, SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.compaction.operation import (
    CompactionEnv,
    CompactionResult,
    commit_compaction,
    compact_with_lineage,
    snapshot_tools,
)
from steiner_tui.engine.compaction.reasons import format_fallback_reason, go_duration_string
from steiner_tui.engine.compaction.retention import (
    anchor_real_user_retention,
    compose_compacted_conversation,
    render_pending_sub_agents_line,
    replayed_skill_message,
    strip_retained_skill_blocks,
)
from steiner_tui.engine.compaction.stateful import (
    STATEFUL_CAP_STOP_ERROR,
    ParentUsage,
    stateful_cap_stop,
)
from steiner_tui.engine.compaction.summary_request import (
    CompactionFallbackNotFit,
    EmptyCompactionSummary,
    compaction_instruction,
)
from steiner_tui.engine.compaction.turns import (
    retain_recent_turns,
    split_compaction_turns,
    split_for_retention,
)

__all__ = [
    "HISTORY_NOTE_MARKER",
    "STATEFUL_CAP_STOP_ERROR",
    "CompactionCancelled",
    "CompactionCounter",
    "CompactionEnv",
    "CompactionFailed",
    "CompactionFallback",
    "CompactionFallbackNotFit",
    "CompactionFallbackTargets",
    "CompactionHost",
    "CompactionResult",
    "ConversationGeneration",
    "ConversationLineage",
    "EmptyCompactionSummary",
    "HistoryArchive",
    "LastMainRequest",
    "ParentUsage",
    "SummaryResponse",
    "SummaryTarget",
    "anchor_real_user_retention",
    "commit_compaction",
    "commit_history_archive",
    "compact_with_lineage",
    "compaction_cache_cold",
    "compaction_health",
    "compaction_instruction",
    "compose_compacted_conversation",
    "format_fallback_reason",
    "go_duration_string",
    "is_cancellation",
    "lineage_after_failure",
    "remove_history_note_lines",
    "render_history",
    "render_pending_sub_agents_line",
    "replacement_refusal",
    "replayed_skill_message",
    "retain_recent_turns",
    "seed_last_main_request",
    "select_compaction_fallback",
    "snapshot_tools",
    "split_compaction_turns",
    "split_for_retention",
    "stateful_cap_stop",
    "strip_retained_skill_blocks",
    "with_history_note",
]
