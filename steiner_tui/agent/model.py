"""The main model of a run: who answers, with what limits, under which cache identity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from steiner_tui.engine.budget import MAX_TOKENS_KEYS, ModelTokenBudget, explicit_max_tokens_value
from steiner_tui.engine.frozen import FrozenDict, freeze
from steiner_tui.engine.provider import ModelInfo, Provider

__all__ = ["MainModel"]


@dataclass(frozen=True, slots=True)
class MainModel:
    """A resolved main model.

    Attributes:
        alias: provider alias (``offline``, ``anthropic``, ...).
        model: backend model id.
        provider: the built provider.
        info: limits and capabilities (config overrides applied).
        threshold_tokens: ``compaction_threshold_tokens`` (None: 70% of the window).
        prompt_cache_key: the cache identity of requests (per session; children have their own).
        max_tokens: an explicit completion limit (0: none).
        params: request fields sent with every call (``max_tokens``-style keys count as
            explicit limits, after ``extra_params``'s).
        extra_params: server-specific request fields (``max_tokens``-style keys count as
            explicit limits, before ``params``'s).
    """

    alias: str
    model: str
    provider: Provider
    info: ModelInfo
    threshold_tokens: int | None = None
    prompt_cache_key: str = ""
    max_tokens: int = 0
    params: Mapping[str, Any] = field(default_factory=FrozenDict)
    extra_params: Mapping[str, Any] = field(default_factory=FrozenDict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", freeze(self.params))
        object.__setattr__(self, "extra_params", freeze(self.extra_params))

    @property
    def ref(self) -> str:
        return f"{self.alias}/{self.model}"

    @property
    def stateful(self) -> bool:
        return bool(getattr(self.provider, "stateful", False))

    @property
    def explicit_max_tokens(self) -> int:
        """The explicit completion limit: ``max_tokens``, then ``extra_params``, then ``params``."""
        return explicit_max_tokens_value(self.max_tokens, self.extra_params, self.params)

    @property
    def request_fields(self) -> FrozenDict:
        """``params`` then ``extra_params`` (which win), without the max-tokens keys: those set
        the reserve, which every request carries in its provider's own max-tokens field."""
        merged = {**self.params, **self.extra_params}
        return FrozenDict({k: v for k, v in merged.items() if k not in MAX_TOKENS_KEYS})

    @property
    def budget(self) -> ModelTokenBudget:
        return ModelTokenBudget.for_model(self.info, threshold_tokens=self.threshold_tokens)
