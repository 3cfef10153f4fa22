"""The config's own value types: a duration and a keymap value, and the hook that decodes them;
and the check of a provider's ``base_url``.

TOML has no duration and no key: ``[compaction_fallback] after`` is written ``"90s"`` or whole
seconds, a ``[keymap]`` value ``"ctrl+q"`` or ``"f2,ctrl+i"``. Each is checked when the config is
decoded (``decode_hook``), so a word that names no key fails there, naming the key that holds it.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "NAMED_KEYS",
    "Duration",
    "KeySpec",
    "decode_hook",
    "parse_duration",
    "url_problem",
    "validate_key_spec",
]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def parse_duration(text: str) -> timedelta:
    """Parse ``90s``, ``10m``, ``1h30m``, ``250ms`` (units ``h m s ms``; ``0`` is zero).

    Raises:
        ValueError: the text is not a duration.
    """
    value = text.strip()
    if value == "0":
        return timedelta(0)
    pos, total = 0, 0.0
    for match in _DURATION.finditer(value):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos == 0 or pos != len(value):
        raise ValueError(f"not a duration: {text!r} (use e.g. 90s, 10m, 1h30m)")
    return timedelta(seconds=total)


class Duration(timedelta):
    """A ``timedelta`` read from a duration string (``parse_duration``) or whole seconds."""


class KeySpec(str):
    """A keymap value: keys in ``App.set_keymap`` form, checked by ``validate_key_spec``."""


_MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
NAMED_KEYS = frozenset([
    *(f"f{number}" for number in range(1, 25)),
    "backspace", "delete", "down", "end", "enter", "escape", "home", "insert", "left", "newline",
    "pagedown", "pageup", "return", "right", "space", "tab", "up",
    "at", "backslash", "minus", "plus", "slash", "underscore",
])  # fmt: skip
"""Textual's key names that are not a character's name (``tests/test_config.py`` checks them
against Textual's own list)."""


def _is_key_name(name: str) -> bool:
    """A key Textual can send: a single printable character, a named key (``escape``, ``f2``)
    or a character's Unicode name as Textual writes it (``question_mark``, ``less_than_sign``)."""
    if len(name) == 1:
        return name.isprintable() and not name.isspace()
    if name in NAMED_KEYS:
        return True
    for spelled in (name, name.replace("_than", "-than").replace("hyphen_", "hyphen-")):
        try:
            character = unicodedata.lookup(spelled.replace("_", " "))
        except KeyError:
            continue
        return len(character) == 1 and character.isprintable() and not character.isspace()
    return False


def validate_key_spec(spec: str) -> str:
    """Check a keymap value such as ``"ctrl+q"`` or ``"f2,ctrl+i"``; return it unchanged.

    Each comma-separated key is optional modifiers (``ctrl``, ``shift``, ``alt``, ``meta``,
    ``super``, ``hyper``) joined by ``+`` to one key: a single printable character or a
    Textual key name (``escape``, ``f1``, ``pageup``, ``question_mark``...). A word that names
    no key (``"off"``, ``"none"``) is refused: Textual would bind it and the action would be
    left without a key (``"off"`` for ``app.quit`` left no way to quit).

    Raises:
        ValueError: the spec is empty or a key is not of that form.
    """
    keys = [key.strip() for key in spec.split(",")]
    if not spec.strip() or not all(keys):
        raise ValueError('expected one or more keys separated by commas, e.g. "ctrl+q"')
    for key in keys:
        *modifiers, name = key.split("+") if key != "+" else ["+"]
        unknown = [m for m in modifiers if m not in _MODIFIERS]
        if unknown:
            raise ValueError(f"{key!r} has an unknown modifier {unknown[0]!r}")
        if not _is_key_name(name):
            raise ValueError(f"{key!r} is not a key (use e.g. ctrl+q, f2, escape)")
    return spec


def decode_hook(kind: type, value: Any) -> Any:
    if kind is Duration:
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return Duration(seconds=value)
        if isinstance(value, str):
            return Duration(seconds=parse_duration(value).total_seconds())
        raise ValueError('expected a duration such as "90s" or "1h30m", or whole seconds')
    if kind is KeySpec:
        if not isinstance(value, str):
            raise ValueError('expected a string of keys such as "ctrl+q"')
        return KeySpec(validate_key_spec(value))
    raise NotImplementedError(kind)


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be a provider's ``base_url`` (None: it can be): an ``http://`` or
    ``https://`` URL with a host. Found when the config is read: a server's address written
    without its scheme (``localhost:8080/v1``, as llama.cpp and Ollama print it) failed only
    at the first request, after its retries, as a connection closed at ``/8080/v1``."""
    if url != url.strip():
        return "has spaces around it"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError as error:
        return f"is not a URL ({error})"
    if parts.scheme in ("http", "https") and parts.hostname:
        return None
    if "://" not in url and url:
        # A server on this machine or the local network speaks http; a hosted API https.
        scheme = "http" if url.startswith(("localhost", "[")) or url[:1].isdigit() else "https"
        return f'expected a URL starting with http:// or https://, e.g. "{scheme}://{url}"'
    return 'expected an http:// or https:// URL with a host, e.g. "http://127.0.0.1:8080/v1"'
