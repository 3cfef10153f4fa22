"""A compaction as it runs: one line in the conversation, updated in place.

A summary on a local model can take minutes; the line says why it runs (its trigger), which
stage and model write it, the output so far and the time spent, ticking each second, and when
it ends, what happened.
"""

from __future__ import annotations

import time

from rich.cells import cell_len
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Static

from steiner_tui.app.plain import printable
from steiner_tui.app.transcript import CompactionRunEntry
from steiner_tui.units import clock, count

__all__ = ["CompactionRow"]


def entry_text(entry: CompactionRunEntry, now: float, width: int = 0) -> str:
    """The line of a compaction at ``now`` (``time.monotonic``): running, or how it ended; an
    end wider than ``width`` puts its stage, model and time on a second line."""
    stage = f"{entry.stage} stage, fallback model" if entry.fallback else f"{entry.stage} stage"
    if entry.trigger:
        stage = f"trigger: {entry.trigger} · {stage}"
    if entry.ended:
        tail = f"({stage} {entry.target}, {clock(entry.took)})"
        # Wrapped, the centred line would leave a word or two alone on its last row.
        wide = width and cell_len(entry.ended) + 1 + cell_len(tail) > width
        return f"{entry.ended}\n{tail}" if wide else f"{entry.ended} {tail}"
    return (
        f"compacting ({stage} {entry.target}): ~{count(entry.tokens)} summary tokens so far "
        f"(characters/4) · {clock(now - entry.started)} · Esc abandons"
    )


class CompactionRow(Static):
    """A compaction's line: live while it runs (a 1 s timer), then how it ended."""

    DEFAULT_CSS = """
    CompactionRow {
        color: $text-accent;
        text-align: center;
        &.-interrupted, &.-error {
            color: $text-error;
        }
    }
    """

    def __init__(self, entry: CompactionRunEntry) -> None:
        super().__init__(classes=f"conversation-item -{entry.kind}")
        self.entry = entry
        """The entry shown."""
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self.refresh_entry()
        if not self.entry.ended:
            self._timer = self.set_interval(1, self.refresh_entry)

    def refresh_entry(self) -> None:
        """Show the entry as it is now (stopping the clock once it has ended)."""
        entry = self.entry
        if entry.ended and self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.set_classes(f"conversation-item -{entry.kind}")
        text = entry_text(entry, time.monotonic(), self.content_size.width)
        self.update(Content(printable(text)))

    def on_resize(self) -> None:
        self.refresh_entry()
