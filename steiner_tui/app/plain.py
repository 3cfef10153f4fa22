"""Data shown as text in the workbench: never markup, control characters as visible symbols.

The sanitizer itself lives in ``steiner_tui.plain`` (Textual-free, so the commands use it too);
this module re-exports it for the widgets and holds ``PlainToasts``, where every toast of both
apps is made plain: a toast is never markup (Textual's own default is ``True``).
"""

from __future__ import annotations

from textual.app import App
from textual.notifications import SeverityLevel

from steiner_tui.plain import one_line, printable

__all__ = ["PlainToasts", "one_line", "printable"]


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
