"""The heuristic formula and per-model calibration.

(docs/design.md, "6. Token estimation and calibration")
"""

from __future__ import annotations

import pytest

from steiner_tui.engine.tokens import TokenCalibration, TokenEstimate, heuristic_tokens


@pytest.mark.parametrize(
    ("chars", "tokens"), [(0, 8), (1, 9), (3, 9), (4, 9), (5, 10), (8, 10), (9, 11), (400, 108)]
)
def test_heuristic_formula(chars: int, tokens: int) -> None:
    assert heuristic_tokens(chars) == tokens


def test_estimate_is_frozen() -> None:
    estimate = TokenEstimate(10, 9, "tiktoken", "medium")
    with pytest.raises(AttributeError):
        estimate.tokens = 11  # type: ignore[misc]


def test_without_samples_apply_returns_base_unchanged() -> None:
    calibration = TokenCalibration()
    assert calibration.apply("m", 1234, "tiktoken", "medium") == TokenEstimate(
        1234, 1234, "tiktoken", "medium"
    )
    assert calibration.apply("m", 50, "heuristic") == TokenEstimate(50, 50, "heuristic", "low")
    assert calibration.samples("m") == 0
    assert calibration.factor("m") == 1.0


def test_factor_moves_a_quarter_of_the_way_to_each_ratio() -> None:
    calibration = TokenCalibration()
    calibration.observe("m", 2000, 1000)  # ratio 2.0
    assert calibration.factor("m") == pytest.approx(1.25)
    calibration.observe("m", 2000, 1000)
    assert calibration.factor("m") == pytest.approx(1.4375)
    calibration.observe("m", 500, 1000)  # ratio 0.5
    assert calibration.factor("m") == pytest.approx(1.203125)
    assert calibration.samples("m") == 3


def test_confidence_steps_medium_then_high_from_three_samples() -> None:
    calibration = TokenCalibration()
    seen = []
    for _ in range(4):
        calibration.observe("m", 1100, 1000)
        seen.append(calibration.apply("m", 1000, "tiktoken").confidence)
    assert seen == ["medium", "medium", "high", "high"]


def test_calibrated_estimate_rounds_and_keeps_raw() -> None:
    calibration = TokenCalibration()
    calibration.observe("m", 2000, 1000)  # factor 1.25
    estimate = calibration.apply("m", 1001, "tiktoken", "medium")
    assert estimate == TokenEstimate(1251, 1001, "provider_usage", "medium")  # 1251.25
    # Halves round away from zero: 1.25 * 2 = 2.5 -> 3.
    assert calibration.apply("m", 2, "heuristic").tokens == 3
    assert calibration.apply("m", 6, "heuristic").tokens == 8  # 7.5 -> 8


def test_model_id_is_stripped_and_models_are_separate() -> None:
    calibration = TokenCalibration()
    calibration.observe("  claude-sonnet-4 \n", 3000, 1000)
    assert calibration.samples("claude-sonnet-4") == 1
    assert calibration.apply(" claude-sonnet-4", 100, "tiktoken").tokens == 150
    assert calibration.samples("gpt-4o") == 0
    assert calibration.apply("gpt-4o", 100, "tiktoken").strategy == "tiktoken"


@pytest.mark.parametrize(("provider", "base"), [(0, 100), (-5, 100), (100, 0), (100, -1)])
def test_non_positive_inputs_are_ignored(provider: int, base: int) -> None:
    calibration = TokenCalibration()
    calibration.observe("m", provider, base)
    assert calibration.samples("m") == 0
    assert calibration.factor("m") == 1.0


def test_an_empty_model_id_is_never_calibrated() -> None:
    calibration = TokenCalibration()
    calibration.observe("  ", 200, 100)
    calibration.observe("", 200, 100)
    assert calibration.samples("") == 0
    assert calibration.apply(" ", 100, "heuristic") == TokenEstimate(100, 100, "heuristic", "low")
