"""``watch``'s workbench on a copy of a real Claude Code session (the shared fixtures) that
grows while it is open: the requests table follows, and a lineage browser opened before the
session's compaction is written shows the new generation once it is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.importers.follow import TranscriptFollower

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
SESSION = FIXTURES / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"


@pytest.mark.slow
async def test_the_workbench_and_its_lineage_follow_a_growing_session(tmp_path: Path) -> None:
    lines = SESSION.read_bytes().splitlines(keepends=True)
    boundary = next(i for i, line in enumerate(lines) if b'"compact_boundary"' in line)
    copy = tmp_path / SESSION.name
    copy.write_bytes(b"".join(lines[:boundary]))
    follower = TranscriptFollower(copy)
    follower.poll()
    before = len(follower.session.requests) if follower.session else 0
    app = ReadOnlyApp(transcript=follower)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedScreen)
        assert len(screen.session["requests"]) == before
        await pilot.press("l")
        for _ in range(300):  # the lineage is read in a worker
            if isinstance(app.screen, LineageScreen):
                break
            await pilot.pause(0.1)
        first = app.screen
        assert isinstance(first, LineageScreen) and len(first.lineage.generations) == 1
        with copy.open("ab") as handle:
            handle.write(b"".join(lines[boundary:]))
        for _ in range(600):  # a generous deadline, polled: no wall time is asserted
            shown = app.screen
            if isinstance(shown, LineageScreen) and len(shown.lineage.generations) == 2:
                break
            await pilot.pause(0.1)
        await pilot.pause()  # the new browser's first frame (its header's title) is drawn
        shown = app.screen
        assert isinstance(shown, LineageScreen) and shown is not first
        assert len(shown.lineage.generations) == 2
        assert len(screen.session["requests"]) > before
        assert len(app.screen_stack) == 3  # the first lineage was replaced, not stacked
