"""The offline model: a deterministic, rule-based default that needs no key and no network.

It shows the agent loop on a real project (read-only tool calls, answers written from their
results, always labelled as not a language model) and answers compaction requests with an
extractive eight-section summary, so it is also a valid compaction fallback target.
"""

from steiner_tui.providers.offline.answers import HONESTY_NOTE, MAX_TOOL_ROUNDS
from steiner_tui.providers.offline.markers import (
    EMERGENCY_MARKER,
    HISTORY_NOTE_MARKER,
    SECTION_HEADINGS,
    STEERING_MARKER,
    SUMMARY_MARKER,
)
from steiner_tui.providers.offline.provider import (
    OFFLINE_ALIAS,
    OFFLINE_MODEL,
    OFFLINE_MODEL_INFO,
    OfflineProvider,
)
from steiner_tui.providers.offline.summarizer import (
    extractive_summary,
    is_compaction_request,
    summarize_request,
)

__all__ = [
    "EMERGENCY_MARKER",
    "HISTORY_NOTE_MARKER",
    "HONESTY_NOTE",
    "MAX_TOOL_ROUNDS",
    "OFFLINE_ALIAS",
    "OFFLINE_MODEL",
    "OFFLINE_MODEL_INFO",
    "SECTION_HEADINGS",
    "STEERING_MARKER",
    "SUMMARY_MARKER",
    "OfflineProvider",
    "extractive_summary",
    "is_compaction_request",
    "summarize_request",
]
