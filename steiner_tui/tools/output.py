"""Bounded capture of a subprocess's output: the first and last halves around a marker.

A command can print gigabytes; memory must not grow with it. The collector keeps a head of at
most ``cap // 2`` characters' worth of bytes and a rolling tail, notes whether it dropped
anything, and decodes once at the end (invalid UTF-8 becomes U+FFFD).
"""

from __future__ import annotations

__all__ = ["OutputCollector"]

_BYTES_PER_CHAR = 4


class OutputCollector:
    """Keeps the start and end of a byte stream within ``cap`` characters."""

    def __init__(self, cap: int) -> None:
        self._cap = cap
        self._head_chars = cap // 2
        self._tail_chars = cap - self._head_chars
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = False

    def feed(self, chunk: bytes) -> None:
        """Add bytes to the capture."""
        room = self._head_chars * _BYTES_PER_CHAR - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        limit = self._tail_chars * _BYTES_PER_CHAR
        if len(self._tail) > 2 * limit:
            del self._tail[:-limit]
            self._dropped = True

    def result(self) -> tuple[str, bool]:
        """The captured text (with a marker where characters were left out) and whether any were."""
        if not self._dropped:
            full = (self._head + self._tail).decode("utf-8", errors="replace")
            if len(full) <= self._cap:
                return full, False
            head, tail = full[: self._head_chars], full[-self._tail_chars :]
            what = f"{len(full) - len(head) - len(tail)} characters omitted"
        else:
            head = self._head.decode("utf-8", errors="replace")[: self._head_chars]
            tail = self._tail.decode("utf-8", errors="replace")[-self._tail_chars :]
            what = "the middle of a very long output omitted"
        marker = (
            f"[... output truncated at {self._cap} characters: {what}; "
            f"showing the first {len(head)} and last {len(tail)} characters ...]"
        )
        return f"{head}\n{marker}\n{tail}", True
