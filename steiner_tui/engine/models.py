"""Known models' limits: context window, max output, vision and tokenizer.

Budgets need a context window and a max output for every model, including ones nobody listed.
Ids are matched by prefix, longest prefix first, after lower-casing, stripping whitespace and
dropping a routing prefix (``openai/gpt-4o`` and ``gpt-4o-2024-08-06`` both match ``gpt-4o``);
an unknown id gets ``UNKNOWN_MODEL`` (context 32768, max output 4096), or
``UNKNOWN_LOCAL_MODEL`` on a server that is not a hosted vendor's (``lookup_model(local=True)``):
the same window, a modest 1,024-token max output, because a small local model left to write
4,096 tokens rambles for minutes. Callers apply config overrides with ``msgspec.structs.replace``
on the returned ``ModelInfo``, and the provider factory the window a local server reports.

The tokenizer is the model's native OpenAI encoding where it has one; Claude models and unknown
ones list none (``""``: chosen by model id, so ``claude-opus-4-7`` gets its own generation's
tokenizer through ctok, ``tokens/claude.py``, and an unknown non-Claude id cl100k); every other
family is counted with cl100k as a stand-in, and the ``offline`` model with the character
heuristic.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Literal

from steiner_tui.engine.provider import ModelInfo

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "LOCAL_MAX_OUTPUT_TOKENS",
    "MODEL_REGISTRY",
    "UNKNOWN_LOCAL_MODEL",
    "UNKNOWN_MODEL",
    "LimitSource",
    "is_known_model",
    "lookup_model",
    "model_key",
]

DEFAULT_CONTEXT_WINDOW = 32768
DEFAULT_MAX_OUTPUT_TOKENS = 4096
"""The max output of a model nobody listed; also the floor of a clamped unset reserve."""

LimitSource = Literal["config", "server", "registry", "default"]
"""Where a model's window or max output came from: ``[models."<ref>"]``, the server that serves
it, this registry, or the default for a model nobody knows."""

LOCAL_MAX_OUTPUT_TOKENS = 1024
"""The max output of an unknown model on a local server (``[models."<ref>"] max_output``)."""

_BY_ID = ""
"""No tokenizer listed: the policy chooses one by model id (``tokens.choose_tokenizer``)."""

UNKNOWN_MODEL = ModelInfo(DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS, False, _BY_ID)
UNKNOWN_LOCAL_MODEL = ModelInfo(
    DEFAULT_CONTEXT_WINDOW, LOCAL_MAX_OUTPUT_TOKENS, False, "cl100k_base"
)

_O200K = "o200k_base"
_CL100K = "cl100k_base"


def _m(context: int, max_output: int, vision: bool, tokenizer: str = _CL100K) -> ModelInfo:
    return ModelInfo(context, max_output, vision, tokenizer)


MODEL_REGISTRY = MappingProxyType(
    {
        # Anthropic (each generation's tokenizer chosen by model id, calibrated by usage).
        "claude-opus-4": _m(200_000, 32_000, True, _BY_ID),
        "claude-opus-4-5": _m(200_000, 64_000, True, _BY_ID),
        "claude-sonnet-4": _m(200_000, 64_000, True, _BY_ID),
        "claude-haiku-4": _m(200_000, 64_000, True, _BY_ID),
        "claude-3-7-sonnet": _m(200_000, 64_000, True, _BY_ID),
        "claude-3-5-sonnet": _m(200_000, 8_192, True, _BY_ID),
        "claude-3-5-haiku": _m(200_000, 8_192, False, _BY_ID),
        "claude-3-opus": _m(200_000, 4_096, True, _BY_ID),
        "claude-3-haiku": _m(200_000, 4_096, True, _BY_ID),
        # OpenAI.
        "gpt-5": _m(400_000, 128_000, True, _O200K),
        "gpt-5-chat": _m(128_000, 16_384, True, _O200K),
        "gpt-4.1": _m(1_047_576, 32_768, True, _O200K),
        "gpt-4o": _m(128_000, 16_384, True, _O200K),
        "gpt-4o-mini": _m(128_000, 16_384, True, _O200K),
        "o1": _m(200_000, 100_000, True, _O200K),
        "o1-mini": _m(128_000, 65_536, False, _O200K),
        "o3": _m(200_000, 100_000, True, _O200K),
        "o3-mini": _m(200_000, 100_000, False, _O200K),
        "o4-mini": _m(200_000, 100_000, True, _O200K),
        "gpt-4-turbo": _m(128_000, 4_096, True),
        "gpt-4": _m(8_192, 8_192, False),
        "gpt-3.5-turbo": _m(16_385, 4_096, False),
        # Local families (Ollama / llama.cpp style ids, e.g. "qwen2.5-coder:7b").
        "llama3": _m(8_192, 4_096, False),
        "llama3.1": _m(131_072, 8_192, False),
        "llama3.2": _m(131_072, 8_192, False),
        "llama3.2-vision": _m(131_072, 8_192, True),
        "llama3.3": _m(131_072, 8_192, False),
        "qwen2.5": _m(32_768, 8_192, False),
        "qwen2.5vl": _m(128_000, 8_192, True),
        "qwen3": _m(40_960, 8_192, False),
        "mistral": _m(32_768, 4_096, False),
        "mistral-nemo": _m(131_072, 8_192, False),
        "mistral-large": _m(131_072, 8_192, False),
        "deepseek": _m(65_536, 8_192, False),
        "deepseek-r1": _m(131_072, 8_192, False),
        "deepseek-coder": _m(16_384, 4_096, False),
        "deepseek-coder-v2": _m(163_840, 8_192, False),
        "gemma": _m(8_192, 4_096, False),
        "gemma2": _m(8_192, 4_096, False),
        "gemma3": _m(131_072, 8_192, True),
        # The built-in offline model: no real tokenizer to match.
        "offline": _m(DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT_TOKENS, False, "heuristic"),
    }
)
"""Id prefix -> limits. The longest matching prefix wins."""

_PREFIXES = sorted(MODEL_REGISTRY, key=len, reverse=True)


def model_key(model_id: str) -> str:
    """A model id as the tables look it up (limits, prices, tokenizers): lower-cased, stripped,
    without a routing prefix (``openai/gpt-4o`` -> ``gpt-4o``)."""
    return model_id.strip().lower().rsplit("/", 1)[-1]


def _registry_entry(model_id: str) -> ModelInfo | None:
    key = model_key(model_id)
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return MODEL_REGISTRY[prefix]
    return None


def is_known_model(model_id: str) -> bool:
    """Whether a registry prefix matches ``model_id`` (its limits are not a default)."""
    return _registry_entry(model_id) is not None


def lookup_model(model_id: str, *, local: bool = False) -> ModelInfo:
    """Limits and capabilities of a model.

    Args:
        model_id: The backend model id, as sent to the provider.
        local: the model is served by a local (or self-hosted) server, not a vendor's API.

    Returns:
        The entry of the longest registry prefix of the normalized id, else
        ``UNKNOWN_LOCAL_MODEL`` when ``local``, else ``UNKNOWN_MODEL``.
    """
    found = _registry_entry(model_id)
    if found is not None:
        return found
    return UNKNOWN_LOCAL_MODEL if local else UNKNOWN_MODEL
