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
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Final

from steiner_tui.config import Config

__all__ = ["DENIED_PATTERNS", "is_secret", "secret_names", "tool_environment"]

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


def is_secret(name: str, extra: Iterable[str] = ()) -> bool:
    """True when ``name`` is on the deny list (the built-in patterns plus ``extra``)."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, p.upper()) for p in (*DENIED_PATTERNS, *extra))


def tool_environment(env: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without the variables on the deny list.

    Args:
        env: the environment to start from (the app's).
        extra: more names or patterns to deny (``secret_names(config)``).

    Returns:
        A new dict.
    """
    denied = tuple(extra)
    return {key: value for key, value in env.items() if not is_secret(key, denied)}


def secret_names(config: Config | None) -> tuple[str, ...]:
    """The config's additions to the deny list: every ``api_key_env`` and ``[tools] secret_env``."""
    if config is None:
        return ()
    keys = (p.api_key_env for p in config.providers.values() if p.api_key_env)
    return tuple(dict.fromkeys((*keys, *config.secret_env)))
