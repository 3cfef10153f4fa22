"""Sentence classification for the offline summarizer: fixed word patterns, checked in order.

Each sentence or line lands in one section only, so the order of the checks is the policy:

1. an explicit marker at the start of the line wins: ``TODO:``, ``FIXME``, ``Next step:``,
   "Don't forget", "Remember to" make open work; ``Traceback``, ``SomeError:`` or ``FAILED``
   make a problem ("TODO: make sure to ..." is open work, not a preference);
2. a decision ("decided", "we'll use", "chose", "instead of", "going with", "agreed", ...);
3. a preference, for user sentences ("please always/never", "I prefer", "keep ... short", a
   sentence that starts with "Don't", "Never" or "Always", ...);
4. a problem ("error", "failed", "exception", "non-zero exit", "crash", "bug", ...);
5. open work ("next step", "still need to", "remaining work", "not yet", "pending", "not
   now", "later", "a separate PR", ...);
6. verification ("tests pass", "pytest", "verified", "acceptance", "must pass", ...);
7. a stated fact, for user sentences with a number in them that state something (three words or
   more, not a question, not starting with a request's verb: "Look at module 12" asks);
8. completed work, for assistant sentences ("I added", "is now", ...);
9. a finding, for assistant sentences that state something with a number, an identifier or
   an error code in it ("The retry limit is 3 attempts", "registered as LedgerHandler").

Filler (``filler.py``) is recognised before any of this and never gets a kind. The helpers at
the end find the exception line of a traceback and tell test commands from other commands.
"""

from __future__ import annotations

import re
from enum import Enum

from steiner_tui.providers.offline.filler import is_filler

__all__ = [
    "Kind",
    "classify_sentence",
    "is_error_line",
    "is_test_command",
    "is_traceback_noise",
]


class Kind(Enum):
    """What a sentence contributes to a summary."""

    PREFERENCE = "preference"
    DECISION = "decision"
    PROBLEM = "problem"
    TODO = "todo"
    VERIFICATION = "verification"
    FACT = "fact"
    DONE = "done"


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + pattern + r")\b", re.I)


_TODO_MARK = re.compile(
    r"^(?:todo|fixme|xxx)\b|"
    r"^(?:next steps?|remaining(?: work)?|still to do|follow[- ]ups?)\s*:|"
    r"^(?:please\s+)?(?:don't|do not) forget\b|^(?:please\s+)?remember to\b",
    re.I,
)


_ERROR_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b|\bFAILED\b")
"""An exception's name or pytest's FAILED anywhere: an error line in tool output."""


_PROBLEM_MARK = re.compile(
    r"^Traceback \(most recent call last\)|^(?:E\s+)?[\w.]*(?:Error|Exception)(?::|$)|"
    r"^FAILED\b|^(?:error|ERROR|fatal|FATAL|panic)\s*:|\berror(?:\[\w+\])?:|\bnpm ERR!|"
    r"\bnon-zero exit|\bexit(?:ed)? (?:code|status|with) [1-9]"
)
"""A line that states an error outright: it starts with the exception or says the exit code."""


_DECISION = _words(
    r"decid\w*|decision|we(?:'ll| will| are going to) (?:use|go with|keep|store|stick with|"
    r"switch to|ship|put|move to|drop|adopt)|"
    r"let's (?:use|go with|keep|switch|stick|store|ship)|"
    r"instead of|rather than|chose|chosen|choose to|going with|go with|settled on|agreed|"
    r"switch(?:ed)? to|stick with|opted"
)


_PREFERENCE_START = re.compile(r"^(?:please\s+)?(?:always|never|don't|do not|avoid)\b", re.I)


_PREFERENCE = _words(
    r"please (?:always|never|don't|do not|avoid|stop)|"
    r"i prefer|i'd prefer|i would prefer|i like|i want you to|i'd like you to|don't ever|"
    r"do not ever|make sure to|from now on|in (?:the )?future|style|"
    r"keep (?:\w+ ){0,3}(?:short|brief|concise|terse|small)|"
    r"i (?:review|merge|deploy|release) on \w+|on (?:mon|tues|wednes|thurs|fri)days"
)


_PROBLEM = _words(
    r"errors?|\w+error|\w+exception|exceptions?|traceback|fails?|failed|failing|failures?|"
    r"broken|crash\w*|bugs?|regression|doesn't work|does not work|non-zero"
)


_TODO = _words(
    r"todo|fixme|next steps?|next up|then next|remaining (?:work|tasks?|steps?|items?|issues?)|"
    r"what remains|still (?:need|needs|have|has) to|still to do|left to do|not yet|"
    r"follow[- ]up|pending|afterwards|not now|later|for now|another time|"
    r"separate (?:pr|pull request|change|commit|ticket|issue)"
)


_VERIFICATION = _words(
    r"acceptance|accepted when|done when|must pass|should pass|tests? (?:must|should|pass\w*)|"
    r"pytest|verify|verified|verification|all (?:tests )?(?:pass|green)|passes|passing"
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


_TRACEBACK_NOISE = re.compile(
    r"^(?:traceback \(most recent call last\):?|file \".*\", line \d+.*|\^+|~+|"
    r"during handling of the above exception.*|the above exception was the direct cause.*)$",
    re.I,
)


FACT_MIN_WORDS = 3
_ASKING_TEXT = (
    "add ask can change check could create delete did do does find fix give how implement is "
    "look make move open please put read refactor remove rename replace run set show start stop "
    "tell tidy try update use what when where which who why will would write"
)
_ASKING = frozenset(_ASKING_TEXT.split())
"""First words of requests and questions: a number in one is not a stated fact."""


_LATER = ((Kind.PROBLEM, _PROBLEM), (Kind.TODO, _TODO), (Kind.VERIFICATION, _VERIFICATION))
"""The checks after a preference, in order."""


def classify_sentence(sentence: str, *, by_user: bool) -> Kind | None:
    """The kind of ``sentence``, or ``None`` when it carries no summary-worthy fact.

    Args:
        sentence: one sentence or line, list markers already removed.
        by_user: user sentences may be preferences or stated facts; assistant sentences may
            report completed work instead.

    Returns:
        The first matching kind in the order of the module docstring; ``None`` for filler.
    """
    text = sentence.strip()
    if not text or is_filler(text):
        return None
    if _TODO_MARK.search(text):
        return Kind.TODO
    if _PROBLEM_MARK.search(text):
        return Kind.PROBLEM
    if _DECISION.search(text):
        return Kind.DECISION
    if by_user and (_PREFERENCE_START.search(text) or _PREFERENCE.search(text)):
        return Kind.PREFERENCE
    for kind, pattern in _LATER:
        if pattern.search(text):
            return kind
    if by_user and _NUMBER.search(text) and _states(text):
        return Kind.FACT
    if not by_user and _DONE.search(text):
        return Kind.DONE
    if not by_user and _states(text) and (_NUMBER.search(text) or _IDENTIFIER.search(text)):
        return Kind.FACT  # a finding: it names a number, an identifier or an error code
    return None


_IDENTIFIER = re.compile(
    r"`[^`]+`|\b[A-Z][a-z0-9]+[A-Z]\w*|\b[a-z0-9]+_[a-z0-9_]+\b|\b\w+\(\)|"
    r"\b[\w-]+\.(?:py|go|ts|js|rs|java|toml|json|ya?ml|md|sql|sh)\b"
)
"""A code identifier: backticked code, CamelCase, snake_case, a call, a file name."""


def _states(text: str) -> bool:
    """Whether ``text`` states something (three words or more, not a request or question)."""
    words = text.split()
    first = words[0].lower().strip(",.:;!\"'") if words else ""
    return len(words) >= FACT_MIN_WORDS and not text.endswith("?") and first not in _ASKING


def is_traceback_noise(line: str) -> bool:
    """Whether ``line`` is a traceback's header, frame or caret line (not its error line)."""
    return _TRACEBACK_NOISE.match(line.strip()) is not None


def is_error_line(line: str) -> bool:
    """Whether ``line`` states an error outright: ``XError: ...``, ``error: ...``, ``FAILED``."""
    text = line.strip()
    if not text or is_filler(text) or is_traceback_noise(text):
        return False
    return bool(_PROBLEM_MARK.search(text) or _ERROR_NAME.search(text))


def is_test_command(command: str) -> bool:
    """Whether a shell command verifies work (tests, linters, type checks)."""
    return _TEST_COMMAND.search(command) is not None
