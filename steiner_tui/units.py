"""How every screen and command writes sizes and token counts: one style, written once.

Counts are exact, with a comma between thousands (``2,467``); a unit follows when the column
or sentence does not already name it: ``2,467 B`` for bytes (UTF-8, never kilobytes: the same
size reads the same in the skill sidebar, the context panel, the inspector, the sessions list and
``steiner-tui context``), ``3,779 tok`` for tokens.
"""

from __future__ import annotations

__all__ = ["byte_count", "count", "token_count"]


def count(value: int) -> str:
    """An exact count with thousands separators: ``12,345``."""
    return f"{value:,}"


def byte_count(value: int) -> str:
    """A size in bytes: ``2,467 B``."""
    return f"{value:,} B"


def token_count(value: int) -> str:
    """A number of tokens: ``3,779 tok``."""
    return f"{value:,} tok"
