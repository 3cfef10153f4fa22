"""grep runs ripgrep: linear time whatever the pattern, off the caller's thread, cancellable.

Python's ``re`` backtracks: ``(a+)+$`` on a 35-byte line took longer than anyone waits, in a
thread nothing could cancel (the TUI froze, Esc and Ctrl+Q dead). ripgrep's regex engine has
no backtracking, and a search is a child process that a cancelled call kills.
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.tools import grep as grep_module
from steiner_tui.tools.grep import GrepTool, grep
from tests.tools.conftest import make_ctx, wait_ended

_PATIENCE = 30.0
"""How long a search may take before the test calls it hung (a bound, not a figure checked)."""


def test_a_catastrophic_pattern_ends(project: Path) -> None:
    """In a child process: a backtracking ``re`` holds the GIL, so no thread could time it."""
    (project / "evil.txt").write_text("a" * 34 + "!\n")
    code = (
        "import sys; from pathlib import Path; from steiner_tui.tools.grep import grep; "
        "print(grep(Path(sys.argv[1]), '(a+)+$').content)"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(project)],
            capture_output=True,
            text=True,
            timeout=_PATIENCE,
            check=True,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("grep (a+)+$ on a 35-byte line did not end")
    assert done.stdout == "No matches for (a+)+$\n"


def test_patterns_ripgrep_cannot_run_in_linear_time_are_refused_clearly(project: Path) -> None:
    (project / "a.txt").write_text("foo\n")
    result = grep(project, "(?<=x)foo")
    assert result.status == "failed"
    assert result.content.startswith("invalid regex '(?<=x)foo':")
    assert "look-around" in result.content


def test_a_cancelled_search_ends_its_process(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "a.txt").write_text("foo\n")
    pid_file = tmp_path / "pid"
    os.mkfifo(pid_file)  # the script's write waits for the test's read: no polling
    slow = tmp_path / "slow-rg"
    slow.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 600\n")
    slow.chmod(slow.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(grep_module, "ripgrep_binary", lambda: str(slow))

    async def scenario() -> int:
        ctx, _ = make_ctx(project)
        task = asyncio.create_task(GrepTool().run({"pattern": "foo"}, ctx))
        pid = int(await asyncio.to_thread(pid_file.read_text))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid

    pid = asyncio.run(scenario())
    assert wait_ended(pid), "the search process outlived its cancelled call"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_odd_file_names_are_read_back_as_they_are(project: Path) -> None:
    """ripgrep's JSON output names each file exactly: a colon, a line break or bytes that are
    not UTF-8 in a name cannot be mistaken for the line number or the text."""
    (project / "a:1:b.txt").write_text("needle one\n")
    (project / "c\nd.txt").write_text("needle two\n")
    odd = os.fsdecode(b"e\xff.txt")
    (project / odd).write_text("needle three\r\n")
    result = grep(project, "needle")
    assert result.content.split("\n") == [
        "a:1:b.txt:1:needle one",
        "c",
        "d.txt:1:needle two",
        f"{odd}:1:needle three",
    ]
