"""End to end: ``steiner-tui watch`` in a real terminal (tmux) on a copy of a real Claude Code
session (1.0.108, ``tests/importers/data``) that a writer extends line by line.

``watch`` is started with no path, in a project folder, with ``HOME`` pointing at a temporary
home whose ``.claude/projects`` holds the copy: it finds the transcript as it finds a running
session's. Each time an appended line settles a request, the panel's request count ("N
requests") and the chart's title ("Context tokens per request (N)") must follow; every step
polls ``capture-pane`` within a generous deadline (no wall time is asserted), on the private
tmux server of ``test_tmux``'s fixture.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from steiner_tui.importers.follow import TranscriptFollower, claude_project_folder
from tests.e2e.test_tmux import (
    SESSION,
    START_DEADLINE,
    Tmux,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)

REPO = Path(__file__).resolve().parents[2]
REAL = REPO / "tests/importers/data/claude-code-1.0.108/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def _requests_after(lines: list[bytes], count: int, tmp: Path) -> int:
    """The requests the main thread has once ``count`` lines are written."""
    copy = tmp / "prefix.jsonl"
    copy.write_bytes(b"".join(lines[:count]))
    follower = TranscriptFollower(copy)
    session = follower.poll()
    return len(session.requests) if session is not None else 0


@pytest.mark.slow
def test_watch_follows_a_growing_transcript(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    folder = claude_project_folder(home, project)
    folder.mkdir(parents=True)
    transcript = folder / REAL.name
    lines = REAL.read_bytes().splitlines(keepends=True)
    start = 6
    transcript.write_bytes(b"".join(lines[:start]))
    command = shlex.join([sys.executable, "-m", "steiner_tui", "watch"])
    tmux(
        "new-session", "-d", "-x", "160", "-y", "50", "-s", SESSION, "-c", str(project),
        "-e", f"HOME={home}", "-e", f"XDG_CONFIG_HOME={tmp_path / 'config'}", command,
    )  # fmt: skip
    shown = _requests_after(lines, start, tmp_path)
    _wait_for(tmux, f"{shown} requests ·", f"per request ({shown})", deadline=START_DEADLINE)
    for count in range(start + 1, len(lines) + 1):  # the writer: one line at a time
        with transcript.open("ab") as handle:
            handle.write(lines[count - 1])
        expected = _requests_after(lines, count, tmp_path)
        if expected != shown:
            _wait_for(tmux, f"{expected} requests ·", f"per request ({expected})")
            shown = expected
    assert shown == 10  # every request of the main thread, the sub-agents' apart
    _wait_for(tmux, "2 sub-agents")
