"""Tokenizer choice: native OpenAI encodings, Claude's through ctok, cl100k stand-in, explicit
heuristic only."""

from __future__ import annotations

import pytest

from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.tokens import TokenizerChoice, choose_tokenizer, native_encoding


@pytest.mark.parametrize(
    "model", ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5", "o1", "o3-mini", "o4-mini"]
)
def test_o200k_family_uses_o200k_with_medium_confidence(model: str) -> None:
    choice = choose_tokenizer(model, lookup_model(model).tokenizer)
    assert choice == TokenizerChoice("o200k_base", "medium")
    assert choice.strategy == "tiktoken"


@pytest.mark.parametrize("model", ["gpt-4-turbo", "gpt-4", "gpt-3.5-turbo", "openai/gpt-4-0613"])
def test_openai_cl100k_models_have_medium_confidence(model: str) -> None:
    choice = choose_tokenizer(model, lookup_model(model).tokenizer)
    assert choice == TokenizerChoice("cl100k_base", "medium")


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-3-5-sonnet-20241022", "ctok-v3"),
        ("claude-opus-4-20250514", "ctok-v3"),  # a date is no minor version
        ("claude-sonnet-4-5", "ctok-v3"),
        ("anthropic/claude-opus-4-6", "ctok-v3"),
        ("claude-opus-4-7", "ctok-v4.7"),
        ("claude-opus-4-8", "ctok-v4.8"),
        ("claude-sonnet-5", "ctok-v4.8"),
        ("claude-opus-5-5", "ctok-v4.8"),  # unknown to the registry: chosen by its id
    ],
)
def test_claude_models_use_their_generations_ctok_family(model: str, family: str) -> None:
    # ctok's README: v3 for Claude 3 through Opus 4.6, v4.7 for Opus 4.7, v4.8 from 4.8 on.
    choice = choose_tokenizer(model, lookup_model(model).tokenizer)
    assert choice == TokenizerChoice(family, "medium")
    assert choice.strategy == "ctok"


@pytest.mark.parametrize("model", ["claude-2.1", "llama3.1:8b", "qwen3:14b", "mystery"])
def test_other_models_use_cl100k_with_low_confidence(model: str) -> None:
    choice = choose_tokenizer(model, lookup_model(model).tokenizer)
    assert choice == TokenizerChoice("cl100k_base", "low")


def test_heuristic_only_when_selected() -> None:
    offline = choose_tokenizer("offline", lookup_model("offline").tokenizer)
    assert offline == TokenizerChoice("heuristic", "low")
    assert offline.strategy == "heuristic"
    configured = choose_tokenizer("gpt-4o", "heuristic")
    assert configured.encoding == "heuristic"


def test_empty_tokenizer_means_by_family_and_unknown_is_an_error() -> None:
    assert choose_tokenizer("gpt-4o", "").encoding == "o200k_base"
    assert choose_tokenizer("claude-opus-4", "").encoding == "ctok-v3"
    assert choose_tokenizer("llama3.1:8b", "").encoding == "cl100k_base"
    with pytest.raises(ValueError, match="p50k"):
        choose_tokenizer("gpt-4o", "p50k_base")


def test_configured_cl100k_for_an_o200k_model_is_low() -> None:
    assert choose_tokenizer("gpt-4o", "cl100k_base").confidence == "low"


def test_native_encoding() -> None:
    assert native_encoding(" GPT-4o-2024-08-06 ") == "o200k_base"
    assert native_encoding("gpt-4-turbo") == "cl100k_base"
    assert native_encoding("claude-haiku-4-5") == "ctok-v3"
    assert native_encoding("qwen3:14b") is None
