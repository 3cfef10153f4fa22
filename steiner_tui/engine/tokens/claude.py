"""Claude's tokenizers, reconstructed offline by ``ctok``, one family per model generation.

ctok (1.3.0) reconstructs the counts of Claude's three tokenizer generations from data shipped
in its wheel (its README's table): ``v3`` for Claude 3 through Opus 4.6, ``v4.7`` for Opus 4.7,
``v4.8`` for Opus 4.8, Sonnet 5 and later. The family is chosen from the model id's version
(``claude-opus-4-7`` is 4.7, ``claude-3-5-sonnet-…`` 3.5, ``claude-sonnet-5`` 5; a date such as
``-20250514`` is no minor version); an id with no version, or one before Claude 3, has none
and is counted with the cl100k stand-in.

ctok counts a text as one user message, frame included; a request's messages are framed by
the estimator (``request.py``), so only the content's tokens (the count less the frame's
``PAD`` tokens) are used here. ctok (and its ``regex`` dependency and vocabulary files) is
imported when a Claude model's tokenizer is first built, never at start-up.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Sequence

from steiner_tui.engine.tokens.loader import Encoder

__all__ = ["CTOK_ENCODINGS", "CtokEncodingSource", "claude_encoding"]

CTOK_ENCODINGS: dict[str, str] = {"ctok-v3": "3.0", "ctok-v4.7": "4.7", "ctok-v4.8": "4.8"}
"""Encoding name -> the version ctok is asked for (the lowest of its family)."""

_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)(?:[-.](\d{1,2})(?!\d))?")


def claude_encoding(model_id: str) -> str | None:
    """The ctok family that counts a Claude model (by the version in its id), or None.

    Args:
        model_id: A normalized model id (lower case, no routing prefix).
    """
    found = _VERSION.match(model_id)
    if found is None:
        return None
    version = (int(found[1]), int(found[2] or 0))
    if version < (3, 0):
        return None
    if version < (4, 7):
        return "ctok-v3"
    return "ctok-v4.7" if version < (4, 8) else "ctok-v4.8"


class _CtokEncoder:
    """Counts a text's content tokens; ``encode_ordinary`` gives as many ids as tokens (ctok
    reconstructs counts, not ids)."""

    def __init__(self, tokenize: Callable[[str, str], list[str]], pad: str, version: str) -> None:
        self._tokenize = tokenize
        self._pad = pad
        self._version = version

    def encode_ordinary(self, text: str) -> Sequence[int]:
        tokens = self._tokenize(text, self._version)
        return range(len(tokens) - tokens.count(self._pad))


class CtokEncodingSource:
    """One ctok family as an encoding source (``ctok-v3``, ``ctok-v4.7``, ``ctok-v4.8``)."""

    def __init__(self, name: str) -> None:
        if name not in CTOK_ENCODINGS:
            raise ValueError(f"no ctok tokenizer called {name!r}")
        self.name = name

    def available(self) -> bool:
        return importlib.util.find_spec("ctok") is not None

    def build(self) -> Encoder:
        import ctok
        from ctok.constants import PAD

        version = CTOK_ENCODINGS[self.name]
        ctok.token_count("", version)  # loads the family's vocabulary now, not on a first count
        return _CtokEncoder(ctok.tokenize, PAD, version)
