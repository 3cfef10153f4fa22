"""Execution-mode notices: the optional line that opens a user message when the mode changes.

A notice counts only at the very start of a message and only when ``\\n\\n`` follows it; the
detected prefix includes those two newlines, so ``prefix + rest`` always rebuilds the message.
The two strings are part of what was sent to the model, so they must never change
(docs/design.md, "3. Skill envelopes and mode notices").
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BUILD_MODE_NOTICE",
    "MODE_NOTICES",
    "PLAN_MODE_NOTICE",
    "detect_mode_notice",
    "mode_notice",
    "strip_mode_notice",
]

PLAN_MODE_NOTICE: Final = (
    "[execution mode: plan] Plan mode. Project edits are restricted; plan artifacts may be "
    "written under .steiner/plans/. Discuss proposals in conversation, do not edit while "
    "requirements are moving, and write a handoff plan only when ready."
)
BUILD_MODE_NOTICE: Final = "[execution mode: build] Build mode. Normal workspace editing."
MODE_NOTICES: Final[dict[str, str]] = {"plan": PLAN_MODE_NOTICE, "build": BUILD_MODE_NOTICE}
"""Mode name -> notice text."""

_PREFIXES: Final = tuple(notice + "\n\n" for notice in MODE_NOTICES.values())


def mode_notice(mode: str) -> str:
    """The notice for ``mode`` (``"plan"`` or ``"build"``); ``""`` for anything else."""
    return MODE_NOTICES.get(mode, "")


def detect_mode_notice(content: str) -> str:
    """The leading mode-notice prefix of ``content`` including its ``\\n\\n``, or ``""``."""
    for prefix in _PREFIXES:
        if content.startswith(prefix):
            return prefix
    return ""


def strip_mode_notice(content: str) -> str:
    """``content`` without its leading mode-notice prefix (unchanged when it has none)."""
    return content[len(detect_mode_notice(content)) :]
