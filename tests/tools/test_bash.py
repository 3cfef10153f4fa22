"""bash: output, exit codes, the project root as cwd, timeouts, the cap, and cancellation."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.bash import SUPERVISED, BashTool, run_command
from steiner_tui.tools.output import OutputCollector
from tests.tools.conftest import make_ctx, wait_ended


def _real(path: Path) -> Path:
    return path.resolve()


async def until(done: Callable[[], bool], tries: int = 400, pause: float = 0.05) -> bool:
    """Whether ``done`` came true, asked every ``pause`` seconds at most ``tries`` times (a
    child process goes at its own pace)."""
    for _ in range(tries):
        if done():
            return True
        await asyncio.sleep(pause)
    return False


async def test_output_and_exit_code(project: Path) -> None:
    result = await run_command("echo hi", cwd=project)
    assert result.status == "done"
    assert result.content == "hi\n[exit code: 0]"
    assert result.data["exit_code"] == 0


async def test_nonzero_exit_is_reported_not_failed(project: Path) -> None:
    result = await run_command("echo oops; exit 3", cwd=project)
    assert result.status == "done"
    assert result.content == "oops\n[exit code: 3]"
    assert result.data["exit_code"] == 3


async def test_stdout_and_stderr_interleave(project: Path) -> None:
    result = await run_command("echo a; echo b >&2; echo c", cwd=project)
    assert result.content == "a\nb\nc\n[exit code: 0]"


async def test_runs_in_project_root_with_given_env(project: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "STEINER_X": "42"}
    result = await run_command("pwd; echo $STEINER_X", cwd=project, env=env)
    assert result.content == f"{_real(project)}\n42\n[exit code: 0]"


async def test_no_output(project: Path) -> None:
    result = await run_command("true", cwd=project)
    assert result.content == "(no output)\n[exit code: 0]"


async def test_background_child_does_not_hold_the_call(project: Path) -> None:
    # The child holds the output until the test lets it go: a `sleep 2` could end within the
    # drain grace on a loaded machine, and the call then rightly said nothing of it.
    waiting = "while [ ! -e released ]; do sleep 0.05; done"
    try:
        result = await run_command(f"echo a; ({waiting}) &", cwd=project)
    finally:
        (project / "released").touch()
    assert result.status == "done"
    ending = "; they end when the app does" if SUPERVISED else ""
    assert result.content == (
        "a\n[background processes still run: their later output is not kept"
        f"{ending}]\n[exit code: 0]"
    )


async def test_a_background_child_writes_on_into_its_file_after_the_call(project: Path) -> None:
    """A dev server started with ``&`` broke at its first request: the call closed the pipe
    it logs to, and its next write failed (``echo`` here is killed by SIGPIPE). Each line is
    in the file as it is written, while the child still runs (the model reads it then)."""
    later = project / "out" / "c1-background.txt"
    later.parent.mkdir()

    def waiting(name: str) -> str:
        return f"while [ ! -e {name} ]; do sleep 0.05; done"

    child = f"{waiting('one')}; echo request one; {waiting('two')}; echo request two && touch wrote"
    try:
        result = await run_command(f"echo started; ({child}) &", cwd=project, background=later)
    finally:
        (project / "one").touch()
    assert f"their later output goes to {later}" in result.content
    assert result.content.startswith("started\n")

    try:
        assert await until(lambda: later.read_text() == "request one\n")
    finally:
        (project / "two").touch()
    assert await until(lambda: (project / "wrote").exists())
    assert await until(lambda: later.read_text() == "request one\nrequest two\n")


async def test_timeout_kills_and_says_so(project: Path) -> None:
    result = await run_command("echo started; sleep 5; echo finished", cwd=project, time_limit=0.3)
    assert result.status == "failed"
    assert result.content == "started\n[timed out after 0.3 s; the command was killed]"
    assert result.data["timed_out"] is True


async def test_output_cap_keeps_head_and_tail(project: Path) -> None:
    command = "printf 'A%.0s' $(seq 20000); printf 'B%.0s' $(seq 30000)"
    result = await run_command(command, cwd=project)
    output = result.content.removesuffix("\n[exit code: 0]")
    assert output.startswith("A" * 15000 + "\n[... output cut to fit the context window: ")
    assert "(30,000 of 50,000 bytes); the rest of the output was not kept]" in output
    assert output.endswith("]\n" + "B" * 15000)
    assert result.data["truncated"] is True
    assert result.cut is not None and result.cut.total_bytes == 50000


async def test_a_cut_output_is_kept_whole_in_the_spill_file(project: Path) -> None:
    spill = project / "out" / "c1.txt"
    spill.parent.mkdir()
    command = "for i in $(seq 1 5000); do echo line $i; done"
    result = await run_command(command, cwd=project, cap=2000, spill=spill)
    assert spill.read_text() == "".join(f"line {i}\n" for i in range(1, 5001))
    assert result.cut is not None and result.cut.saved_at == str(spill)
    assert (result.cut.total_lines, result.cut.total_bytes) == (5000, len(spill.read_bytes()))
    assert f"the full output is saved at {spill}" in result.content
    assert result.content.startswith("line 1\n") and "line 5000\n[exit code: 0]" in result.content
    # A smaller window of the same output, on the runner's request.
    assert result.reshape is not None
    smaller = result.reshape(900)
    assert len(smaller.content) < 1000 and "line 5000" in smaller.content
    # Nothing cut: no file is left behind.
    small = await run_command("echo hi", cwd=project, spill=project / "out" / "c2.txt")
    assert small.cut is None and not (project / "out" / "c2.txt").exists()


def test_collector_bounds_memory_for_huge_output() -> None:
    collector = OutputCollector(100)
    for _ in range(1000):
        collector.feed(b"x" * 1000)
    collector.feed(b"END")
    text, truncated = collector.result()
    assert truncated
    assert text.startswith("x" * 50 + "\n[... output cut to fit the context window: ")
    assert text.endswith("x" * 47 + "END")


def test_collector_small_output_is_untouched() -> None:
    collector = OutputCollector(100)
    collector.feed("é".encode() * 10)
    assert collector.result() == ("é" * 10, False)


async def test_cancellation_kills_the_process(project: Path) -> None:
    fifo = project / "fifo"
    os.mkfifo(fifo)
    task = asyncio.create_task(run_command(f"echo $$ > {fifo}; exec sleep 30", cwd=project))
    pid = int((await asyncio.to_thread(fifo.read_text)).strip())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_ended(pid), "the shell outlived the cancel"


async def test_bash_tool_asks_with_the_command(project: Path) -> None:
    ctx, permission = make_ctx(project, [D.ALLOW_ONCE])
    result = await BashTool().run({"command": "echo ok", "timeout": 10}, ctx)
    assert result.content == "ok\n[exit code: 0]"
    assert permission.requests[0].tool == "bash"
    assert permission.requests[0].summary == "echo ok"


async def test_bash_tool_rejected_does_not_run(project: Path) -> None:
    ctx, _ = make_ctx(project, [D.REJECT_ALWAYS])
    result = await BashTool().run({"command": "touch made"}, ctx)
    assert result.status == "rejected"
    assert result.content == (
        "The user rejected this bash call. Future bash calls will be rejected too."
    )
    assert not (project / "made").exists()


async def test_bash_tool_empty_command(project: Path) -> None:
    ctx, permission = make_ctx(project)
    result = await BashTool().run({"command": "  "}, ctx)
    assert result.content == "command must not be empty"
    assert permission.requests == []


async def test_an_editor_fails_at_once_instead_of_waiting_for_the_timeout(project: Path) -> None:
    """``git commit`` without ``-m`` opened vim, which read its output pipe for keys until the
    call timed out (120 s)."""
    command = (
        "git init -q repo && cd repo && "
        "git -c user.name=a -c user.email=a@example.org commit -q --allow-empty"
    )
    result = await run_command(command, cwd=project, time_limit=60)
    assert result.status == "done" and not result.data["timed_out"]
    assert "Please supply the message using either -m or -F option." in result.content
    assert result.content.endswith("[exit code: 1]")


async def test_a_running_command_reports_its_output_so_far(project: Path) -> None:
    """While the command waits for the test, the reports say what it printed: the first at
    once, the lines counted, the last lines carried (blank lines left out)."""
    reports: list[tuple[int, int, str]] = []
    go = project / "go"
    command = "printf 'one\\n\\ntwo\\n'; while [ ! -f go ]; do sleep 0.02; done; echo three"
    run = asyncio.create_task(
        run_command(command, cwd=project, progress=lambda *seen: reports.append(seen))
    )
    await until(lambda: bool(reports) or run.done(), tries=500, pause=0.01)
    assert not run.done()
    assert reports[0] == (9, 3, "one\ntwo")
    go.touch()
    result = await run
    assert result.content == "one\n\ntwo\nthree\n[exit code: 0]"
    assert all(lines <= 4 for _, lines, _ in reports)


def test_the_last_lines_are_those_that_hold_text() -> None:
    collector = OutputCollector(100)
    assert collector.last_lines(3) == ""
    collector.feed(b"a\nb\r\n\n  \nc\rd\ne")
    assert collector.last_lines(3) == "c\nd\ne"
    assert collector.last_lines(3, chars=3) == "d\ne"
    collector.feed(b"\xff\n")
    assert collector.last_lines(1) == "e\ufffd"
