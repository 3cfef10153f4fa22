"""Data shown as text in the workbench: never markup, control characters as visible symbols.

The sanitizer itself lives in ``steiner_tui.plain`` (Textual-free, so the commands use it too);
this module re-exports it for the widgets and holds ``PlainToasts``, the base of both apps,
where every toast is made plain (a toast is never markup: Textual's own default is ``True``,
and its Ctrl+C toast names the quit key in markup, said here as text) and the palette's
Screenshot says where it saved the file, or why it could not (``app.screenshot``; Textual's own
says only "Failed to save screenshot").
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from textual.app import App, SystemCommand
from textual.notifications import SeverityLevel
from textual.screen import Screen

from steiner_tui.app.help_catalog import key_label
from steiner_tui.app.screenshot import save_screenshot, screenshot_folders
from steiner_tui.plain import one_line, printable

__all__ = ["PlainToasts", "one_line", "printable"]


class PlainToasts(App[None]):
    """An app whose toasts are text: never markup, control characters visible."""

    def screenshot_config_dir(self) -> Path | None:
        """The config folder whose ``screenshots`` take a screenshot when Downloads cannot
        (None: the current folder does)."""
        return None

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's system commands, with a Screenshot that says where it saved (or why not)."""
        for command in super().get_system_commands(screen):
            if command.title != "Screenshot":
                yield command
        yield SystemCommand(
            "Screenshot", "Save an SVG of the screen (the notice names the file)", self.screenshot
        )

    def screenshot(self) -> None:
        """Save the screen as SVG and say where (``app.screenshot``)."""
        result = save_screenshot(self, screenshot_folders(self.screenshot_config_dir()))
        severity: SeverityLevel = "information" if result.path is not None else "error"
        self.notify(result.message, title="Screenshot", severity=severity)

    def action_help_quit(self) -> None:
        """Ctrl+C with nothing to copy (or stop): say which key quits. Textual's own toast
        is markup, which a plain toast would show as written."""
        for key, active in self.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                self.notify(f"Press {key_label(key)} to quit.", title="Do you want to quit?")
                return

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
