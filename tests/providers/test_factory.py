"""Model refs, limits with overrides and env-only keys, resolved through the factory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.config import ConfigError, parse_config
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from steiner_tui.providers.factory import (
    LOCAL_DUMMY_KEY,
    api_key_for,
    model_choices,
    resolve_model,
)
from steiner_tui.providers.openai_chat import OpenAIChatProvider
from steiner_tui.providers.openai_responses import OpenAIResponsesProvider


def fake_lookup(model: str) -> ModelInfo:
    return ModelInfo(context_window=100_000, max_output=8_000, vision=False, tokenizer="t")


def test_model_choices_are_the_refs_model_can_switch_to() -> None:
    """The default model, each configured ref, the compaction fallback and the offline model,
    each once as alias/model; a bare model id (a table for every provider) and a ref of no
    configured provider name nothing to switch to."""
    table = {
        "default_model": "local/qwen2.5-coder:7b",
        "models": {
            "gpt-5": {},
            "anthropic/claude-sonnet-4-6": {},
            "nosuch/model": {},
            "local/qwen2.5-coder:7b": {},
        },
        "compaction_fallback": {"model": "openai/gpt-4o-mini"},
    }
    assert model_choices(parse_config([("c", table)])) == (
        "local/qwen2.5-coder:7b",
        "anthropic/claude-sonnet-4-6",
        "openai/gpt-4o-mini",
        "offline/offline",
    )
    assert model_choices(parse_config([])) == ("offline/offline",)


def test_anthropic_ref_uses_env_key_and_registry_limits() -> None:
    config = parse_config([])
    resolved = resolve_model(config, "anthropic/claude-sonnet-4-5", {"ANTHROPIC_API_KEY": "k"})
    assert (resolved.alias, resolved.model) == ("anthropic", "claude-sonnet-4-5")
    assert isinstance(resolved.provider, AnthropicProvider)
    assert resolved.provider.alias == "anthropic"
    assert resolved.info.context_window == 200_000
    assert resolved.provider.model_info("claude-sonnet-4-5") == resolved.info


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY in the environment"):
        resolve_model(parse_config([]), "openai/gpt-4o", {})


def test_config_overrides_limits_and_threshold() -> None:
    table = {
        "models": {
            "openai/gpt-4o": {"context_window": 50_000, "compaction_threshold_tokens": 30_000}
        }
    }
    config = parse_config([("c", table)])
    resolved = resolve_model(config, "openai/gpt-4o", {"OPENAI_API_KEY": "k"}, lookup=fake_lookup)
    assert resolved.info == ModelInfo(50_000, 8_000, False, "t")
    assert resolved.compaction_threshold_tokens == 30_000
    assert isinstance(resolved.provider, OpenAIChatProvider)
    assert resolved.provider.model_info("gpt-4o").context_window == 50_000


def test_threshold_above_the_registry_window_is_rejected() -> None:
    table = {"models": {"openai/gpt-4o": {"compaction_threshold_tokens": 100_000}}}
    config = parse_config([("c", table)])
    expected = re.escape('models."openai/gpt-4o": compaction_threshold_tokens (100000)')
    with pytest.raises(ConfigError, match=expected):
        resolve_model(config, "openai/gpt-4o", {"OPENAI_API_KEY": "k"}, lookup=fake_lookup)


def test_local_models_need_no_key_and_keep_slashes_in_the_id() -> None:
    config = parse_config([])
    resolved = resolve_model(config, "local/library/qwen2.5-coder:7b", {})
    assert resolved.model == "library/qwen2.5-coder:7b"
    assert isinstance(resolved.provider, OpenAIChatProvider)
    assert api_key_for(config.providers["local"], {}) == LOCAL_DUMMY_KEY


def test_responses_provider_is_stateful() -> None:
    resolved = resolve_model(parse_config([]), "openai_responses/gpt-4o", {"OPENAI_API_KEY": "k"})
    assert isinstance(resolved.provider, OpenAIResponsesProvider)
    assert resolved.provider.stateful


def test_unknown_alias_and_bare_alias() -> None:
    config = parse_config([])
    with pytest.raises(ConfigError, match="unknown provider 'mystery'"):
        resolve_model(config, "mystery/model", {})
    with pytest.raises(ConfigError, match="name a model"):
        resolve_model(config, "anthropic", {"ANTHROPIC_API_KEY": "k"})


def test_offline_ref_builds_the_offline_provider(tmp_path: Path) -> None:
    resolved = resolve_model(parse_config([]), "offline", {}, project_root=tmp_path)
    assert (resolved.alias, resolved.model) == ("offline", "offline")
    assert resolved.provider.alias == "offline"


def test_building_providers_does_not_import_the_sdks() -> None:
    code = (
        "import sys\n"
        "from steiner_tui.config import parse_config\n"
        "from steiner_tui.providers.factory import resolve_model\n"
        "env = {'ANTHROPIC_API_KEY': 'k', 'OPENAI_API_KEY': 'k'}\n"
        "for ref in ('anthropic/claude-sonnet-4-5', 'openai/gpt-4o', 'openai_responses/o3'):\n"
        "    resolve_model(parse_config([]), ref, env)\n"
        "print(','.join(m for m in ('anthropic', 'openai') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_two_resolutions_of_one_ref_are_equal_though_each_built_its_provider() -> None:
    config = parse_config([])
    first = resolve_model(config, "local/qwen2.5-coder:7b", {})
    second = resolve_model(config, "local/qwen2.5-coder:7b", {})
    assert first.provider is not second.provider
    assert first == second and hash(first) == hash(second)
    assert first.limits_probe is not None and "provider" not in repr(first)


def test_a_missing_key_says_how_to_go_on_without_it() -> None:
    """ "Use the offline model" alone does not say how: the flag does."""
    table = {"providers": {"p": {"type": "openai", "api_key_env": "MY_MISSING_KEY"}}}
    config = parse_config([("c", table)])
    with pytest.raises(ConfigError) as caught:
        resolve_model(config, "p/gpt-4o", {})
    assert str(caught.value).endswith(
        "or use the offline model (--model offline; /model offline in the workbench)"
    )
