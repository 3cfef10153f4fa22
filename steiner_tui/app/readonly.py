"""The workbench for a capture or an imported session: read-only, nothing is sent anywhere.

``capture open ID`` opens this app on one screen: a capture in the workbench (the conversation
beside the context panel, ``screens.capture_workbench``; F2 opens the request inspector over it)
or the imported session's chart and lineage (``screens.imported``); ``watch`` opens the latter
on a transcript the agent is still writing, following it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.screen import Screen

from steiner_tui.app.plain import PlainToasts
from steiner_tui.app.screens.capture_workbench import CaptureWorkbench
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.importers.follow import TranscriptFollower
from steiner_tui.resources import styles_dir

__all__ = ["ReadOnlyApp"]


class ReadOnlyApp(PlainToasts):
    """Shows one capture or one imported session."""

    CSS_PATH = styles_dir() / "app.tcss"
    TITLE = "steiner-tui"

    def __init__(
        self,
        *,
        capture: tuple[Path, str] | None = None,
        imported: dict[str, Any] | None = None,
        follow: bool = True,
        transcript: TranscriptFollower | None = None,
        prices: PriceOverrides = NO_OVERRIDES,
    ) -> None:
        super().__init__()
        self.prices = prices
        """The config's prices by model id (before the table)."""
        self._capture = capture
        self._imported = imported
        self._follow = follow
        self._transcript = transcript

    def first_screen(self) -> Screen[None]:
        if self._capture is not None:
            base, capture_id = self._capture
            return CaptureWorkbench(base, capture_id, follow=self._follow, prices=self.prices)
        transcript = self._transcript
        if transcript is not None:  # ``watch``: a transcript the agent is still writing
            session = transcript.session
            data = session.to_json() if session is not None else {"path": str(transcript.path)}
            return ImportedScreen(data, follow=transcript, prices=self.prices)
        assert self._imported is not None
        return ImportedScreen(self._imported, prices=self.prices)

    def on_mount(self) -> None:
        self.push_screen(self.first_screen())
