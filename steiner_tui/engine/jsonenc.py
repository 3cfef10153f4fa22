"""Compact JSON in one fixed byte form: the hash input's and the tool definitions'.

Keys are sorted, there are no spaces, non-ASCII characters are kept raw, and ``<`` ``>`` ``&``
U+2028 U+2029 are escaped as ``\\u003c`` and friends (so the bytes can be embedded in HTML-ish
text safely). Python's encoder gives everything else once told ``sort_keys`` and compact
separators.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["go_json"]

_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def go_json(value: Any) -> str:
    """Encode ``value`` in the fixed byte form (``None`` gives ``null``)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.translate(_ESCAPES)
