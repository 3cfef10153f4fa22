"""Prompt-cache diagnostics: the cold-start mark and each runner's cache baseline.

Each model call is reported with a ``CacheDiagnostic`` beside its snapshot: whether it is the
first main request of the process (a cold start: the provider has cached nothing of ours yet),
and whether its cacheable prefix (the block messages) repeats the previous main request's, the
runner's *cache baseline*. The cold-start mark is process-wide, so a second session or a
delegated child is not reported as a cold start again.

A compaction fallback acts for the main session without being it (docs/design.md, "9.
Compaction fallback and the last main request"): its calls report no cold start, leave the
process-wide mark where it is, and neither compare with nor move the main baseline.
"""

from __future__ import annotations

import threading

from steiner_tui.engine.events import CacheDiagnostic, RequestSnapshot
from steiner_tui.engine.messages import cumulative_prefix_hashes

__all__ = ["PROCESS_COLD_START", "CacheDiagnostics", "ColdStartMark"]


class ColdStartMark:
    """Set by the first main request; ``take`` says whether this call was that one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = False

    def take(self) -> bool:
        """True exactly once: for the first caller."""
        with self._lock:
            first = not self._taken
            self._taken = True
            return first

    @property
    def taken(self) -> bool:
        """Whether a main request was already reported."""
        return self._taken


PROCESS_COLD_START = ColdStartMark()
"""The process-wide mark (tests hand runners their own)."""


def _prefix_hash(snapshot: RequestSnapshot) -> str:
    count = snapshot.block_message_count
    if count <= 0:
        return ""
    return cumulative_prefix_hashes(snapshot.message_hashes[:count])[-1]


class CacheDiagnostics:
    """One runner's cache baseline over a (usually process-wide) cold-start mark.

    Args:
        mark: the cold-start mark (default: the process's).
    """

    def __init__(self, mark: ColdStartMark | None = None) -> None:
        self.mark = mark if mark is not None else PROCESS_COLD_START
        self.baseline = ""
        """The prefix hash of the last main request ("" before the first)."""

    def main(self, snapshot: RequestSnapshot) -> CacheDiagnostic:
        """The diagnostic of a main-session call (normal turn or main summary); it moves the
        baseline and takes the cold-start mark."""
        prefix = _prefix_hash(snapshot)
        stable = bool(self.baseline) and prefix == self.baseline
        self.baseline = prefix
        return CacheDiagnostic(
            snapshot.request_id,
            cold_start=self.mark.take(),
            prefix_messages=snapshot.block_message_count,
            prefix_hash=prefix,
            prefix_stable=stable,
            compaction=snapshot.compaction,
        )

    def fallback(self, snapshot: RequestSnapshot) -> CacheDiagnostic:
        """The diagnostic of a compaction fallback's call: no cold start, baseline untouched."""
        return CacheDiagnostic(
            snapshot.request_id,
            cold_start=False,
            prefix_messages=snapshot.block_message_count,
            prefix_hash=_prefix_hash(snapshot),
            prefix_stable=False,
            compaction=True,
            fallback=True,
        )
