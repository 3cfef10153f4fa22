"""The offline model: a deterministic, rule-based default that needs no key and no network.

It shows the agent loop on a real project (read-only tool calls, answers written from their
results, always labelled as not a language model) and answers compaction requests with an
extractive eight-section summary, so it is also a valid compaction fallback target.

The names are re-exported lazily (``steiner_tui.lazy_exports``): each is imported from its
module on first use, so importing one submodule (which runs this file first) does not load
the others.
"""

from typing import TYPE_CHECKING

from steiner_tui.lazy_exports import lazy_exports

if TYPE_CHECKING:
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

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "steiner_tui.providers.offline.answers": ("HONESTY_NOTE", "MAX_TOOL_ROUNDS"),
            "steiner_tui.providers.offline.markers": (
                "EMERGENCY_MARKER",
                "HISTORY_NOTE_MARKER",
                "SECTION_HEADINGS",
                "STEERING_MARKER",
                "SUMMARY_MARKER",
            ),
            "steiner_tui.providers.offline.provider": (
                "OFFLINE_ALIAS",
                "OFFLINE_MODEL",
                "OFFLINE_MODEL_INFO",
                "OfflineProvider",
            ),
            "steiner_tui.providers.offline.summarizer": (
                "extractive_summary",
                "is_compaction_request",
                "summarize_request",
            ),
        },
    )
