"""A named pipe in the project: read, shown, edited or searched, it is refused at once.

A named pipe with no writer blocks a plain ``open`` for ever, in a thread no cancel reaches (the
app could not even quit). Each call runs in a thread the test waits on; should it block, the
test opens the pipe's other end, so the call ends and the test fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from steiner_tui.tools.base import ToolResult
from steiner_tui.tools.display_file import display_file
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.grep import grep
from steiner_tui.tools.read import read_file
from tests.tools.conftest import make_ctx

_PATIENCE = 30.0
"""How long a call may take before the test unblocks it (a bound, not a figure checked)."""


def _ends_on_its_own(pipe: Path, call: Callable[[], ToolResult]) -> ToolResult:
    """``call()``'s result; fails the test (after unblocking it) if it waits on ``pipe``."""
    results: list[ToolResult] = []
    worker = threading.Thread(target=lambda: results.append(call()), daemon=True)
    worker.start()
    worker.join(_PATIENCE)
    if worker.is_alive():
        fd = os.open(pipe, os.O_WRONLY)  # the blocked reader's open returns; EOF follows
        os.close(fd)
        worker.join()
        pytest.fail(f"the call blocked on the named pipe {pipe.name}")
    return results[0]


@pytest.fixture
def pipe(project: Path) -> Path:
    path = project / "events.fifo"
    os.mkfifo(path)
    return path


def test_reading_a_named_pipe_is_refused_without_waiting(project: Path, pipe: Path) -> None:
    result = _ends_on_its_own(pipe, lambda: read_file(project, "events.fifo"))
    assert result.status == "failed"
    assert result.content == "cannot read events.fifo: not a regular file (a named pipe)"


def test_showing_a_named_pipe_is_refused_without_waiting(project: Path, pipe: Path) -> None:
    result = _ends_on_its_own(pipe, lambda: display_file(project, "events.fifo"))
    assert result.status == "failed"
    assert "not a regular file (a named pipe)" in result.content


def test_editing_a_named_pipe_is_refused_without_waiting(project: Path, pipe: Path) -> None:
    ctx, _ = make_ctx(project)
    arguments = {"path": "events.fifo", "old_string": "a", "new_string": "b"}
    result = _ends_on_its_own(pipe, lambda: asyncio.run(EditTool().run(arguments, ctx)))
    assert result.status == "failed"
    assert "not a regular file (a named pipe)" in result.content


def test_grep_skips_a_named_pipe_in_the_tree(project: Path, pipe: Path) -> None:
    (project / "notes.txt").write_text("needle here\n")
    result = _ends_on_its_own(pipe, lambda: grep(project, "needle"))
    assert result.content == "notes.txt:1:needle here"


def test_grep_on_a_named_pipe_itself_finds_nothing(project: Path, pipe: Path) -> None:
    result = _ends_on_its_own(pipe, lambda: grep(project, "needle", "events.fifo"))
    assert result.content == "No matches for needle"
