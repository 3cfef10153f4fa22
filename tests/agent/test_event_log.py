"""The JSONL event log records a compaction's summary call starting, not each streamed update."""

from __future__ import annotations

import io
import json

from steiner_tui.agent.event_log import JsonlEventLog
from steiner_tui.engine.events import CompactionProgress, ReasoningDelta, TextDelta, ToolInputDelta


def test_the_event_log_keeps_the_start_of_a_summary_call_only() -> None:
    out = io.StringIO()
    log = JsonlEventLog(out)
    log.emit(CompactionProgress("emergency", "local/qwen", fallback=True))
    log.emit(CompactionProgress("emergency", "local/qwen", fallback=True, tokens=16))
    log.close()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(lines) == 1
    assert lines[0]["type"] == "compaction_progress"
    assert lines[0]["stage"] == "emergency" and lines[0]["target"] == "local/qwen"


def test_the_event_log_leaves_streamed_pieces_to_the_finished_message() -> None:
    out = io.StringIO()
    log = JsonlEventLog(out)
    for event in (TextDelta("Hel"), ReasoningDelta("hmm"), ToolInputDelta("write", 12)):
        log.emit(event)
    log.close()
    assert out.getvalue() == ""
