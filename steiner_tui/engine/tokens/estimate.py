"""The result of a token estimate, and the character heuristic.

Every fit check, snapshot and budget panel speaks in ``TokenEstimate``: the calibrated figure the
engine acts on (``tokens``), the tokenizer's own figure kept for diagnostics (``raw_tokens``), how
it was obtained (``strategy``) and how far to trust it (``confidence``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = [
    "Confidence",
    "Strategy",
    "TokenEstimate",
    "heuristic_tokens",
]

Strategy = Literal["tiktoken", "ctok", "heuristic", "provider_usage"]
Confidence = Literal["low", "medium", "high"]
STRATEGIES: tuple[Strategy, ...] = ("tiktoken", "ctok", "heuristic", "provider_usage")
CONFIDENCES: tuple[Confidence, ...] = ("low", "medium", "high")


class TokenEstimate(msgspec.Struct, frozen=True):
    """A prompt's estimated size.

    ``tokens`` is calibrated (fit checks use it); ``raw_tokens`` is the base estimate before
    calibration (events and diagnostics show it).
    """

    tokens: int
    raw_tokens: int
    strategy: Strategy
    confidence: Confidence


def heuristic_tokens(text_chars: int) -> int:
    """The character heuristic: ``8 + (chars + 3) // 4``.

    Args:
        text_chars: Number of characters (code points) of the text.

    Returns:
        The estimated token count.
    """
    return 8 + (text_chars + 3) // 4
