"""What a tool subprocess may see: the app's environment without provider secrets.

A command the model runs must not be able to read the keys the app talks to providers with
(``env`` would put them into the request and the event log). So every tool subprocess gets an
explicit environment: the app's, less every variable on the deny list:

* the built-in providers' keys, ``ANTHROPIC_API_KEY`` and ``OPENAI_API_KEY``;
* every name matching ``*_API_KEY``, ``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*_SECRET_*``,
  ``*_PASSWORD`` (case-insensitive; ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``, a custom
  provider's ``VLLM_KEY``...);
* each ``api_key_env`` a configured provider names, and the names and patterns in
  ``[tools] secret_env`` (``secret_names``).

Everything else (``PATH``, ``HOME``, ``LANG``, a virtualenv...) is kept, so commands behave as
in the user's shell.

A command may still come upon a key (a ``.env`` file, a config it prints), so every value of a
denied variable is also scrubbed from what a tool returns (``SecretScrubber``): it reaches the
model, the session log, the event log and the screen as ``[redacted: NAME]``.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping
from typing import Final

from steiner_tui.config import Config

__all__ = [
    "SecretScrubber",
    "secret_names",
    "split_environment",
    "tool_environment",
]

DENIED_PATTERNS: Final = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "*_API_KEY",
    "*_KEY",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_*",
    "*_PASSWORD",
)
"""Names (``fnmatch`` patterns, matched upper-cased) never passed to a tool subprocess."""


@functools.lru_cache(maxsize=32)
def _deny_list(extra: tuple[str, ...]) -> re.Pattern[str]:
    """The built-in patterns and ``extra`` as one regex (compiled once per ``extra``)."""
    return re.compile("|".join(fnmatch.translate(p.upper()) for p in (*DENIED_PATTERNS, *extra)))


def tool_environment(env: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without the variables on the deny list.

    Args:
        env: the environment to start from (the app's).
        extra: more names or patterns to deny (``secret_names(config)``).

    Returns:
        A new dict.
    """
    return split_environment(env, extra)[0]


def split_environment(
    env: Mapping[str, str], extra: Iterable[str] = ()
) -> tuple[dict[str, str], SecretScrubber]:
    """``tool_environment(env, extra)`` (a new dict) and ``SecretScrubber(env, extra)``.

    Every tool call asks for both, and filtering a 90-variable environment with ``fnmatch``
    took longer than most tools: they are computed once per distinct environment, its names
    and values compared on each call, so a variable set since (``os.environ``, a test's
    ``setenv``) is seen at once.
    """
    kept, scrubber = _split(tuple(env.items()), tuple(extra))
    return dict(kept), scrubber


@functools.lru_cache(maxsize=8)
def _split(
    items: tuple[tuple[str, str], ...], extra: tuple[str, ...]
) -> tuple[dict[str, str], SecretScrubber]:
    denied = _deny_list(extra)
    kept = {name: value for name, value in items if denied.match(name.upper()) is None}
    return kept, SecretScrubber(dict(items), extra)


def secret_names(config: Config | None) -> tuple[str, ...]:
    """The config's additions to the deny list: every ``api_key_env`` and ``[tools] secret_env``."""
    if config is None:
        return ()
    keys = (p.api_key_env for p in config.providers.values() if p.api_key_env)
    return tuple(dict.fromkeys((*keys, *config.secret_env)))


MIN_SECRET_CHARS = 8
"""Shorter values of a denied variable (``DEBUG_TOKEN=1``) are not scrubbed: they would redact
every ``1`` in the output and protect nothing."""


class SecretScrubber:
    """Replaces every value of a denied variable in a text by ``[redacted: NAME]``.

    Args:
        env: the environment the values come from (the app's).
        extra: more names or patterns to deny (``secret_names(config)``).
    """

    def __init__(self, env: Mapping[str, str], extra: Iterable[str] = ()) -> None:
        denied = _deny_list(tuple(extra))
        values: dict[str, str] = {}
        for name, value in sorted(env.items()):
            if len(value) >= MIN_SECRET_CHARS and denied.match(name.upper()):
                values.setdefault(value, name)
        self._names = values
        # Longest first: a key that holds another one is replaced whole.
        ordered = sorted(values, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def scrub(self, text: str) -> str:
        """``text`` with every secret value replaced."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(lambda match: f"[redacted: {self._names[match[0]]}]", text)
