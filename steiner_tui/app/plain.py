"""Data shown as text: never markup, and control characters as visible symbols.

Everything the workbench shows that it did not write itself (messages, tool output, titles,
paths, provider errors) goes into ``Content(...)`` or ``rich.text.Text(...)``, never into a
markup string. ``printable`` also replaces control characters (an escape sequence in a
command's output, a stray NUL in a title) by their Unicode pictures (``␛``, ``␀``), so data can
neither restyle nor move the terminal. Newlines and tabs are kept.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def printable(text: str) -> str:
    """``text`` with control characters (but newline and tab) as visible symbols (``␛``)."""
    return _CONTROL.sub(_picture, text)
