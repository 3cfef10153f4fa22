"""Pictures of a capture and an import (the issue's acceptance screenshots), as snapshots.

A capture of two requests shaped like Claude Code 2.1.328's (``sample_claude_requests``), in the
workbench and in the request inspector over it; and a real Claude Code session from the
fixtures (one automatic compaction, two sub-agents) as its tokens-per-request chart with the
compaction marked. The capture's clock and the import's path are fixed so every run draws the
same picture.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.commands.capture_screenshots import write_sample_capture
from steiner_tui.importers.claude import import_claude_session

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
SIZE = (140, 44)


def capture_app(base: Path) -> ReadOnlyApp:
    capture_id = write_sample_capture(base, "snapshot-capture")
    return ReadOnlyApp(capture=(base, capture_id), follow=False)


def test_capture_in_the_workbench(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(capture_app(tmp_path), terminal_size=SIZE)


def test_captured_claude_code_request_in_the_inspector(snap_compare: Any, tmp_path: Path) -> None:
    async def to_blocks(pilot: Pilot[None]) -> None:
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("down")  # from the request's detail to its blocks
        await pilot.pause()

    assert snap_compare(capture_app(tmp_path), run_before=to_blocks, terminal_size=SIZE)


def test_imported_session_chart_with_its_compaction(snap_compare: Any) -> None:
    path = FIXTURES / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    data = import_claude_session(path).to_json()
    data["path"] = f"fixtures/claude-code/{path.name}"
    assert snap_compare(ReadOnlyApp(imported=data), terminal_size=(120, 36))


def test_imported_conversation_beside_its_chart(snap_compare: Any) -> None:
    path = FIXTURES / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    data = import_claude_session(path).to_json()

    async def to_conversation(pilot: Pilot[None]) -> None:
        await pilot.press("v")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    app = ReadOnlyApp(imported=data)
    assert snap_compare(app, run_before=to_conversation, terminal_size=SIZE)
