"""Go-compatible compact JSON, the byte format of the hash input and of tool definitions.

The reference implementation uses Go's ``json.Marshal``: keys sorted, no spaces, non-ASCII kept
raw, and ``<`` ``>`` ``&`` U+2028 U+2029 escaped as ``\\u003c`` and friends. Python's encoder
matches everything else once given ``sort_keys`` and compact separators.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["go_json"]

_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def go_json(value: Any) -> str:
    """Encode ``value`` exactly as Go's ``json.Marshal`` would (``None`` gives ``null``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.translate(_ESCAPES)
