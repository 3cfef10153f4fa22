"""The model registry: prefix matching, known limits, unknown defaults, the offline model."""

from __future__ import annotations

import msgspec
import pytest

from steiner_tui.engine.models import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    LOCAL_MAX_OUTPUT_TOKENS,
    MODEL_REGISTRY,
    UNKNOWN_LOCAL_MODEL,
    UNKNOWN_MODEL,
    is_known_model,
    lookup_model,
)
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.tokens import choose_tokenizer, native_encoding


def test_unknown_model_defaults() -> None:
    info = lookup_model("some-local-thing:7b")
    assert info == UNKNOWN_MODEL
    assert (info.context_window, info.max_output) == (32768, 4096)
    assert DEFAULT_MAX_OUTPUT_TOKENS == 4096


def test_an_unknown_model_on_a_local_server_writes_modest_replies() -> None:
    assert lookup_model("smollm2-135m", local=True) == UNKNOWN_LOCAL_MODEL
    assert (UNKNOWN_LOCAL_MODEL.context_window, UNKNOWN_LOCAL_MODEL.max_output) == (32768, 1024)
    assert LOCAL_MAX_OUTPUT_TOKENS == 1024
    assert lookup_model("qwen2.5-coder:7b", local=True).max_output == 8192  # known: registry
    assert is_known_model("gpt-4o") and not is_known_model("smollm2-135m")


def test_offline_model() -> None:
    assert lookup_model("offline") == ModelInfo(32768, 4096, False, "heuristic")


@pytest.mark.parametrize(
    ("model", "context", "max_output"),
    [
        ("claude-opus-4-20250514", 200_000, 32_000),
        ("claude-opus-4-1", 200_000, 32_000),
        ("claude-opus-4-5", 200_000, 64_000),
        ("claude-sonnet-4-5-20250929", 200_000, 64_000),
        ("claude-haiku-4-5", 200_000, 64_000),
        ("claude-3-5-sonnet-latest", 200_000, 8_192),
        ("claude-3-5-haiku-20241022", 200_000, 8_192),
        ("gpt-4o", 128_000, 16_384),
        ("gpt-4o-mini-2024-07-18", 128_000, 16_384),
        ("gpt-4.1-mini", 1_047_576, 32_768),
        ("gpt-5", 400_000, 128_000),
        ("gpt-5-mini", 400_000, 128_000),
        ("o3", 200_000, 100_000),
        ("o4-mini", 200_000, 100_000),
        ("gpt-4-turbo", 128_000, 4_096),
        ("gpt-3.5-turbo", 16_385, 4_096),
        ("llama3.1:8b", 131_072, 8_192),
        ("llama3:8b", 8_192, 4_096),
        ("qwen2.5-coder:7b", 32_768, 8_192),
        ("qwen3:14b", 40_960, 8_192),
        ("mistral:7b", 32_768, 4_096),
        ("deepseek-r1:14b", 131_072, 8_192),
        ("gemma3:12b", 131_072, 8_192),
    ],
)
def test_known_models(model: str, context: int, max_output: int) -> None:
    info = lookup_model(model)
    assert (info.context_window, info.max_output) == (context, max_output)


def test_longest_prefix_wins_and_ids_are_normalized() -> None:
    assert lookup_model("gpt-4o").tokenizer == "o200k_base"
    assert lookup_model("gpt-4-0613").tokenizer == "cl100k_base"
    assert lookup_model("  OpenAI/GPT-4o \n") == lookup_model("gpt-4o")
    assert lookup_model("o3-mini").vision is False
    assert lookup_model("o3").vision is True


def test_registry_tokenizers_follow_the_native_encoding() -> None:
    for prefix, info in MODEL_REGISTRY.items():
        if prefix == "offline":
            continue
        chosen = choose_tokenizer(prefix, info.tokenizer).encoding
        assert chosen == (native_encoding(prefix) or "cl100k_base"), prefix
        assert 0 < info.max_output <= info.context_window, prefix


def test_config_overrides_are_plain_replacements() -> None:
    info = msgspec.structs.replace(lookup_model("gpt-4o"), context_window=64000)
    assert info.context_window == 64000
    assert lookup_model("gpt-4o").context_window == 128_000
