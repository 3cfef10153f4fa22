"""Translate the user's configuration into what a session is built from.

The config-dependent pieces of a session: which main model (and its provider), the compaction
fallback and its memoized targets, and the extra skill roots. ``session_factory`` calls them
while it builds a session from a ``SessionRequest``; a request that names a built model skips
the model's part (tests, benchmarks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from steiner_tui.agent.model import MainModel
from steiner_tui.config import Config
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.compaction.fallback import CompactionFallback, CompactionFallbackTargets
from steiner_tui.engine.compaction.host import SummaryTarget
from steiner_tui.providers.factory import ResolvedModel, resolve_model, split_model_ref

__all__ = [
    "compaction_fallback",
    "extra_skill_roots",
    "main_model_from_config",
    "take_fallback_providers",
]

_FALLBACK_TARGETS: CompactionFallbackTargets[SummaryTarget] = CompactionFallbackTargets()
"""Process-wide memo of built fallback targets, keyed by (alias, model, cache scope)."""


def _main_model(resolved: ResolvedModel, cache_key: str) -> MainModel:
    return MainModel(
        resolved.alias,
        resolved.model,
        resolved.provider,
        resolved.info,
        threshold_tokens=resolved.compaction_threshold_tokens,
        prompt_cache_key=cache_key,
        max_tokens=resolved.max_tokens,
        params=resolved.params,
        extra_params=resolved.extra_params,
        window_source=resolved.window_source,
        max_output_source=resolved.max_output_source,
        limits_probe=resolved.limits_probe,
        registry_window=resolved.registry_window,
        price=resolved.price,
        priced=True,
    )


def main_model_from_config(
    config: Config,
    project_root: Path,
    *,
    session_id: str,
    ref: str | None = None,
    env: Mapping[str, str] | None = None,
) -> MainModel:
    """The main model named by ``ref`` (default: ``config.default_model``).

    Raises:
        ConfigError: unknown provider alias, missing API key, invalid threshold.
    """
    environment = os.environ if env is None else env
    resolved = resolve_model(
        config, ref or config.default_model, environment, project_root=project_root
    )
    return _main_model(resolved, f"steiner-{session_id}")


def compaction_fallback(
    config: Config, project_root: Path, main: MainModel, env: Mapping[str, str]
) -> CompactionFallback | None:
    """The configured compaction fallback, resolved on each cold-cache compaction.

    Resolving the reference (its alias and backend model) runs on every compaction that
    reaches it; the target, with its provider, is built once per (alias, backend model, cache
    scope), where the scope is the compacting run's own prompt cache key (a delegated child's
    key for a child). A failed build is not memoized: the next compaction tries again.
    """
    settings = config.compaction_fallback
    if not settings.model:
        return None

    def resolve(cache_scope: str) -> SummaryTarget:
        alias, model = split_model_ref(config, settings.model)

        def build(session_id: str) -> SummaryTarget:
            resolved = resolve_model(config, settings.model, env, project_root=project_root)
            return SummaryTarget(
                alias=resolved.alias,
                model=resolved.model,
                budget=ModelTokenBudget.for_model(
                    resolved.info, threshold_tokens=resolved.compaction_threshold_tokens
                ),
                provider=resolved.provider,
                stateful=bool(getattr(resolved.provider, "stateful", False)),
                vision=resolved.info.vision,
                price=resolved.price,
            )

        scope = cache_scope or main.prompt_cache_key
        return _FALLBACK_TARGETS.get(alias, model, scope, scope, build)

    return CompactionFallback(settings.model, settings.after, resolve)


def take_fallback_providers() -> list[object]:
    """The providers of every fallback target built so far, forgotten, for the ending session
    to close (one session runs at a time in a process: the app's, exec's, a oneshot phase's)."""
    return [target.provider for target in _FALLBACK_TARGETS.take_all()]


def extra_skill_roots(config: Config, project_root: Path) -> tuple[Path, ...]:
    """``[skills] roots``: relative paths are the project's."""
    return tuple(
        Path(p) if Path(p).is_absolute() else (project_root / p).resolve()
        for p in config.skill_roots
    )
