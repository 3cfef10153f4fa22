"""The ``bash`` tool: run a shell command in the project root (asks permission first).

Commands run in their own session (process group), with stdin closed and stdout and stderr
interleaved in one pipe, and an environment without provider secrets (``environment``). On
Linux a command runs under ``supervisor``, which finds every process the command starts, also
one that left its group (``setsid``), and ends them all on a timeout (default 120 s, at most
600 s), a cancellation (Esc), the app's exit (``end_all_commands``) or its death, whatever kills
it. Elsewhere a timeout or a cancellation kills the command's group. Output is
capped at 30,000 characters, and at the result's budget (``ToolContext.output_chars``) when
that is smaller: the first and last parts are kept around a cut note, because the end of a
build or test log is usually where the answer is. The whole output is streamed into the run's
result store when it has one, and the note says where it is. A child left running in the
background (a dev server started with ``&``) does not hold the call up: once the shell exits,
output is awaited for one more second, then the call returns and says so. What such a child
writes later is read on in a thread into a file of the result store, which the result names
(the model can read it): closing the pipe on it instead made its next write fail, and a
server that logs each request (Python's ``http.server``, a Node dev server) then broke on the
first one.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.engine.events import OutputCut
from steiner_tui.engine.tool_results import EXIT_LINE
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import OutputProgress, ToolContext, ToolResult, failed
from steiner_tui.tools.environment import tool_environment
from steiner_tui.tools.guards import ask_permission, plan_mode_bash_refusal
from steiner_tui.tools.output import OutputCollector, join_cut
from steiner_tui.tools.shaping import head_and_tail

__all__ = [
    "BashTool",
    "run_command",
]

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
OUTPUT_CAP = 30_000
_SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
SUPERVISED = sys.platform == "linux"
"""Whether commands run under ``supervisor`` (it needs Linux's ``PR_SET_PDEATHSIG``)."""
_DRAIN_GRACE = 1.0
"""Seconds to wait for output after the shell exits (a background child may hold the pipe)."""
_KILL_GRACE = 5.0
"""Seconds a supervisor has to end its tree before its group is killed outright."""

NO_EDITOR: Mapping[str, str] = {"GIT_EDITOR": "false", "EDITOR": "false", "VISUAL": "false"}
"""A command's editor: with stdin closed one cannot be used, and vim then waited on its output
pipe until the timeout (``git commit`` without ``-m``); ``false`` fails at once, and git says
to use ``-m`` (the tool's description is left as it was: changing it would break every
session's cached prefix)."""

_DEFINITION = ToolDefinition(
    name="bash",
    description=(
        "Run a shell command in the project root and return its combined stdout and stderr "
        f"(capped at {OUTPUT_CAP} characters) and exit code. Stdin is closed; interactive "
        f"commands will not work. Default timeout {DEFAULT_TIMEOUT:g} s, at most "
        f"{MAX_TIMEOUT:g} s; on timeout the command is killed. Not available in plan mode. "
        "Asks the user for permission."
    ),
    parameters={
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command to run."},
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": int(MAX_TIMEOUT),
                "description": f"Timeout in seconds (default {DEFAULT_TIMEOUT:g}).",
            },
        },
        "required": ["command"],
    },
)


class BashTool:
    """Runs shell commands; asks permission and is refused in plan mode."""

    definition = _DEFINITION
    read_only = False

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        refusal = plan_mode_bash_refusal(ctx)
        if refusal is not None:
            return refusal
        command = str(arguments["command"])
        if not command.strip():
            return failed("command must not be empty")
        timeout = min(float(arguments.get("timeout", DEFAULT_TIMEOUT)), MAX_TIMEOUT)
        rejection = await ask_permission(ctx, "bash", command, arguments)
        if rejection is not None:
            return rejection
        results, key = ctx.results, ctx.call_id
        return await run_command(
            command,
            cwd=ctx.project_root,
            time_limit=timeout,
            env=ctx.env,
            cap=min(OUTPUT_CAP, ctx.output_chars or OUTPUT_CAP),
            spill=results.file_for(key) if results and key else None,
            background=results.file_for(f"{key}-background") if results and key else None,
            progress=ctx.progress,
        )


async def run_command(
    command: str,
    *,
    cwd: Path,
    time_limit: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cap: int = OUTPUT_CAP,
    spill: Path | None = None,
    background: Path | None = None,
    progress: OutputProgress | None = None,
) -> ToolResult:
    """Run ``command`` with ``sh`` in ``cwd`` and report its output and exit code.

    Args:
        command: The shell command.
        cwd: The working directory.
        time_limit: Seconds before the command's processes are killed.
        env: The environment (``None``: the app's); provider secrets are always removed.
        cap: Output characters kept.
        spill: a file that receives the whole output (kept only when some was cut).
        background: a file that receives what processes the command left running write
            after the call returns (None: it is read and let go).
        progress: told of the output so far while the command runs (``_Progress``).

    Returns:
        ``done`` with the exit code (whatever it is), or ``failed`` on timeout or when the
        shell cannot start. Cancelling the caller kills the command's processes and re-raises.
    """
    collector = OutputCollector(cap, spill)
    if progress is not None:
        collector.listener = _Progress(collector, progress)
    options: dict[str, Any] = {
        "cwd": cwd,
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.STDOUT,
        "env": {**tool_environment(os.environ if env is None else env), **NO_EDITOR},
        "start_new_session": True,
    }
    try:
        run = await (_SupervisedRun if SUPERVISED else _ShellRun).start(command, collector, options)
    except OSError as exc:
        return failed(f"cannot run command: {exc.strerror or exc}")
    timed_out = detached = False
    kept: int | None = None
    try:
        try:
            await asyncio.wait_for(asyncio.shield(run.exited), time_limit)
        except TimeoutError:
            timed_out = True
            await run.kill()
        try:
            await asyncio.wait_for(asyncio.shield(run.closed), _DRAIN_GRACE)
        except TimeoutError:
            detached = True
    except asyncio.CancelledError:
        # Wait for the end, so no process of the call outlives the cancel.
        await run.kill()
        raise
    finally:
        if detached:
            kept = run.output_pipe()
        run.close()
    code = run.code()
    output, truncated = collector.result()
    head, tail, _ = collector.parts()
    data = {"exit_code": code, "timed_out": timed_out, "truncated": truncated}
    left = _read_on(kept, background) if kept is not None else None

    def finish(text: str, cut: OutputCut | None) -> ToolResult:
        text = text.removesuffix("\n") or "(no output)"
        if detached:
            text += "\n" + _left_running(left)
        if timed_out:
            message = f"{text}\n[timed out after {time_limit:g} s; the command was killed]"
            return msgspec.structs.replace(failed(message, **data), cut=cut)
        return ToolResult(content=f"{text}\n{EXIT_LINE.format(code=code)}", data=data, cut=cut)

    def reshape(max_chars: int) -> ToolResult:
        # Two thirds of the room from the start, one third from the end.
        room = max(0, max_chars - 400)
        if not truncated:
            shaped = head_and_tail(head, max_chars, _keep(spill, head))
            return finish(shaped.text, shaped.cut)
        first = head[: room * 2 // 3]
        last = tail[len(tail) - (room - len(first)) :] if room > len(first) else ""
        cut = collector.cut_for(first, last)
        return finish(join_cut(first, last, cut), cut)

    first = finish(output, collector.cut_for(head, tail) if truncated else None)
    return first.with_reshape(reshape)


PROGRESS_EVERY = 0.25
"""Seconds between two reports of a running command's output."""
PROGRESS_LINES = 3
"""The last lines of output a report carries."""


class _Progress:
    """Reports the output so far after a chunk arrives, at most every ``PROGRESS_EVERY``
    seconds (the first at once): a long build or test run shows it is alive, and what it is
    doing, before it ends."""

    def __init__(self, collector: OutputCollector, report: OutputProgress) -> None:
        self._collector, self._report = collector, report
        self._next = 0.0

    def __call__(self) -> None:
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + PROGRESS_EVERY
        seen = self._collector
        self._report(seen.total_bytes, seen.total_lines, seen.last_lines(PROGRESS_LINES))


def _left_running(followed: Path | None) -> str:
    """The line a result gets when processes the command started still hold its output."""
    where = f"goes to {followed}" if followed else "is not kept"
    ending = "; they end when the app does" if SUPERVISED else ""
    return f"[background processes still run: their later output {where}{ending}]"


def _read_on(fd: int, path: Path | None) -> Path | None:
    """Read the output pipe ``fd`` (the call's own copy) in a thread until the processes left
    running close it, into ``path`` (a collector of its own, which keeps next to nothing in
    memory and writes up to ``SPILL_CAP`` bytes to its file); where it goes, or None."""
    later = OutputCollector(1, path, unbuffered=True)  # the model may read it meanwhile
    os.set_blocking(fd, True)  # the event loop's transport had made it non-blocking

    def drain() -> None:
        try:
            while chunk := os.read(fd, 65536):
                later.feed(chunk)
        except OSError:
            pass
        finally:
            os.close(fd)
            later.close()

    threading.Thread(target=drain, name="bash background output", daemon=True).start()
    return later.spill


class _ShellRun:
    """A command run by asyncio's ``sh`` subprocess (not Linux): its group is what is killed.

    ``Process.wait()`` only returns once every pipe is closed, so a backgrounded child holding
    stdout would stall it; ``exited`` here fires as soon as the shell itself exits.
    """

    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _ShellProtocol) -> None:
        self._transport = transport
        self.exited = protocol.exited
        self.closed = protocol.closed

    @classmethod
    async def start(
        cls, command: str, collector: OutputCollector, options: dict[str, Any]
    ) -> _ShellRun:
        loop = asyncio.get_running_loop()
        transport, protocol = await loop.subprocess_shell(
            lambda: _ShellProtocol(loop, collector), command, **options
        )
        return cls(transport, protocol)

    async def kill(self) -> None:
        _kill_group(self._transport.get_pid())
        await self.exited

    def code(self) -> int | None:
        return self._transport.get_returncode()

    def output_pipe(self) -> int | None:
        """A copy of the output pipe's read end, which ``close`` leaves open (None: closed)."""
        return _copy_of(self._transport.get_pipe_transport(1))

    def close(self) -> None:
        self._transport.close()


class _ShellProtocol(asyncio.SubprocessProtocol):
    """Feeds output to the collector; signals process exit and pipe closure separately."""

    def __init__(self, loop: asyncio.AbstractEventLoop, collector: OutputCollector) -> None:
        self.collector = collector
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.collector.feed(data.encode() if isinstance(data, str) else data)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


class _SupervisedRun:
    """A command run under ``supervisor`` (Linux), which finds and ends its whole tree.

    The shell's exit status comes over a pipe of its own (``exited`` fires at its end): the
    supervisor stays while processes the command left in the background live, so the call
    does not wait for the supervisor's exit. A supervisor still running when the call ends is
    kept in ``_LIVE`` and told to end its tree when the app exits (``end_all_commands``).
    """

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        loop = asyncio.get_running_loop()
        self._popen = popen
        self._status = bytearray()
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self._pipes: list[asyncio.BaseTransport] = []

    @classmethod
    async def start(
        cls, command: str, collector: OutputCollector, options: dict[str, Any]
    ) -> _SupervisedRun:
        _reap()
        read_end, write_end = os.pipe()
        try:
            argv = [sys.executable, "-I", "-S", _SUPERVISOR, command, str(os.getpid())]
            popen = subprocess.Popen(  # noqa: ASYNC220 - a fork and exec: no waiting
                [*argv, str(write_end)], pass_fds=(write_end,), **options
            )
        except OSError:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        _LIVE.add(popen)
        run = cls(popen)
        loop = asyncio.get_running_loop()
        assert popen.stdout is not None
        output, _ = await loop.connect_read_pipe(
            lambda: _PipeReader(collector.feed, run.closed), popen.stdout
        )
        status, _ = await loop.connect_read_pipe(
            lambda: _PipeReader(run._status.extend, run.exited),
            os.fdopen(read_end, "rb", buffering=0),
        )
        run._pipes = [output, status]
        return run

    async def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self._popen.pid, signal.SIGTERM)  # it kills its tree, then itself
        try:
            await asyncio.wait_for(asyncio.shield(self.exited), _KILL_GRACE)
        except TimeoutError:
            _kill_group(self._popen.pid)
            await self.exited

    def code(self) -> int | None:
        text = self._status.decode("ascii", "replace").strip()
        if text.lstrip("-").isdigit():
            return int(text)
        return self._popen.poll()

    def output_pipe(self) -> int | None:
        """A copy of the output pipe's read end, which ``close`` leaves open (None: closed)."""
        return _copy_of(self._pipes[0]) if self._pipes else None

    def close(self) -> None:
        for pipe in self._pipes:
            pipe.close()
        _reap()


def _copy_of(transport: asyncio.BaseTransport | None) -> int | None:
    """A duplicate of the file descriptor a read pipe transport reads (None: none open)."""
    pipe = None if transport is None else transport.get_extra_info("pipe")
    if pipe is None:
        return None
    try:
        return os.dup(pipe.fileno())
    except (OSError, ValueError):
        return None


class _PipeReader(asyncio.Protocol):
    """Hands each chunk of a pipe to ``feed`` and resolves ``ended`` at its end."""

    def __init__(self, feed: Callable[[bytes], object], ended: asyncio.Future[None]) -> None:
        self._feed = feed
        self._ended = ended

    def data_received(self, data: bytes) -> None:
        self._feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._ended.done():
            self._ended.set_result(None)


_LIVE: set[subprocess.Popen[bytes]] = set()
"""Supervisors not yet reaped: running commands, and ones guarding a background process."""


def _reap() -> None:
    for popen in list(_LIVE):
        if popen.poll() is not None:
            _LIVE.discard(popen)


@atexit.register
def end_all_commands() -> None:
    """End every command's processes still running (those left in the background): each
    supervisor kills its tree. Run when the app exits; a killed app's supervisors get the
    kernel's death signal instead."""
    for popen in list(_LIVE):
        if popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(popen.pid, signal.SIGTERM)
    for popen in list(_LIVE):
        with contextlib.suppress(subprocess.TimeoutExpired):
            popen.wait(_KILL_GRACE)
    _LIVE.clear()


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _keep(spill: Path | None, text: str) -> str:
    """Write ``text`` (a whole output shaped only later) to ``spill``; where it is, or ""."""
    if spill is None:
        return ""
    try:
        spill.write_text(text, encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return str(spill)
