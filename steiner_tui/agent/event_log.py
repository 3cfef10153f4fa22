"""A JSONL event log: one engine event per line, for debugging and for ``exec --events``.

Streaming deltas are many and small, so they are coalesced: the log writes one ``text`` record
per finished reply instead of one line per delta. Lines are written whole (one ``write`` per
line) and flushed on turn boundaries.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

from steiner_tui.engine.events import (
    CompactionProgress,
    EngineEvent,
    MessageAppended,
    ReasoningDelta,
    TextDelta,
    ToolInputDelta,
    ToolOutputProgress,
)
from steiner_tui.engine.serialize import event_to_dict

__all__ = ["JsonlEventLog"]


class JsonlEventLog:
    """An ``EventSink`` appending events to a JSONL file (or any text stream)."""

    def __init__(self, target: Path | IO[str]) -> None:
        if isinstance(target, Path):
            target.parent.mkdir(parents=True, exist_ok=True)
            self._stream: IO[str] = target.open("a", encoding="utf-8")
            self._owned = True
        else:
            self._stream = target
            self._owned = False

    def emit(self, event: EngineEvent) -> None:
        if isinstance(event, (TextDelta, ReasoningDelta, ToolInputDelta, ToolOutputProgress)):
            return  # the finished message carries the text, the calls and their output
        if isinstance(event, CompactionProgress) and event.tokens:
            return  # the start of the call is logged; its outcome carries the rest
        line = json.dumps(event_to_dict(event), ensure_ascii=False, separators=(",", ":"))
        self._stream.write(line + "\n")
        if isinstance(event, MessageAppended):
            self._stream.flush()

    def close(self) -> None:
        self._stream.flush()
        if self._owned:
            self._stream.close()
