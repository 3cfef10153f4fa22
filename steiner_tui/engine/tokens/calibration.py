"""Per-model calibration of base estimates against the provider's reported prompt tokens.

A local tokenizer is only an approximation of what a provider bills (Claude is counted with
cl100k; every provider adds its own framing). Each usage report teaches a per-model factor that
scales later base estimates, so fit checks converge on the provider's own figures. The key is
the model id without surrounding whitespace; an empty id names no model, so it is never
calibrated: its reports are ignored and its estimates keep their base strategy.
"""

from __future__ import annotations

import math
import threading

import msgspec

from steiner_tui.engine.provider import LARGEST_WINDOW
from steiner_tui.engine.tokens.estimate import Confidence, Strategy, TokenEstimate

__all__ = ["TokenCalibration"]

CALIBRATION_STEP = 0.25
"""Share of the distance to each new ratio the factor moves."""

HIGH_CONFIDENCE_SAMPLES = 3
"""From this many samples a calibrated estimate has confidence ``high`` (``medium`` below)."""


class _ModelCalibration(msgspec.Struct):
    factor: float = 1.0
    samples: int = 0


def _round_half_away(value: float) -> int:
    # Halves round away from zero (2.5 -> 3), not to even as Python's round() does.
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


class TokenCalibration:
    """Calibration factors per model id (whitespace-stripped). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[str, _ModelCalibration] = {}

    def observe(self, model_id: str, provider_prompt_tokens: int, base_tokens: int) -> None:
        """Record one usage report: move the factor 25% of the way to the observed ratio.

        Args:
            model_id: The model the request went to.
            provider_prompt_tokens: Prompt tokens the provider reported.
            base_tokens: The uncalibrated estimate of the same request.

        Non-positive figures carry no information and are ignored, and so are figures larger
        than any model's window, and an empty model id (after stripping): it names no model.
        """
        key = model_id.strip()
        if provider_prompt_tokens <= 0 or base_tokens <= 0 or not key:
            return
        if provider_prompt_tokens > LARGEST_WINDOW:  # not a count (the runner warns)
            return
        ratio = provider_prompt_tokens / base_tokens
        with self._lock:
            entry = self._models.setdefault(key, _ModelCalibration())
            entry.factor += CALIBRATION_STEP * (ratio - entry.factor)
            entry.samples += 1

    def apply(
        self,
        model_id: str,
        base_tokens: int,
        base_strategy: Strategy,
        base_confidence: Confidence = "low",
    ) -> TokenEstimate:
        """Scale a base estimate by the model's factor.

        Args:
            model_id: The model the request is for.
            base_tokens: The uncalibrated estimate.
            base_strategy: How the base estimate was made (``tiktoken`` or ``heuristic``).
            base_confidence: The base estimate's confidence.

        Returns:
            The base figures unchanged when the model has no samples; otherwise
            ``round(base * factor)`` with strategy ``provider_usage`` and confidence ``medium``
            (fewer than 3 samples) or ``high``. ``raw_tokens`` is always the base.
        """
        with self._lock:
            entry = self._models.get(model_id.strip())
            factor, samples = (entry.factor, entry.samples) if entry else (1.0, 0)
        if samples == 0:
            return TokenEstimate(base_tokens, base_tokens, base_strategy, base_confidence)
        confidence: Confidence = "high" if samples >= HIGH_CONFIDENCE_SAMPLES else "medium"
        return TokenEstimate(
            _round_half_away(base_tokens * factor), base_tokens, "provider_usage", confidence
        )

    def samples(self, model_id: str) -> int:
        """How many usage reports the model's factor has seen."""
        with self._lock:
            entry = self._models.get(model_id.strip())
            return entry.samples if entry else 0

    def factor(self, model_id: str) -> float:
        """The model's current factor (1.0 without samples); the UI shows it as drift."""
        with self._lock:
            entry = self._models.get(model_id.strip())
            return entry.factor if entry else 1.0
