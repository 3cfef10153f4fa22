"""The provider's own word on a prompt-cache miss, read from its reply.

Anthropic's message carries ``diagnostics.cache_miss_reason`` (``{"type": "system_changed"}``,
``tools_changed``, ``messages_changed``, ``model_changed``, ``unavailable``...), OpenAI's
Responses object ``prompt_cache_diagnostics`` (``{"type": "cache_miss", "reason":
"input_changed"}``). Both are read through attributes or extra fields, as an SDK that does not
type them yet leaves them, and a bare ``cache_miss_reason`` string on a usage object too; the
runner shows the reason beside its own named cause (``engine.cache_causes``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["cache_miss_reason"]

_PATHS = (
    ("diagnostics", "cache_miss_reason", "type"),
    ("cache_miss_reason", "type"),
    ("cache_miss_reason",),
    ("prompt_cache_diagnostics", "reason"),
    ("prompt_cache_diagnostics", "type"),
)
_NOT_A_MISS = frozenset({"cache_hit"})


def _field(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    value = getattr(obj, key, None)
    if value is None:
        value = (getattr(obj, "model_extra", None) or {}).get(key)
    return value


def cache_miss_reason(*sources: Any) -> str:
    """The first reason found on ``sources`` (a message, a response, a usage object); ""
    when none gives one, or it says the cache was hit."""
    for source in sources:
        for path in _PATHS:
            value = source
            for key in path:
                value = None if value is None else _field(value, key)
            if isinstance(value, str) and value and value not in _NOT_A_MISS:
                return value
    return ""
