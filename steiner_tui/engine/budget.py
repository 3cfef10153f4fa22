"""Token budget arithmetic: safety margin, soft trigger, hard fit, reserves and summary caps.

Two limits decide compaction: the *soft trigger* (``compaction_threshold_tokens`` when set, else
70% of the window) and the *hard fit* (calibrated prompt + completion reserve + safety margin
must fit the context). Integer arithmetic throughout: "usage >= 70%" is
``prompt * 10 >= context * 7``, exactly the ratio test without float error (docs/design.md,
"7. The window: soft trigger, hard fit, reserves").
Escalation after compaction (info / warning / critical) lives here too, since it is a budget
judgement.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from steiner_tui.engine.models import DEFAULT_MAX_OUTPUT_TOKENS
from steiner_tui.engine.provider import ModelInfo

__all__ = [
    "INEFFECTIVE_PERCENT",
    "MAX_TOKENS_KEYS",
    "CompactionMode",
    "FitResult",
    "HealthState",
    "ModelTokenBudget",
    "Severity",
    "compaction_escalation",
    "derive_summary_max_tokens",
    "escalation_guidance",
    "explicit_max_tokens_value",
    "hard_limit_tokens",
    "safety_margin_tokens",
    "should_compact_prompt",
    "soft_threshold_tokens",
    "summary_max_tokens",
    "threshold_problem",
]

SOFT_TRIGGER_PERCENT = 70
RELIEF_PERCENT = 60
"""A compaction aims to leave the prompt at or under this share of the soft trigger."""
INEFFECTIVE_PERCENT = 20
"""A compaction that frees less than this share of the prompt is recorded as ineffective."""
NORMAL_SUMMARY = (8, 6144, 20480)
"""Normal summary cap: (percent of the window, minimum, maximum)."""
EMERGENCY_SUMMARY = (4, 3072, 10240)
"""Emergency summary cap: (percent of the window, minimum, maximum)."""
MAX_TOKENS_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")

CompactionMode = Literal["normal", "emergency"]


def safety_margin_tokens(context_window: int) -> int:
    """``clamp(context_window // 100, 256, 2048)``."""
    return min(max(context_window // 100, 256), 2048)


def hard_limit_tokens(context_window: int) -> int:
    """The largest prompt that never forces compaction: window minus safety margin."""
    return context_window - safety_margin_tokens(context_window)


def _threshold_applies(threshold_tokens: int | None, context_size: int) -> bool:
    return threshold_tokens is not None and 0 < threshold_tokens < context_size


def soft_threshold_tokens(context_window: int, threshold_tokens: int | None = None) -> int:
    """The smallest prompt that reaches the soft trigger.

    ``threshold_tokens`` when it is positive and below the window; otherwise 70% of the window
    rounded up, so ``prompt >= result`` is the same test as ``prompt / window >= 0.7``.
    """
    if threshold_tokens is not None and _threshold_applies(threshold_tokens, context_window):
        return threshold_tokens
    return -(-context_window * SOFT_TRIGGER_PERCENT // 100)


def should_compact_prompt(
    prompt_tokens: int, context_size: int, safety_margin: int, threshold_tokens: int | None = None
) -> bool:
    """Whether an estimated prompt calls for compaction.

    Args:
        prompt_tokens: The calibrated prompt estimate.
        context_size: The model's context window; 0 or less means unknown (never compact).
        safety_margin: Tokens kept free below the window.
        threshold_tokens: ``compaction_threshold_tokens``; used only when positive and below
            ``context_size`` (None or 0 mean unset), else the 70% trigger applies.

    Returns:
        True when the prompt is over the hard limit or at/over the soft trigger.
    """
    if context_size <= 0:
        return False
    if prompt_tokens > context_size - safety_margin:
        return True
    if threshold_tokens is not None and _threshold_applies(threshold_tokens, context_size):
        return prompt_tokens >= threshold_tokens
    return prompt_tokens * 100 >= context_size * SOFT_TRIGGER_PERCENT


def threshold_problem(threshold_tokens: int | None, context_window: int) -> str:
    """Why ``compaction_threshold_tokens`` cannot stand against ``context_window``, as the
    config and the model (a window learned from a server) both report it; "" when it is
    unset, below the window, or the window is unknown (0)."""
    if threshold_tokens is None or context_window <= 0 or threshold_tokens < context_window:
        return ""
    return (
        f"compaction_threshold_tokens ({threshold_tokens}) must be below the context window "
        f"({context_window})"
    )


def derive_summary_max_tokens(
    context_window: int, max_output: int, percent: int, low: int, high: int
) -> int:
    """``clamp(context_window * percent // 100, low, high)``, then at most ``max_output``.

    A ``max_output`` of 0 or less means unknown: no cap, nothing substituted.
    """
    cap = min(max(context_window * percent // 100, low), high)
    return min(cap, max_output) if max_output > 0 else cap


def summary_max_tokens(mode: CompactionMode, context_window: int, max_output: int) -> int:
    """The summary output cap of a compaction stage (``normal`` or ``emergency``)."""
    percent, low, high = NORMAL_SUMMARY if mode == "normal" else EMERGENCY_SUMMARY
    return derive_summary_max_tokens(context_window, max_output, percent, low, high)


def _positive_int(value: Any) -> int:
    # JSON numbers arrive as int or float; bools and strings are not limits.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if isinstance(value, float) and not value.is_integer():
        return 0
    return int(value) if value > 0 else 0


def explicit_max_tokens_value(
    max_tokens: int | None,
    extra_params: Mapping[str, Any] | None = None,
    params: Mapping[str, Any] | None = None,
) -> int:
    """The first positive explicit output limit, or 0 when there is none.

    Order: ``max_tokens``; then the ``max_tokens``, ``max_completion_tokens`` and
    ``max_output_tokens`` keys of ``extra_params``; then the same keys of ``params``. Values
    must be whole numbers (a JSON ``4096.0`` counts; ``"4096"`` or ``true`` do not).
    """
    first = _positive_int(max_tokens)
    if first:
        return first
    for mapping in (extra_params, params):
        if not mapping:  # the usual case; asked several times a request
            continue
        for key in MAX_TOKENS_KEYS:
            value = _positive_int(mapping.get(key))
            if value:
                return value
    return 0


class FitResult(msgspec.Struct, frozen=True):
    """Whether a request fits: prompt + reserve + safety margin against the context size."""

    fits: bool
    prompt_tokens: int
    reserve: int
    """The completion reserve used: the request's ``max_tokens``."""
    safety_margin: int
    overflow: int
    """Tokens over the context size (0 when the request fits)."""

    @property
    def total(self) -> int:
        """Prompt + reserve + safety margin."""
        return self.prompt_tokens + self.reserve + self.safety_margin


class ModelTokenBudget(msgspec.Struct, frozen=True):
    """One model's token budget.

    ``completion_reserve`` is the configured reserve; 0 means unset, in which case the model's
    max output (or ``DEFAULT_MAX_OUTPUT_TOKENS`` when that is unknown) is reserved, clamped to
    the room the prompt leaves (see ``fit_request``). ``threshold_tokens`` is the validated
    ``compaction_threshold_tokens`` (None when unset).
    """

    context_size: int
    max_output: int = DEFAULT_MAX_OUTPUT_TOKENS
    completion_reserve: int = 0
    threshold_tokens: int | None = None

    @classmethod
    def for_model(
        cls, info: ModelInfo, *, completion_reserve: int = 0, threshold_tokens: int | None = None
    ) -> ModelTokenBudget:
        """The budget of a (possibly config-overridden) ``ModelInfo``."""
        return cls(info.context_window, info.max_output, completion_reserve, threshold_tokens)

    @property
    def safety_margin(self) -> int:
        return safety_margin_tokens(self.context_size)

    @property
    def hard_limit(self) -> int:
        return self.context_size - self.safety_margin

    @property
    def soft_threshold(self) -> int:
        return soft_threshold_tokens(self.context_size, self.threshold_tokens)

    @property
    def relief_target(self) -> int:
        """The prompt a compaction aims to stay under: ``RELIEF_PERCENT`` of the soft trigger
        (a prompt left just under the trigger compacts again at the next tool result)."""
        return self.soft_threshold * RELIEF_PERCENT // 100

    def should_compact(self, prompt_tokens: int) -> bool:
        """``should_compact_prompt`` with this budget's window, margin and threshold."""
        return should_compact_prompt(
            prompt_tokens, self.context_size, self.safety_margin, self.threshold_tokens
        )

    def fit_request(self, prompt_tokens: int, explicit_max: int = 0) -> FitResult:
        """Fit a normal request.

        Args:
            prompt_tokens: The calibrated prompt estimate.
            explicit_max: ``explicit_max_tokens_value`` of the request (0 when none).

        Returns:
            The fit. The reserve starts as the configured reserve, else the model's max output
            (0 when both are unknown: the reserve is unset). An explicit value lowers it when
            smaller and sets it when it is unset, never raises it. With no explicit value a
            configured reserve is kept as is, and the max output is clamped to the room left
            after prompt and margin, never below ``min(max output, DEFAULT_MAX_OUTPUT_TOKENS)``;
            an unknown max output reserves ``DEFAULT_MAX_OUTPUT_TOKENS``. A context size of 0
            or less is unknown: it fits.
        """
        margin = self.safety_margin
        if explicit_max > 0:
            reserve = self.completion_reserve or max(self.max_output, 0)
            if reserve <= 0 or explicit_max < reserve:
                reserve = explicit_max
        elif self.completion_reserve > 0:
            reserve = self.completion_reserve
        else:
            wanted = self.max_output if self.max_output > 0 else DEFAULT_MAX_OUTPUT_TOKENS
            room = self.context_size - prompt_tokens - margin
            floor = min(wanted, DEFAULT_MAX_OUTPUT_TOKENS)
            reserve = wanted if self.context_size <= 0 else max(floor, min(wanted, room))
        return self._fit(prompt_tokens, reserve, margin)

    def summary_reserve(self, mode: CompactionMode) -> int:
        """The summary output cap for ``mode``: a compaction request's own reserve."""
        return summary_max_tokens(mode, self.context_size, self.max_output)

    def fit_compaction_request(
        self, prompt_tokens: int, mode: CompactionMode = "normal"
    ) -> FitResult:
        """Fit a compaction summary request.

        Its reserve is the summary cap (``summary_reserve``), which is also the summary
        request's ``max_tokens``; configured reserves and explicit limits do not apply.
        """
        return self._fit(prompt_tokens, self.summary_reserve(mode), self.safety_margin)

    def _fit(self, prompt_tokens: int, reserve: int, margin: int) -> FitResult:
        if self.context_size <= 0:
            return FitResult(True, prompt_tokens, reserve, margin, 0)
        overflow = max(0, prompt_tokens + reserve + margin - self.context_size)
        return FitResult(overflow == 0, prompt_tokens, reserve, margin, overflow)


Severity = Literal["info", "warning", "critical"]
HealthState = Literal["stable", "fragile", "likely_lossy", "over_window"]

COMPACTION_WARNING_THRESHOLD = 2
COMPACTION_CRITICAL_THRESHOLD = 3

ESCALATION_GUIDANCE: Mapping[str, str] = {
    "stable": "continue, but watch for another compaction",
    "fragile": "restart soon in a fresh session; repeated compaction is making retention fragile",
    "likely_lossy": "restart now in a new session; retained context is likely to be lossy",
    "over_window": "the next request cannot fit the model's window; /compact, /clear or a new "
    "session lets you go on",
}
"""Guidance per health state (info/stable, warning/fragile and critical/likely_lossy pair up)."""

_STATE_OF_SEVERITY = {"info": "stable", "warning": "fragile", "critical": "likely_lossy"}


def compaction_escalation(
    stage_count: int, prompt_tokens: int, hard_limit_tokens: int
) -> tuple[Severity, HealthState]:
    """The health after compaction: ``(severity, state)``.

    Args:
        stage_count: Applied compaction stages in this run (a two-stage compaction counts 2).
        prompt_tokens: The estimated prompt after compaction.
        hard_limit_tokens: Context size minus safety margin.

    Returns:
        Below 2 stages ``("info", "stable")``, or ``("warning", "fragile")`` when fragile; at 2
        ``("warning", "fragile")``, or ``("critical", "likely_lossy")`` when fragile; from 3
        ``("critical", "likely_lossy")``. Fragile: the prompt exceeds the hard limit by at least
        20% of it (exact integer test; a hard limit of 0 or less is never fragile).
    """
    fragile = hard_limit_tokens > 0 and (prompt_tokens - hard_limit_tokens) * 5 >= hard_limit_tokens
    if stage_count >= COMPACTION_CRITICAL_THRESHOLD:
        return ("critical", "likely_lossy")
    if stage_count == COMPACTION_WARNING_THRESHOLD:
        return ("critical", "likely_lossy") if fragile else ("warning", "fragile")
    return ("warning", "fragile") if fragile else ("info", "stable")


def escalation_guidance(state: str) -> str:
    """The guidance sentence for a health state (a severity name is accepted too).

    Raises:
        ValueError: ``state`` is neither a health state nor a severity.
    """
    key = _STATE_OF_SEVERITY.get(state, state)
    try:
        return ESCALATION_GUIDANCE[key]
    except KeyError:
        raise ValueError(f"unknown escalation state {state!r}") from None
