"""Which tokenizer counts a model's prompt, and how far to trust the count.

OpenAI models are counted with their own encoding, Claude models with their generation's
tokenizer as ctok reconstructs it (``claude.py``); both ``medium``: the tokenizer is right, the
request framing is approximated. Everything else is counted with cl100k as a stand-in (``low``)
until provider usage calibrates it. The character heuristic is used only when the model's
tokenizer is configured as ``heuristic`` (the ``offline`` model, or a user's choice). A tokenizer
is never replaced by another: when the o200k data is not installed, an o200k model's count fails
with an error that says so (``loader.py`` reports it on every call) instead of quietly counting
with cl100k, whose budgets would be plausible and wrong.
"""

from __future__ import annotations

import msgspec

from steiner_tui.engine.models import model_key
from steiner_tui.engine.tokens.claude import CTOK_ENCODINGS, claude_encoding
from steiner_tui.engine.tokens.estimate import Confidence, Strategy

__all__ = [
    "CL100K",
    "HEURISTIC",
    "TokenizerChoice",
    "choose_tokenizer",
    "native_encoding",
]

CL100K = "cl100k_base"
O200K = "o200k_base"
HEURISTIC = "heuristic"

O200K_FAMILY: tuple[str, ...] = ("gpt-4o", "gpt-4.1", "gpt-5", "o1", "o3", "o4")
"""Model id prefixes whose native encoding is o200k."""

CL100K_FAMILY: tuple[str, ...] = ("gpt-4", "gpt-3.5")
"""OpenAI model id prefixes (after the o200k ones) whose native encoding is cl100k."""


def native_encoding(model_id: str) -> str | None:
    """The encoding a model was trained with: OpenAI's, or Claude's generation as ctok
    reconstructs it (``ctok-v3``...); None for other models."""
    key = model_key(model_id)
    if key.startswith(O200K_FAMILY):
        return O200K
    if key.startswith(CL100K_FAMILY):
        return CL100K
    return claude_encoding(key)


class TokenizerChoice(msgspec.Struct, frozen=True):
    """The encoding to count with (or ``heuristic``) and the base confidence of its counts."""

    encoding: str
    confidence: Confidence

    @property
    def strategy(self) -> Strategy:
        """``heuristic`` for the character heuristic, ``ctok`` for Claude's, else ``tiktoken``."""
        if self.encoding == HEURISTIC:
            return "heuristic"
        return "ctok" if self.encoding in CTOK_ENCODINGS else "tiktoken"


def choose_tokenizer(model_id: str, tokenizer: str) -> TokenizerChoice:
    """Pick the tokenizer for a model.

    Args:
        model_id: The backend model id.
        tokenizer: The model's configured tokenizer (``ModelInfo.tokenizer``: ``o200k_base``,
            ``cl100k_base``, a ctok family or ``heuristic``; empty means "by model id", as
            Claude models and unknown ones are listed).

    Returns:
        The choice; ``medium`` confidence when the encoding is the model's native one, ``low``
        otherwise.

    Raises:
        ValueError: ``tokenizer`` names no known tokenizer.
    """
    native = native_encoding(model_id)
    wanted = tokenizer.strip() or native or CL100K
    if wanted == HEURISTIC:
        return TokenizerChoice(HEURISTIC, "low")
    if wanted not in (CL100K, O200K) and wanted not in CTOK_ENCODINGS:
        raise ValueError(f"unknown tokenizer {tokenizer!r} for model {model_id!r}")
    return TokenizerChoice(wanted, "medium" if wanted == native else "low")
