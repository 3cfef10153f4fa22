"""Loads each tokenizer once, and reports a failed load on every later call.

A wrong tokenizer gives plausible but wrong budgets, so there is no silent fallback here: a source
that fails to build is recorded, and every later ``get`` raises ``TokenizerLoadError`` with the
same message and the original error as its cause. A source whose data is not installed is such a
failure too, reported as "not installed": which tokenizer a model uses is decided by the policy
(``policy.py``) alone, never by what happens to be installed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Protocol

from steiner_tui.errors import SteinerError

__all__ = ["Encoder", "EncodingLoader", "EncodingSource", "TokenizerLoadError"]


class TokenizerLoadError(SteinerError, RuntimeError):
    """A tokenizer could not be loaded; raised again on every use of that tokenizer."""


class Encoder(Protocol):
    """The part of ``tiktoken.Encoding`` the estimator uses (special tokens count as text)."""

    def encode_ordinary(self, text: str) -> Sequence[int]: ...


class EncodingSource(Protocol):
    """Where one encoding comes from. ``available`` is cheap and must not load the encoding."""

    @property
    def name(self) -> str: ...

    def available(self) -> bool: ...

    def build(self) -> Encoder: ...


class _Slot:
    __slots__ = ("encoder", "error", "lock", "source")

    def __init__(self, source: EncodingSource) -> None:
        self.source = source
        self.lock = threading.Lock()
        self.encoder: Encoder | None = None
        self.error: tuple[str, BaseException] | None = None


class EncodingLoader:
    """Builds each encoding at most once, thread-safely, from the sources it was given."""

    def __init__(self, sources: Iterable[EncodingSource]) -> None:
        self._slots = {source.name: _Slot(source) for source in sources}
        self._available: dict[str, bool] = {}

    def names(self) -> tuple[str, ...]:
        """The encodings this loader knows."""
        return tuple(self._slots)

    def available(self, name: str) -> bool:
        """Whether the encoding's data is installed (checked once; loading may still fail)."""
        if name not in self._available:
            slot = self._slots.get(name)
            self._available[name] = slot is not None and slot.source.available()
        return self._available[name]

    def get(self, name: str) -> Encoder:
        """The encoding called ``name``, built on first use.

        Raises:
            TokenizerLoadError: The encoding is unknown or failed to build (now or earlier).
        """
        slot = self._slots.get(name)
        if slot is None:
            raise TokenizerLoadError(f"unknown tokenizer {name!r}")
        encoder = slot.encoder
        if encoder is not None:
            return encoder
        with slot.lock:
            if slot.encoder is None and slot.error is None:
                if not self.available(name):
                    missing = FileNotFoundError(f"the {name} data file is not installed")
                    slot.error = (f"tokenizer {name!r} is not installed: {missing}", missing)
                else:
                    try:
                        slot.encoder = slot.source.build()
                    except Exception as exc:  # recorded and re-raised on every call
                        slot.error = (f"tokenizer {name!r} failed to load: {exc}", exc)
            encoder, error = slot.encoder, slot.error
        if encoder is None:
            message, cause = error or (f"tokenizer {name!r} did not load", None)
            raise TokenizerLoadError(message) from cause
        return encoder
