"""Data shown as text: never markup, and control characters as visible symbols.

Everything the workbench shows that it did not write itself (messages, tool output, titles,
paths, provider errors) goes into ``Content(...)`` or ``rich.text.Text(...)``, never into a
markup string. ``printable`` also replaces control characters (an escape sequence in a
command's output, a stray NUL in a title) by their Unicode pictures (``␛``, ``␀``), so data can
neither restyle nor move the terminal. Newlines and tabs are kept.

``PlainToasts`` is where every toast of both apps is made plain: a toast is never markup (the
workbench's and the read-only app's calls pass no ``markup``; Textual's own default is ``True``).
"""

from __future__ import annotations

import re

from textual.app import App
from textual.notifications import SeverityLevel

__all__ = ["PlainToasts", "printable"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code)


def printable(text: str) -> str:
    """``text`` with control characters (but newline and tab) as visible symbols (``␛``)."""
    return _CONTROL.sub(_picture, text)


class PlainToasts(App[None]):
    """An app whose toasts are text: never markup, control characters visible."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A toast of plain text (``markup`` is Textual's signature; it is never used: a
        widget's ``notify`` passes ``True`` by default)."""
        super().notify(
            printable(message),
            title=printable(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )
