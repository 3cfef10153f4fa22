"""When compaction runs by itself: the modes ``auto``, ``ask`` and ``off``, as data.

Before each main call the runner asks ``decide`` what the next request calls for:

* ``auto`` (the default): compact when the soft trigger or the hard fit says so (section 7);
* ``ask``: instead of compacting, ask the session's ``CompactionPolicy`` a
  ``CompactionQuestion``: compact now (with an optional focus), send anyway (offered only while
  the hard fit holds), or mask the largest tool results instead; a policy that cannot ask
  anyone (``HeadlessPolicy``, exec and oneshot) answers ``Refuse`` and the run stops with its
  message;
* ``off``: never compact by itself; warn once per generation as the prompt nears the hard fit
  (80% of the largest prompt that fits: ``nearing_hard_limit``), and stop with a clear
  message when the request does not fit.

The hard fit is never bypassed: in every mode a request that does not fit is never sent; it is
compacted first, or the run stops with a message saying why (docs/design.md, "7. The window:
soft trigger, hard fit, reserves").

The same policy answers a ``PinsQuestion`` when the pinned messages alone cannot fit
(``pins.PinsTooLarge``): unpin some (``Unpin``), or ``Refuse``.

The engine only says what is needed and what the answer means; how a person is asked (a prompt
in the conversation) is the app's, behind the ``CompactionPolicy`` protocol.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

import msgspec

from steiner_tui.engine.budget import FitResult, ModelTokenBudget
from steiner_tui.engine.compaction.pins import PinSize, PinsTooLarge
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.events import CompactionAsked
from steiner_tui.engine.messages import Message
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.utf8 import utf8_len

__all__ = [
    "AUTO_COMPACTION_MODES",
    "AutoCompaction",
    "CompactNow",
    "CompactionAnswer",
    "CompactionPolicy",
    "CompactionQuestion",
    "HeadlessPolicy",
    "MaskCandidate",
    "MaskLargest",
    "PinsAnswer",
    "PinsQuestion",
    "QuestionReason",
    "Refuse",
    "SendAnyway",
    "TurnAction",
    "Unpin",
    "asked_event",
    "decide",
    "largest_tool_results",
    "mask_needed",
    "off_stop_message",
    "off_warning",
    "question_for",
]

AutoCompaction = Literal["auto", "ask", "off"]
"""The compaction mode: compact by itself, ask first, or never by itself."""
AUTO_COMPACTION_MODES: tuple[str, ...] = typing.get_args(AutoCompaction)

TurnAction = Literal["send", "compact", "ask", "stop"]
"""What the next request calls for (``decide``)."""

QuestionReason = Literal["soft_trigger", "over_window", "too_large"]
"""Why a question is asked: the soft trigger was reached, the request does not fit the hard
fit, or the provider rejected the last request as too large."""

_NEAR_PERCENT = 80
"""``off`` warns once the prompt reaches this share of the largest prompt that fits."""
_MIN_MASK_BYTES = 1024


def decide(mode: AutoCompaction, *, reached_soft: bool, fits: bool, forced: bool) -> TurnAction:
    """What the next request calls for.

    Args:
        mode: the compaction mode.
        reached_soft: the prompt reached the soft trigger (a stateful provider: its usage
            calls for compaction).
        fits: the request passes the hard fit (a stateful provider: below the cap).
        forced: the provider rejected the last request as too large.

    Returns:
        ``send`` when nothing is needed, or ``off`` with a request that fits; ``compact`` in
        ``auto``; ``ask`` in ``ask``; ``stop`` in ``off`` when the request cannot be sent.
    """
    if not (reached_soft or forced or not fits):
        return "send"
    if mode == "auto":
        return "compact"
    if mode == "ask":
        return "ask"
    return "send" if fits and not forced else "stop"


def nearing_hard_limit(prompt_tokens: int, largest_fitting: int) -> bool:
    """The prompt reached 80% of the largest prompt the hard fit allows (the window less
    the completion reserve and the safety margin): ``off`` warns then."""
    return largest_fitting > 0 and prompt_tokens * 100 >= largest_fitting * _NEAR_PERCENT


class MaskCandidate(msgspec.Struct, frozen=True):
    """A tool result that "mask the largest tool results" would mask."""

    call_id: str
    label: str
    turn: int
    tokens: int


def largest_tool_results(
    messages: Sequence[Message],
    tokens_of: Callable[[Message], int],
    pinned: Callable[[Message], bool],
    needed: int,
) -> tuple[MaskCandidate, ...]:
    """The tool results to mask, largest first, until they free ``needed`` tokens (all of
    the maskable ones when they cannot). Pinned, already masked and small (under 1 KB)
    results are never chosen."""
    calls = {call.id: call for m in messages for call in m.tool_calls}
    found: list[MaskCandidate] = []
    for message in messages:
        if (
            message.role != "tool"
            or pinned(message)
            or message.content.startswith(MASK_PREFIX)
            or utf8_len(message.content) < _MIN_MASK_BYTES
        ):
            continue
        call = calls.get(message.tool_call_id)
        label = summarize_tool_call(call) if call is not None else message.name or "tool"
        found.append(MaskCandidate(message.tool_call_id, label, message.turn, tokens_of(message)))
    found.sort(key=lambda candidate: candidate.tokens, reverse=True)
    chosen: list[MaskCandidate] = []
    freed = 0
    for candidate in found:
        if freed >= needed > 0:
            break
        chosen.append(candidate)
        freed += candidate.tokens
    return tuple(chosen)


class CompactionQuestion(msgspec.Struct, frozen=True):
    """What ``ask`` asks before the next request.

    Attributes:
        reason: why (``soft_trigger``, ``over_window``, ``too_large``).
        prompt_tokens: the next request's estimated prompt.
        soft_threshold: the soft trigger.
        hard_limit: the window less the safety margin.
        context_size: the window.
        can_send: "send anyway" is offered (the hard fit holds and the provider did not reject
            the request as too large).
        maskable: what "mask the largest tool results" would mask (empty: not offered).
        reserve: the tokens kept for the reply (a prompt under the window can still not fit).
    """

    reason: QuestionReason
    prompt_tokens: int
    soft_threshold: int
    hard_limit: int
    context_size: int
    can_send: bool
    maskable: tuple[MaskCandidate, ...] = ()
    reserve: int = 0

    @property
    def mask_saves(self) -> int:
        """About how many tokens masking would free."""
        return sum(candidate.tokens for candidate in self.maskable)

    def text(self) -> str:
        """The question, in words (the prompt in the conversation, exec's message)."""
        why = {
            "soft_trigger": f"reached the soft trigger ({self.soft_threshold:,})",
            "over_window": f"does not fit the window ({self.context_size:,})"
            + (f" with {self.reserve:,} kept for the reply" if self.reserve else ""),
            "too_large": "was rejected by the provider as too large for the window",
        }[self.reason]
        return f"The next request (~{self.prompt_tokens:,} prompt tokens) {why}."


class CompactNow(msgspec.Struct, frozen=True):
    """Compact now; ``focus`` steers the summary as ``/compact <focus>`` does."""

    focus: str = ""


class SendAnyway(msgspec.Struct, frozen=True):
    """Send the request as it is (only while the hard fit holds)."""


class MaskLargest(msgspec.Struct, frozen=True):
    """Mask the question's ``maskable`` tool results instead (a new generation)."""


class Refuse(msgspec.Struct, frozen=True):
    """No answer: the run stops with ``message``."""

    message: str


CompactionAnswer = CompactNow | SendAnyway | MaskLargest | Refuse


class PinsQuestion(msgspec.Struct, frozen=True):
    """The pinned messages alone cannot fit: which to unpin?"""

    pins: tuple[PinSize, ...]
    pinned_tokens: int
    limit: int
    message: str

    @classmethod
    def of(cls, error: PinsTooLarge) -> PinsQuestion:
        """The question a ``PinsTooLarge`` failure asks."""
        return cls(error.pins, error.pinned_tokens, error.limit, str(error))


class Unpin(msgspec.Struct, frozen=True):
    """Unpin these keys, then compact again."""

    keys: tuple[str, ...]


PinsAnswer = Unpin | Refuse


class CompactionPolicy(Protocol):
    """Who answers when compaction needs a person (the app: a prompt in the conversation)."""

    async def ask(self, question: CompactionQuestion) -> CompactionAnswer:
        """The answer to ``question`` (``ask`` mode)."""

    async def ask_unpin(self, question: PinsQuestion) -> PinsAnswer:
        """Which pins to drop when the pins alone cannot fit."""


def _headless_ask_message(question: CompactionQuestion) -> str:
    options = "--compaction auto to compact by itself"
    if question.can_send:
        options += ", or --compaction off to send requests while they fit"
    return (
        f"compaction mode is ask, and nobody can answer here: {question.text()} Run with {options}."
    )


class HeadlessPolicy(msgspec.Struct, frozen=True):
    """The policy of runs with nobody to ask (exec, oneshot, sub-agents): every question is
    refused with a message saying what to do instead."""

    async def ask(self, question: CompactionQuestion) -> CompactionAnswer:
        return Refuse(_headless_ask_message(question))

    async def ask_unpin(self, question: PinsQuestion) -> PinsAnswer:
        return Refuse(question.message)


def off_stop_message(base: str) -> str:
    """The error when ``off`` meets a request that does not fit: ``base`` (the window error)
    and what to do."""
    return f"{base}; compaction is off: /compact, or compaction mode auto or ask, makes room"


def mask_needed(budget: ModelTokenBudget, prompt_tokens: int, fit: FitResult) -> int:
    """How many tokens masking must free: back under the soft trigger, and into the fit."""
    return max(prompt_tokens - budget.soft_threshold + 1, fit.overflow, 1)


def question_for(
    budget: ModelTokenBudget,
    prompt_tokens: int,
    *,
    fits: bool,
    forced: bool,
    maskable: tuple[MaskCandidate, ...],
    reserve: int = 0,
) -> CompactionQuestion:
    """The question ``ask`` asks about a request of ``prompt_tokens`` (``fits``: the hard fit
    holds; ``forced``: the provider rejected the last request as too large; ``reserve``: the
    tokens kept for the reply)."""
    reason: QuestionReason = "soft_trigger" if fits else "over_window"
    if forced:
        reason = "too_large"
    return CompactionQuestion(
        reason,
        prompt_tokens,
        budget.soft_threshold,
        budget.hard_limit,
        budget.context_size,
        can_send=fits and not forced,
        maskable=maskable,
        reserve=reserve,
    )


def answer_name(answer: CompactionAnswer) -> str:
    """``compact``, ``send``, ``mask`` or ``refused``."""
    if isinstance(answer, CompactNow):
        return "compact"
    if isinstance(answer, SendAnyway):
        return "send"
    if isinstance(answer, MaskLargest):
        return "mask"
    return "refused"


def asked_event(question: CompactionQuestion, answer: CompactionAnswer) -> CompactionAsked:
    """The event that records a question and its answer."""
    focus = answer.focus if isinstance(answer, CompactNow) else ""
    return CompactionAsked(
        question.reason, question.prompt_tokens, question.soft_threshold, answer_name(answer), focus
    )


def off_warning(budget: ModelTokenBudget, prompt_tokens: int, fit: FitResult) -> str:
    """``off`` mode's warning when the request nears the hard fit ("" when it does not)."""
    largest = budget.context_size - fit.reserve - fit.safety_margin
    if not nearing_hard_limit(prompt_tokens, largest):
        return ""
    share = prompt_tokens * 100 // largest
    return (
        f"compaction is off and the next request takes ~{prompt_tokens:,} prompt tokens, "
        f"{share}% of the most that fits ({largest:,}); a request that does not fit is not "
        "sent: /compact, or compaction mode auto or ask, makes room"
    )
