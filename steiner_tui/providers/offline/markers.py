"""The exact strings the offline model relies on to recognise compaction requests and summaries.

These are a contract with the compaction code and its templates: the section headings are the
summary body's (``templates/compaction_default_body.md.j2``); the emergency phrase must appear in
``templates/compaction_emergency.md.j2``; history note lines start with the engine's
``HISTORY_NOTE_MARKER`` and are dropped when a previous summary is carried forward (the engine
adds the current note). The marker and the steering header are the engine's own constants.

The offline model's own output is marked too: its answers end with the disclaimer that opens with
``OFFLINE_NOTE_MARKER`` and start with one of ``ANSWER_OPENINGS``, its tool calls have ids that
start with ``OWN_CALL_PREFIX``, its summaries open with ``SUMMARY_NOTE`` and say what the cap left
out after ``LEFT_OUT_MARKER``. The answer writers use these constants, and the summarizer uses
them (``is_own_reply``) so that the model never quotes itself as a source: no path from its
disclaimer, no echo of a user message as the assistant's, no scaffolding of an earlier summary.
"""

from __future__ import annotations

from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.summary_request import STEERING_HEADER
from steiner_tui.engine.messages import Message

__all__ = [
    "ANSWER_OPENINGS",
    "ECHO_OPENING",
    "EMERGENCY_MARKER",
    "HISTORY_NOTE_MARKER",
    "LEFT_OUT_MARKER",
    "LOOKED_FOR",
    "OFFLINE_NOTE_MARKER",
    "OVERVIEW_OPENING",
    "OWN_CALL_PREFIX",
    "SECTION_HEADINGS",
    "STEERING_MARKER",
    "SUMMARY_MARKER",
    "SUMMARY_NOTE",
    "is_own_reply",
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
"""Manual ``/compact`` steering follows this line in the instruction."""

OFFLINE_NOTE_MARKER = "_I am the offline model: fixed rules, not a language model."
"""Opens the disclaimer that ends every final answer of the offline model (``HONESTY_NOTE``)."""

ECHO_OPENING = 'You wrote: "'
"""Opens the offline model's reply to a message no rule matched: it quotes the message."""

LOOKED_FOR = "I looked for `"
"""Opens the offline model's answer about a file name it looked for in the whole project."""

OVERVIEW_OPENING = "Here is what the tools showed about the "
"""Opens the offline model's overview of the project or of one of its folders."""

ANSWER_OPENINGS: tuple[str, ...] = (
    ECHO_OPENING,
    LOOKED_FOR,
    "Your message was empty.",
    OVERVIEW_OPENING,
    "Here is what I read:",
    "Nothing was read.",
    "`grep` for `",
    "No search was run.",
)
"""How the offline model's answers begin (``writeup.py``); a reply cut before its disclaimer
still starts with one of these."""

OWN_CALL_PREFIX = "offline_"
"""The ids of the offline model's tool calls start with this."""

SUMMARY_NOTE = (
    "_Extractive summary written by the offline model (not a language model): "
    "bullets are quoted or condensed from the conversation._"
)
"""The first line of every offline summary."""

LEFT_OUT_MARKER = "_Left out to fit the summary cap:"
"""Opens the last line of a section whose entries did not all fit under the summary cap."""


def is_own_reply(message: Message) -> bool:
    """Whether ``message`` is an answer the offline model wrote (found by its markers).

    Its text is canned or derived from tool results (which the summarizer reads directly) or
    echoes the user, so it is never a source of facts; its tool calls still are.
    """
    if message.role != "assistant":
        return False
    content = message.content
    if OFFLINE_NOTE_MARKER in content or SUMMARY_NOTE in content:
        return True
    if content.startswith(ANSWER_OPENINGS):
        return True
    calls = message.tool_calls
    return bool(calls) and all(call.id.startswith(OWN_CALL_PREFIX) for call in calls)
