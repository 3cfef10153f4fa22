"""Sentence classification for the offline summarizer: fixed word patterns, checked in order.

A user sentence is a preference, a decision, a problem, open work, an acceptance criterion, or a
stated fact (it contains a number); an assistant sentence can also report completed work. The
first matching kind wins, so each sentence lands in one section only.
"""

from __future__ import annotations

import re
from enum import Enum

__all__ = ["Kind", "classify_sentence", "is_test_command"]


class Kind(Enum):
    """What a sentence contributes to a summary."""

    PREFERENCE = "preference"
    DECISION = "decision"
    PROBLEM = "problem"
    TODO = "todo"
    ACCEPTANCE = "acceptance"
    FACT = "fact"
    DONE = "done"


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + pattern + r")\b", re.I)


_PREFERENCE = _words(
    r"i prefer|i'd prefer|i would prefer|i like|i want you to|i'd like you to|always|never|"
    r"please don't|please do not|please avoid|don't ever|do not ever|make sure to|from now on|"
    r"in future|in the future|keep (?:it|answers|replies|responses) (?:short|brief|concise)|style"
)
_DECISION = _words(
    r"decid\w*|we will|we'll|let's (?:use|go with|keep|switch|stick)|instead of|prefer\w*|"
    r"chose|choose|chosen|going with|settled on|agreed|switch(?:ed)? to|stick with"
)
_PROBLEM = _words(
    r"errors?|exceptions?|traceback|fails?|failed|failing|failures?|broken|crash\w*|bugs?"
)
_TODO = _words(
    r"todo|fixme|next steps?|next up|then next|remaining (?:work|tasks?|steps?|items?|issues?)|"
    r"what remains|still needs?|still to do|left to do|"
    r"not yet|follow[- ]up|pending|afterwards"
)
_ACCEPTANCE = _words(
    r"acceptance|accepted when|done when|must pass|should pass|tests? (?:must|should)|verify|"
    r"verified|verification|all (?:tests )?(?:pass|green)"
)
_DONE = re.compile(
    r"\bi(?:'ve| have)? (?:added|fixed|implemented|created|updated|refactored|removed|wrote|"
    r"changed|renamed|moved|replaced)\b|\b(?:is|are) now\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w./-])\d[\d,.:]*(?![\w/])")
_TEST_COMMAND = _words(
    r"pytest|test|tests|ruff|mypy|lint|check|tox|nox|jest|vitest|cargo test|go test"
)

_ORDER: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (Kind.DECISION, _DECISION),
    (Kind.PROBLEM, _PROBLEM),
    (Kind.TODO, _TODO),
    (Kind.ACCEPTANCE, _ACCEPTANCE),
)


def classify_sentence(sentence: str, *, by_user: bool) -> Kind | None:
    """The kind of ``sentence``, or ``None`` when it carries no summary-worthy fact.

    Args:
        sentence: one sentence or line.
        by_user: user sentences may be preferences or stated facts; assistant sentences may
            report completed work instead.

    Returns:
        The first matching kind in the fixed order.
    """
    if by_user and _PREFERENCE.search(sentence):
        return Kind.PREFERENCE
    for kind, pattern in _ORDER:
        if pattern.search(sentence):
            return kind
    if by_user and _NUMBER.search(sentence):
        return Kind.FACT
    if not by_user and _DONE.search(sentence):
        return Kind.DONE
    return None


def is_test_command(command: str) -> bool:
    """Whether a shell command verifies work (tests, linters, type checks)."""
    return _TEST_COMMAND.search(command) is not None
