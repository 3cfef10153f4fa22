"""A bash command's whole process tree ends with the call's cancel or the app, not just its group.

Issue 29: ``setsid`` children of a command survived a SIGKILL of the app (and Esc), and plain
``&`` children survived the app's normal exit. Each command now runs under a supervisor that is
a child subreaper: whatever leaves the group is still its descendant, and it ends them all.
The pids come through a FIFO (reading it is the synchronisation); ends are told by the kernel
(``wait_ended``: ``pidfd_open``).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.tools.bash import SUPERVISED, run_command
from tests.tools.conftest import wait_ended

pytestmark = pytest.mark.skipif(not SUPERVISED, reason="the supervisor is Linux only")

ESCAPES = "setsid sh -c 'echo $$ > {fifo}; exec sleep 300' > /dev/null 2>&1 &"
HELD = ESCAPES + " sleep 300"
"""The same, the command itself still running."""
"""A child that leaves the command's process group and session, then reports its pid."""


async def test_a_cancel_ends_a_child_that_left_the_group(tmp_path: Path) -> None:
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    task = asyncio.create_task(run_command(HELD.format(fifo=fifo), cwd=tmp_path))
    escaped = int((await asyncio.to_thread(fifo.read_text)).strip())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_ended(escaped), "the setsid child outlived the cancel"


async def test_a_timeout_ends_a_child_that_left_the_group(tmp_path: Path) -> None:
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    task = asyncio.create_task(run_command(HELD.format(fifo=fifo), cwd=tmp_path, time_limit=3))
    escaped = int((await asyncio.to_thread(fifo.read_text)).strip())
    result = await task
    assert result.status == "failed" and "timed out" in result.content
    assert wait_ended(escaped), "the setsid child outlived the timeout"


PARENT = """
import asyncio, os, signal, sys
from pathlib import Path
from steiner_tui.tools.bash import run_command
fifo, command, how = sys.argv[1:4]
result = asyncio.run(run_command(command.format(fifo=fifo), cwd=Path.cwd(), time_limit=600))
print(result.status, flush=True)
if how == "hold":
    signal.pause()  # the test kills this process
"""


def _run_parent(tmp_path: Path, command: str, how: str) -> tuple[subprocess.Popen[str], int]:
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(fifo), command, how],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    with fifo.open() as reader:
        return parent, int(reader.readline().split()[0])


ESCAPED_BACKGROUND = "setsid sh -c 'exec sleep 300' > /dev/null 2>&1 & echo $! > {fifo}"
"""A background child that leaves the group, its pid written by the command itself: the app
may exit (ending it) before the child could write anything, and a reader would wait forever."""


def test_background_children_end_with_the_app_s_normal_exit(tmp_path: Path) -> None:
    for command in ("sleep 300 > /dev/null & echo $! > {fifo}", ESCAPED_BACKGROUND):
        parent, child = _run_parent(tmp_path, command, "exit")
        try:
            out, _ = parent.communicate(timeout=120)
            assert out.strip() == "done"
            assert wait_ended(child), f"{command!r}: the child outlived the app's exit"
        finally:
            (tmp_path / "pid").unlink()
            if parent.poll() is None:
                parent.kill()
                parent.communicate()


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=str)
def test_a_child_that_left_the_group_dies_with_the_app(
    tmp_path: Path, signum: signal.Signals
) -> None:
    parent, child = _run_parent(tmp_path, HELD, "run")
    try:
        os.kill(parent.pid, signum)
        parent.communicate(timeout=30)
        assert wait_ended(child), "the setsid child outlived the app"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.communicate()


async def test_a_background_child_lives_on_after_the_call(tmp_path: Path) -> None:
    """``&`` still means in the background: the call returns, the server keeps running."""
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    task = asyncio.create_task(
        run_command(f"sleep 300 > /dev/null & echo $! > {fifo}", cwd=tmp_path)
    )
    child = int((await asyncio.to_thread(fifo.read_text)).strip())
    result = await task
    assert result.content == "[no output]" or result.status == "done"
    os.kill(child, 0)  # still there
    os.kill(child, signal.SIGKILL)
    assert wait_ended(child)
