"""Budget arithmetic: every number and boundary of the window rules.

(docs/design.md, "7. The window: soft trigger, hard fit, reserves")
"""

from __future__ import annotations

import pytest

from steiner_tui.engine.budget import (
    FitResult,
    ModelTokenBudget,
    compaction_escalation,
    derive_summary_max_tokens,
    escalation_guidance,
    explicit_max_tokens_value,
    hard_limit_tokens,
    safety_margin_tokens,
    should_compact_prompt,
    soft_threshold_tokens,
    summary_max_tokens,
    threshold_problem,
)
from steiner_tui.engine.models import lookup_model


@pytest.mark.parametrize(
    ("context", "margin"),
    [(0, 256), (1000, 256), (25600, 256), (25700, 257), (32768, 327), (200000, 2000),
     (204800, 2048), (204900, 2048), (300000, 2048)],
)  # fmt: skip
def test_safety_margin(context: int, margin: int) -> None:
    assert safety_margin_tokens(context) == margin
    assert hard_limit_tokens(context) == context - margin


def test_soft_trigger_at_exactly_seventy_percent() -> None:
    assert should_compact_prompt(70000, 100000, 1000)
    assert not should_compact_prompt(69999, 100000, 1000)
    # 70% of 1001 is 700.7: 701 reaches it, 700 does not.
    assert should_compact_prompt(701, 1001, 256)
    assert not should_compact_prompt(700, 1001, 256)
    assert soft_threshold_tokens(1001) == 701
    assert soft_threshold_tokens(100000) == 70000
    assert soft_threshold_tokens(200000) == 140000


def test_hard_limit_compacts_regardless_of_threshold() -> None:
    # Threshold above the prompt, but the prompt is over context - margin.
    assert should_compact_prompt(99001, 100000, 1000, threshold_tokens=99500)
    assert not should_compact_prompt(99000, 100000, 1000, threshold_tokens=99500)


def test_threshold_replaces_seventy_percent_when_below_the_window() -> None:
    assert should_compact_prompt(50000, 100000, 1000, threshold_tokens=50000)
    assert not should_compact_prompt(49999, 100000, 1000, threshold_tokens=50000)
    # A threshold above 70% delays the trigger.
    assert not should_compact_prompt(80000, 100000, 1000, threshold_tokens=90000)
    assert should_compact_prompt(90000, 100000, 1000, threshold_tokens=90000)
    assert soft_threshold_tokens(100000, 50000) == 50000


@pytest.mark.parametrize("threshold", [None, 0, -5, 100000, 150000])
def test_unset_or_out_of_range_threshold_falls_back_to_seventy_percent(
    threshold: int | None,
) -> None:
    assert should_compact_prompt(70000, 100000, 1000, threshold_tokens=threshold)
    assert not should_compact_prompt(69999, 100000, 1000, threshold_tokens=threshold)
    assert soft_threshold_tokens(100000, threshold) == 70000


@pytest.mark.parametrize("context", [0, -1])
def test_unknown_context_never_compacts(context: int) -> None:
    assert not should_compact_prompt(10**9, context, 256)
    assert not should_compact_prompt(10**9, context, 256, threshold_tokens=1)


def test_threshold_problem() -> None:
    for fine in (None, 1, 199999):
        assert threshold_problem(fine, 200000) == ""
    assert threshold_problem(200000, 0) == ""  # the window is not known
    for bad in (200000, 200001):
        assert threshold_problem(bad, 200000) == (
            f"compaction_threshold_tokens ({bad}) must be below the context window (200000)"
        )


@pytest.mark.parametrize(
    ("context", "max_output", "normal", "emergency"),
    [
        (32768, 4096, 4096, 3072),  # 2621 -> 6144, then max output 4096
        (32768, 0, 6144, 3072),  # max output 0 is unknown: no cap
        (32768, -1, 6144, 3072),
        (128000, 16384, 10240, 5120),
        (200000, 64000, 16000, 8000),
        (200000, 8192, 8192, 8000),
        (256000, 0, 20480, 10240),
        (1047576, 32768, 20480, 10240),
        (76800, 0, 6144, 3072),  # exactly the minimum: 8% and 4%
        (256000, 20480, 20480, 10240),  # exactly the maximum
    ],
)
def test_summary_caps(context: int, max_output: int, normal: int, emergency: int) -> None:
    assert summary_max_tokens("normal", context, max_output) == normal
    assert summary_max_tokens("emergency", context, max_output) == emergency
    assert derive_summary_max_tokens(context, max_output, 8, 6144, 20480) == normal
    assert derive_summary_max_tokens(context, max_output, 4, 3072, 10240) == emergency


def test_derive_summary_max_tokens_uses_floor_division() -> None:
    assert derive_summary_max_tokens(99999, 0, 10, 1, 100000) == 9999


def test_explicit_max_tokens_order() -> None:
    assert explicit_max_tokens_value(500, {"max_tokens": 600}, {"max_tokens": 700}) == 500
    assert explicit_max_tokens_value(0, {"max_output_tokens": 600}, {"max_tokens": 700}) == 600
    assert explicit_max_tokens_value(None, {}, {"max_completion_tokens": 700}) == 700
    extra = {"max_tokens": 0, "max_completion_tokens": 11, "max_output_tokens": 12}
    assert explicit_max_tokens_value(-1, extra, None) == 11
    assert explicit_max_tokens_value(0, {"max_tokens": 4096.0}) == 4096
    assert explicit_max_tokens_value(0, {"max_tokens": "4096", "max_output_tokens": True}) == 0
    assert explicit_max_tokens_value(0, {"max_tokens": 1.5}, {"max_tokens": 9}) == 9
    assert explicit_max_tokens_value(None) == 0


def test_fit_with_an_unset_reserve_clamps_to_the_room_left() -> None:
    budget = ModelTokenBudget(200000, max_output=64000)
    margin = 2000
    roomy = budget.fit_request(100000)
    assert roomy == FitResult(True, 100000, 64000, margin, 0)
    tight = budget.fit_request(150000)  # room 48000 < 64000
    assert tight == FitResult(True, 150000, 48000, margin, 0)
    assert tight.total == 200000
    floor = budget.fit_request(197000)  # room 1000 -> floor min(64000, 4096)
    assert floor == FitResult(False, 197000, 4096, margin, 3096)


def test_clamp_floor_is_the_reserve_when_below_the_default() -> None:
    budget = ModelTokenBudget(32768, max_output=2048)
    fit = budget.fit_request(32000)
    assert fit.reserve == 2048
    assert fit.overflow == 32000 + 2048 + 327 - 32768


def test_unknown_max_output_reserves_the_default() -> None:
    assert ModelTokenBudget(200000, max_output=0).fit_request(1000).reserve == 4096


def test_explicit_max_lowers_or_sets_the_reserve() -> None:
    by_max_output = ModelTokenBudget(200000, max_output=64000)
    assert by_max_output.fit_request(100000, explicit_max=8000).reserve == 8000
    # A larger explicit value never raises the reserve (here the max output), nor is it clamped.
    assert by_max_output.fit_request(150000, explicit_max=70000) == FitResult(
        False, 150000, 64000, 2000, 16000
    )
    # Unset reserve (no configured reserve, unknown max output): the explicit value sets it.
    unset = ModelTokenBudget(200000, max_output=0)
    assert unset.fit_request(150000, explicit_max=70000) == FitResult(
        False, 150000, 70000, 2000, 22000
    )
    configured = ModelTokenBudget(200000, max_output=64000, completion_reserve=16000)
    assert configured.fit_request(100000, explicit_max=8000).reserve == 8000
    assert configured.fit_request(100000, explicit_max=32000).reserve == 16000
    # A configured reserve is not clamped.
    assert configured.fit_request(190000) == FitResult(False, 190000, 16000, 2000, 8000)


def test_fit_boundary_is_inclusive() -> None:
    budget = ModelTokenBudget(100000, max_output=10000, completion_reserve=10000)
    assert budget.fit_request(89000).fits  # 89000 + 10000 + 1000 == 100000
    assert budget.fit_request(89001) == FitResult(False, 89001, 10000, 1000, 1)


def test_unknown_context_always_fits() -> None:
    fit = ModelTokenBudget(0, max_output=4096).fit_request(10**9)
    assert fit.fits and fit.overflow == 0


def test_compaction_fit_uses_the_summary_cap() -> None:
    budget = ModelTokenBudget(200000, max_output=64000, completion_reserve=100)
    assert budget.summary_reserve("normal") == 16000
    assert budget.fit_compaction_request(182000) == FitResult(True, 182000, 16000, 2000, 0)
    assert budget.fit_compaction_request(182001).overflow == 1
    assert budget.fit_compaction_request(190000, "emergency") == FitResult(
        True, 190000, 8000, 2000, 0
    )


def test_budget_from_model_and_its_limits() -> None:
    budget = ModelTokenBudget.for_model(lookup_model("claude-sonnet-4-5"), threshold_tokens=150000)
    assert (budget.context_size, budget.max_output) == (200000, 64000)
    assert (budget.safety_margin, budget.hard_limit, budget.soft_threshold) == (
        2000,
        198000,
        150000,
    )
    assert budget.should_compact(150000)
    assert not budget.should_compact(149999)


@pytest.mark.parametrize(
    ("stages", "prompt", "expected"),
    [
        (0, 100000, ("info", "stable")),
        (1, 100000, ("info", "stable")),
        (1, 119999, ("info", "stable")),
        (1, 120000, ("warning", "fragile")),  # exactly 20% over the hard limit
        (2, 90000, ("warning", "fragile")),
        (2, 119999, ("warning", "fragile")),
        (2, 120000, ("critical", "likely_lossy")),
        (3, 1000, ("critical", "likely_lossy")),
        (7, 1000, ("critical", "likely_lossy")),
    ],
)
def test_escalation_table(stages: int, prompt: int, expected: tuple[str, str]) -> None:
    assert compaction_escalation(stages, prompt, 100000) == expected


def test_escalation_with_no_hard_limit_is_not_fragile() -> None:
    assert compaction_escalation(1, 50, 0) == ("info", "stable")


def test_escalation_guidance_strings() -> None:
    assert escalation_guidance("stable") == "continue, but watch for another compaction"
    assert escalation_guidance("fragile") == (
        "restart soon in a fresh session; repeated compaction is making retention fragile"
    )
    assert escalation_guidance("likely_lossy") == (
        "restart now in a new session; retained context is likely to be lossy"
    )
    assert escalation_guidance("warning") == escalation_guidance("fragile")
    assert escalation_guidance("critical") == escalation_guidance("likely_lossy")
    assert escalation_guidance("info") == escalation_guidance("stable")
    with pytest.raises(ValueError):
        escalation_guidance("doomed")
