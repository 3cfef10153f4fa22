"""The prompt's unsent text kept as the session's draft while it is typed, not only at quit.

A quit keeps the draft (``MainScreen.keep_draft``); an app killed outright (``kill -9``, a
crash, a machine that lost power) runs no quit, and what was typed was lost. So the draft is
also written ``DRAFT_SAVE_SECONDS`` after the prompt last changed, and emptied as soon as a
message is sent (a killed app must not give back a message that went). The writes happen off
the event loop (a draft can hold a 30 MB paste), one at a time and always the newest: a write
takes whatever draft is newest when it starts, so an older one never lands after a newer one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.screen import Screen
from textual.timer import Timer

from steiner_tui.sessions.draft import Draft, save_draft

__all__ = ["DRAFT_SAVE_SECONDS", "DraftKeeper"]

DRAFT_SAVE_SECONDS = 0.5
"""How long after the prompt last changed its text is written as the draft (a pause in
typing; each key does not write the file)."""


class DraftKeeper:
    """Writes one screen's draft in the background as it changes."""

    def __init__(self, screen: Screen[Any], folder: Callable[[], Path | None]) -> None:
        self._screen = screen
        self._folder = folder
        """The session's folder (None before the session is open, or when it keeps no log)."""
        self._timer: Timer | None = None
        self._writing = threading.Lock()
        """Held while a draft is written (one write at a time)."""
        self._slot = threading.Lock()
        self._newest: tuple[Path, Draft] | None = None
        """The draft to write next (under ``_slot``)."""

    def changed(self, unsent: Callable[[], tuple[str, dict[str, str]]]) -> None:
        """The prompt changed: write what ``unsent`` gives once typing pauses."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._screen.set_timer(
            DRAFT_SAVE_SECONDS, lambda: self.write(Draft(*unsent()))
        )

    def write(self, draft: Draft) -> None:
        """Write ``draft`` in the background (an empty one removes the kept draft)."""
        folder = self._folder()
        if folder is None:
            return
        with self._slot:
            self._newest = (folder, draft)
        self._screen.run_worker(self._write_newest, thread=True, group="draft", exit_on_error=False)

    def sent(self, unsent: Draft) -> None:
        """A message went: the draft kept so far must not come back; ``unsent`` (what is
        still typed or queued) is the draft now."""
        if self._timer is not None:
            self._timer.stop()
        self.write(unsent)

    def keep_now(self, draft: Draft) -> None:
        """Write ``draft`` now, after any write under way (the app is quitting).

        Raises:
            OSError: the folder cannot be written.
        """
        if self._timer is not None:
            self._timer.stop()
        folder = self._folder()
        with self._writing:
            with self._slot:
                self._newest = None
            if folder is not None:
                save_draft(folder, draft)

    def _write_newest(self) -> None:
        with self._writing:
            with self._slot:
                newest, self._newest = self._newest, None
            if newest is None:
                return
            try:
                save_draft(*newest)
            except OSError:
                return  # said when the app quits, where keeping it fails the same way
