"""The exact strings the offline model relies on to recognise compaction requests and summaries.

These are a contract with the compaction code and its templates: the section headings come from
wire-formats "Compaction"; the emergency phrase must appear in
``templates/compaction_emergency.md.j2``; history note lines start with the engine's
``HISTORY_NOTE_MARKER`` and are dropped when a previous summary is carried forward (the engine
adds the current note). The marker and the steering header are the engine's own constants.
"""

from __future__ import annotations

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.summary_request import STEERING_HEADER

__all__ = [
    "EMERGENCY_MARKER",
    "HISTORY_NOTE_MARKER",
    "SECTION_HEADINGS",
    "STEERING_MARKER",
    "SUMMARY_MARKER",
]

SECTION_HEADINGS: tuple[str, ...] = (
    "## 1. Task and Goal",
    "## 2. Current Repository / Project State",
    "## 3. Work Completed",
    "## 4. Key Findings and Decisions",
    "## 5. Problems Encountered",
    "## 6. Remaining Work",
    "## 7. Verification and Acceptance",
    "## 8. User Preferences and Interaction Context",
)
"""The eight required summary headings, in order."""

SUMMARY_MARKER = SECTION_HEADINGS[0]
"""Text containing this is a summary (system role) or a summary instruction (last user message)."""

EMERGENCY_MARKER = "emergency compaction"
"""Matched case-insensitively in the instruction: the emergency template asks for a shorter one."""

STEERING_MARKER = STEERING_HEADER.strip()
"""Manual ``/compact`` steering follows this line in the instruction (wire-formats)."""
