"""The session estimator's counts behind the cost ranking (``engine.costs.CostCounter``)."""

from __future__ import annotations

import msgspec

from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.tokens import RequestEstimator
from steiner_tui.engine.tokens.policy import HEURISTIC

__all__ = ["EstimatorCounter"]


class EstimatorCounter(msgspec.Struct, frozen=True):
    """Counts with ``estimator`` on ``model``, calibrated as its requests are.

    A message is counted as the provider receives it (a summary as system, an interrupted
    reply with its note); with the character heuristic a message's share is its characters in
    tokens, without the request's fixed overhead.
    """

    estimator: RequestEstimator
    model: str
    calibrate: bool = True
    """False: raw tokenizer counts, as the context panel's source rows are."""

    def _calibrated(self, raw: int) -> int:
        if not self.calibrate:
            return max(raw, 0)
        return self.estimator.calibrated(self.model, raw).tokens if raw > 0 else 0

    def message_tokens(self, message: Message) -> int:
        estimator = self.estimator
        units = estimator.message_units(self.model, to_provider_message(message))
        if estimator.choice(self.model).encoding == HEURISTIC:
            units = (units + 3) // 4 + 1000 * len(message.images)
        return self._calibrated(units)

    def text_tokens(self, text: str) -> int:
        estimator = self.estimator
        if estimator.choice(self.model).encoding == HEURISTIC:
            return self._calibrated((len(text) + 3) // 4)
        return self._calibrated(estimator.count_text(self.model, text))
