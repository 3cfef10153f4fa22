"""The palette's Screenshot: saved where the user can find it, and said where (or why not).

Textual's own command delivers the file to the Downloads folder and reports only "Failed to
save screenshot" when that folder is missing or not writable. This one saves the SVG to the
first folder that can take it (Downloads, then ``CONFIG/screenshots``, then the current folder)
and names the file, or says what failed for each folder it tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from platformdirs import user_downloads_path
from textual.app import App

__all__ = ["ScreenshotResult", "save_screenshot", "screenshot_folders"]


class ScreenshotResult:
    """Where the screenshot went, or the reasons it went nowhere."""

    def __init__(self, path: Path | None, failures: Sequence[str]) -> None:
        self.path = path
        self.failures = tuple(failures)

    @property
    def message(self) -> str:
        """One sentence for a notification."""
        if self.path is not None:
            return f"Saved the screenshot to {self.path}"
        return "Could not save the screenshot: " + "; ".join(self.failures)


def screenshot_folders(config_dir: Path | None) -> list[Path]:
    """The folders tried, in order."""
    folders = [user_downloads_path()]
    if config_dir is not None:
        folders.append(config_dir / "screenshots")
    folders.append(Path.cwd())
    return folders


def save_screenshot(app: App[Any], folders: Sequence[Path]) -> ScreenshotResult:
    """Save ``app``'s screen as SVG into the first of ``folders`` that takes it."""
    failures: list[str] = []
    svg = app.export_screenshot()
    name = f"steiner-tui-{app.screen.__class__.__name__}-{_stamp()}.svg"
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / name
            path.write_text(svg, encoding="utf-8")
        except OSError as error:
            failures.append(f"{folder}: {error.strerror or error}")
            continue
        return ScreenshotResult(path, failures)
    return ScreenshotResult(None, failures)


def _stamp() -> str:
    return datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
