"""Why a compaction ran: the trigger each generation records (docs/design.md, "8. Compaction:
turns, stages and the summary", "The outcome").

The runner knows why it compacts before a request: the prompt reached the soft trigger, the
request failed the hard fit, or the provider rejected the last request as too large; in ``ask``
mode the person answered *compact now* (or *mask*) to one of those. A manual ``/compact`` and
masking from the cost ranking are their own triggers. The trigger is a plain string so logs
stay readable; a generation from a log written before triggers were recorded has ``""``, shown
as ``NOT_RECORDED``.
"""

from __future__ import annotations

__all__ = [
    "ASK_COMPACT",
    "ASK_MASK",
    "CONTEXT_LENGTH",
    "HARD_FIT",
    "MANUAL",
    "MASK_ON_REQUEST",
    "NOT_RECORDED",
    "SOFT_THRESHOLD",
    "asked",
    "request_trigger",
    "trigger_label",
]

SOFT_THRESHOLD = "soft threshold"
"""The prompt reached the soft trigger (a stateful provider: its reported usage did)."""
HARD_FIT = "hard fit"
"""The request did not pass the hard fit (a stateful provider: it reached the cap)."""
CONTEXT_LENGTH = "provider context_length"
"""The provider rejected the last request as too large for the model's window."""
MANUAL = "manual /compact"
"""The person ran ``/compact`` (or the palette's compact command)."""
MASK_ON_REQUEST = "mask on request"
"""The person masked tool results from the cost ranking."""
ASK_COMPACT = "ask: compact now"
"""``ask`` mode: the person answered *compact now*."""
ASK_MASK = "ask: mask the largest tool results"
"""``ask`` mode: the person answered *mask the largest tool results*."""
NOT_RECORDED = "trigger not recorded"
"""What a generation from an older log shows in place of its trigger."""


def request_trigger(*, reached_soft: bool, fits: bool, forced: bool) -> str:
    """Why the next request calls for compaction, the strongest reason first (the arguments
    of ``policy.decide``); ``""`` when it does not."""
    if forced:
        return CONTEXT_LENGTH
    if not fits:
        return HARD_FIT
    return SOFT_THRESHOLD if reached_soft else ""


def asked(answer: str, cause: str) -> str:
    """An ``ask`` answer's trigger with the reason the question was asked:
    ``ask: compact now (hard fit)``."""
    return f"{answer} ({cause})" if cause else answer


def trigger_label(trigger: str) -> str:
    """The trigger as shown: itself, or ``NOT_RECORDED`` for an older generation."""
    return trigger or NOT_RECORDED
