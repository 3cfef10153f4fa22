"""Bounded capture of a subprocess's output: the first and last parts around a cut note.

A command can print gigabytes; memory must not grow with it. The collector keeps a head of at
most ``cap // 2`` characters' worth of bytes and a rolling tail, counts every byte and line,
and decodes once at the end (invalid UTF-8 becomes U+FFFD). Given a ``spill`` file it also
streams the output there, up to ``SPILL_CAP`` bytes (``yes`` for 15 s once wrote 4.5 GB), so a
cut result can say where the rest is, and where the saved file itself stops.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from steiner_tui.engine.events import OutputCut
from steiner_tui.tools.shaping import cut_note

__all__ = ["SPILL_CAP", "OutputCollector"]

_BYTES_PER_CHAR = 4
SPILL_CAP = 64 * 1024 * 1024
"""The most bytes of one command's output saved to its file."""


class OutputCollector:
    """Keeps the start and end of a byte stream within ``cap`` characters.

    Args:
        cap: characters kept in memory (and shown at most).
        spill: a file that receives the whole stream (None: only the capture is kept).
        unbuffered: each chunk reaches ``spill`` as it comes (it is read while written).
    """

    def __init__(self, cap: int, spill: Path | None = None, *, unbuffered: bool = False) -> None:
        self._cap = cap
        self._head_chars = cap // 2
        self._tail_chars = cap - self._head_chars
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = False
        self.total_bytes = 0
        """Bytes seen."""
        self._newlines = 0
        self._ends_with_newline = True
        self.spill = spill
        self.spilled = 0
        """Bytes written to the spill file."""
        self._spill_cut = False
        self.listener: Callable[[], None] | None = None
        """Called after each chunk is fed (a running command's progress)."""
        self._file: BinaryIO | None = None
        if spill is not None:
            try:
                self._file = spill.open("wb", buffering=0 if unbuffered else -1)
            except OSError:
                self.spill = None

    def feed(self, chunk: bytes) -> None:
        """Add bytes to the capture."""
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self._newlines += chunk.count(b"\n")
        self._ends_with_newline = chunk.endswith(b"\n")
        if self._file is not None:
            room = SPILL_CAP - self.spilled
            try:
                self._file.write(chunk[:room])
            except OSError:
                self._file.close()
                self._file, self.spill = None, None
            else:
                self.spilled += min(room, len(chunk))
                if len(chunk) > room:
                    self._spill_cut = True
                    self._file.close()
                    self._file = None
        room = self._head_chars * _BYTES_PER_CHAR - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        limit = self._tail_chars * _BYTES_PER_CHAR
        if len(self._tail) > 2 * limit:
            del self._tail[:-limit]
            self._dropped = True
        if self.listener is not None:
            self.listener()

    def last_lines(self, count: int, chars: int = 1_000) -> str:
        """The last ``count`` lines that hold text, of the last ``chars`` characters seen
        (decoded as the result is: invalid UTF-8 becomes U+FFFD)."""
        recent = (self._tail or self._head)[-chars * _BYTES_PER_CHAR :]
        text = recent.decode("utf-8", errors="replace")[-chars:]
        lines = [line for line in text.replace("\r", "\n").split("\n") if line.strip()]
        return "\n".join(lines[-count:])

    @property
    def total_lines(self) -> int:
        """Lines seen (a last line without a newline counts)."""
        if not self.total_bytes:
            return 0
        return self._newlines + (0 if self._ends_with_newline else 1)

    def close(self) -> None:
        """Finish the spill file (kept only when something was cut)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def parts(self) -> tuple[str, str, bool]:
        """``(head, tail, cut)``: the whole text as ``head`` when nothing was cut."""
        if not self._dropped:
            full = (self._head + self._tail).decode("utf-8", errors="replace")
            if len(full) <= self._cap:
                return full, "", False
            return full[: self._head_chars], full[-self._tail_chars :], True
        head = self._head.decode("utf-8", errors="replace")[: self._head_chars]
        tail = self._tail.decode("utf-8", errors="replace")[-self._tail_chars :]
        return head, tail, True

    def result(self) -> tuple[str, bool]:
        """The captured text (with a cut note where the middle was left out) and whether any
        was; the note names the spill file when there is one."""
        self.close()
        head, tail, cut = self.parts()
        if not cut:
            if self.spill is not None:
                self.spill.unlink(missing_ok=True)  # nothing left out: nothing to keep
                self.spill = None
            return head, False
        return join_cut(head, tail, self.cut_for(head, tail)), True

    def cut_for(self, head: str, tail: str) -> OutputCut:
        """What showing ``head`` and ``tail`` leaves out of the whole stream."""
        shown_lines = head.count("\n") + tail.count("\n") + 1
        return OutputCut(
            self.total_bytes,
            len(head.encode()) + len(tail.encode()),
            self.total_lines,
            min(shown_lines, self.total_lines),
            str(self.spill) if self.spill is not None else "",
            saved_bytes=self.spilled if self._spill_cut and self.spill is not None else 0,
        )


def join_cut(head: str, tail: str, cut: OutputCut) -> str:
    """``head``, the cut note, ``tail``, one per line."""
    return f"{head}\n{cut_note(cut)}\n{tail}"
