"""The main model of a run: who answers, with what limits, under which cache identity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from steiner_tui.engine.budget import ModelTokenBudget
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
        extra_params: provider extra params (``max_tokens``-style keys count as explicit limits).
    """

    alias: str
    model: str
    provider: Provider
    info: ModelInfo
    threshold_tokens: int | None = None
    prompt_cache_key: str = ""
    max_tokens: int = 0
    extra_params: Mapping[str, Any] = field(default_factory=FrozenDict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra_params", freeze(self.extra_params))

    @property
    def ref(self) -> str:
        return f"{self.alias}/{self.model}"

    @property
    def stateful(self) -> bool:
        return bool(getattr(self.provider, "stateful", False))

    @property
    def budget(self) -> ModelTokenBudget:
        return ModelTokenBudget.for_model(self.info, threshold_tokens=self.threshold_tokens)
