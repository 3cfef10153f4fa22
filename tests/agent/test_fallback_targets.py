"""The configured compaction fallback: resolved on every compaction, built once per key.

(docs/design.md, "9. Compaction fallback and the last main request")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from steiner_tui.agent import from_config
from steiner_tui.agent.delegation.child import child_cache_key
from steiner_tui.agent.from_config import compaction_fallback, main_model_from_config
from steiner_tui.config import ConfigError, parse_config
from steiner_tui.providers.factory import ResolvedModel


def _fallback(tmp_path: Path, model: str, env: dict[str, str] | None = None) -> Any:
    config = parse_config(
        [("config.toml", {"compaction_fallback": {"model": model, "after": "10m"}})]
    )
    main = main_model_from_config(config, tmp_path, session_id="s1", env={})
    fallback = compaction_fallback(config, tmp_path, main, env or {})
    assert fallback is not None and fallback.resolve is not None
    return fallback


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = from_config.resolve_model

    def counting(*args: Any, **kwargs: Any) -> ResolvedModel:
        resolved = real(*args, **kwargs)
        seen.append(resolved.ref)
        return resolved

    monkeypatch.setattr(from_config, "resolve_model", counting)
    return seen


def test_the_target_is_built_once_per_alias_model_and_cache_scope(
    tmp_path: Path, builds: list[str]
) -> None:
    fallback = _fallback(tmp_path, "local/fb-once-model")
    builds.clear()  # the main model's own resolution
    first = fallback.resolve("steiner-s1")
    assert fallback.resolve("steiner-s1") is first
    assert builds == ["local/fb-once-model"]
    # A delegated child compacts under its own cache key: its own target.
    child = fallback.resolve(child_cache_key("steiner-s1", "s1", "explore-1"))
    assert child is not first and child.provider is not first.provider
    assert builds == ["local/fb-once-model", "local/fb-once-model"]


def test_a_failed_build_is_not_memoized(tmp_path: Path, builds: list[str]) -> None:
    fallback = _fallback(tmp_path, "anthropic/fb-keyless")
    builds.clear()
    for _ in range(2):
        with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
            fallback.resolve("steiner-s2")
    assert builds == []


def test_an_unknown_alias_fails_on_every_resolve(tmp_path: Path) -> None:
    fallback = _fallback(tmp_path, "nowhere/model")
    for _ in range(2):
        with pytest.raises(ConfigError, match="unknown provider"):
            fallback.resolve("steiner-s3")
