"""A capture in the request inspector, read-only and live (F2 from the capture workbench).

The screen is the request inspector (detail, blocks, messages, compare with ``m``) fed with
the capture's requests as snapshots (``capture.snapshots``). While the proxy records, the
requests file grows; the screen checks its size once a second and reloads when it changed,
keeping the highlighted request.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType
from textual.screen import Screen

from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.readonly_figures import usage_events
from steiner_tui.capture.report import decode_all
from steiner_tui.capture.snapshots import to_snapshots
from steiner_tui.capture.store import read_capture
from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.engine.snapshots import SnapshotStore
from steiner_tui.units import counted

__all__ = ["CaptureLog", "CaptureScreen", "close_capture", "load_capture_snapshots"]


def load_capture_snapshots(
    base: Path, capture_id: str, prices: PriceOverrides = NO_OVERRIDES
) -> tuple[Path, SnapshotStore]:
    """The capture's folder and its requests as snapshots, each with its reply's usage, cost
    and cache cause (priced with the config's ``prices`` before the table)."""
    info, recorded = read_capture(base, capture_id)
    requests = decode_all(recorded)
    snapshots = to_snapshots(requests)
    store = SnapshotStore()
    for snapshot in snapshots:
        store.store(snapshot)
    for usage in usage_events(requests, snapshots, prices):
        if usage is not None:
            store.emit(usage)
    return info.directory, store


class CaptureLog:
    """A capture's requests file, to tell when it grew (both capture screens follow it)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "requests.jsonl"
        self._size = self._now()

    def _now(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def changed(self) -> bool:
        """Whether its size changed since the last look."""
        size = self._now()
        changed, self._size = size != self._size, size
        return changed


def close_capture(screen: Screen[None]) -> None:
    """Close a capture's screen (the app, when it is the only screen)."""
    if len(screen.app.screen_stack) > 2:
        screen.dismiss(None)
    else:
        screen.app.exit()


class CaptureScreen(InspectorScreen):
    """The request inspector over a capture, following it while it grows."""

    TITLE = "Capture"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "close", "Quit", id="capture.quit", tooltip="Close the capture"),
    ]
    """q closes (Escape too, as in the inspector)."""

    def __init__(
        self,
        base: Path,
        capture_id: str,
        *,
        follow: bool = True,
        prices: PriceOverrides = NO_OVERRIDES,
    ) -> None:
        directory, snapshots = load_capture_snapshots(base, capture_id, prices)
        super().__init__(snapshots)
        self.base = base
        self.capture_id = capture_id
        self.follow = follow
        self.prices = prices
        """The config's prices by model id (before the table)."""
        self._log = CaptureLog(directory)
        self.sub_title = f"{capture_id} · {counted(len(snapshots), 'request')} · read-only"

    def on_mount(self) -> None:
        super().on_mount()
        if self.follow:
            self.set_interval(1.0, self.poll)

    def poll(self) -> None:
        """Reload when the requests file changed (called once a second while following)."""
        if self._log.changed():
            self._reload()

    @work(thread=True, exclusive=True, group="capture-reload")
    def _reload(self) -> None:
        _, snapshots = load_capture_snapshots(self.base, self.capture_id, self.prices)
        self.app.call_from_thread(self._show_snapshots, snapshots)

    def _show_snapshots(self, snapshots: SnapshotStore) -> None:
        self.show_requests(snapshots)
        self.sub_title = f"{self.capture_id} · {counted(len(snapshots), 'request')} · read-only"

    def action_close(self) -> None:
        close_capture(self)
