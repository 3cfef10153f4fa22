"""The ``bash`` tool: run a shell command in the project root (asks permission first).

Commands run as an asyncio subprocess in their own session (process group), with stdin closed
and stdout and stderr interleaved in one pipe, and an environment without provider secrets
(``environment``). A timeout (default 120 s, at most 600 s) or a cancellation kills the whole
group, so ``sleep`` children do not outlive the call; on Linux the command also runs under
``supervisor``, which kills the group when the app dies, whatever kills it. Output is
capped at 30,000 characters, and at the result's budget (``ToolContext.output_chars``) when
that is smaller: the first and last parts are kept around a cut note, because the end of a
build or test log is usually where the answer is. The whole output is streamed into the run's
result store when it has one, and the note says where it is. A child left running in the
background does not hold the call up: once the shell exits, output is awaited for one more
second, then the call returns and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.engine.events import OutputCut
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, failed
from steiner_tui.tools.environment import tool_environment
from steiner_tui.tools.guards import ask_permission, plan_mode_bash_refusal
from steiner_tui.tools.output import OutputCollector, join_cut
from steiner_tui.tools.shaping import head_and_tail

__all__ = ["DEFAULT_TIMEOUT", "MAX_TIMEOUT", "OUTPUT_CAP", "BashTool", "run_command"]

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
OUTPUT_CAP = 30_000
_SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
SUPERVISED = sys.platform == "linux"
"""Whether commands run under ``supervisor`` (it needs Linux's ``PR_SET_PDEATHSIG``)."""
_DRAIN_GRACE = 1.0
"""Seconds to wait for output after the shell exits (a background child may hold the pipe)."""

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
        spill = ctx.results.file_for(ctx.call_id) if ctx.results and ctx.call_id else None
        return await run_command(
            command,
            cwd=ctx.project_root,
            time_limit=timeout,
            env=ctx.env,
            cap=min(OUTPUT_CAP, ctx.output_chars or OUTPUT_CAP),
            spill=spill,
        )


async def run_command(
    command: str,
    *,
    cwd: Path,
    time_limit: float = DEFAULT_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cap: int = OUTPUT_CAP,
    spill: Path | None = None,
) -> ToolResult:
    """Run ``command`` with ``sh`` in ``cwd`` and report its output and exit code.

    Args:
        command: The shell command.
        cwd: The working directory.
        time_limit: Seconds before the process group is killed.
        env: The environment (``None``: the app's); provider secrets are always removed.
        cap: Output characters kept.
        spill: a file that receives the whole output (kept only when some was cut).

    Returns:
        ``done`` with the exit code (whatever it is), or ``failed`` on timeout or when the
        shell cannot start. Cancelling the caller kills the process group and re-raises.
    """
    loop = asyncio.get_running_loop()
    collector = OutputCollector(cap, spill)
    options: dict[str, Any] = {
        "cwd": cwd,
        "stdin": subprocess.DEVNULL,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.STDOUT,
        "env": tool_environment(os.environ if env is None else env),
        "start_new_session": True,
    }
    try:
        if SUPERVISED:
            transport, protocol = await loop.subprocess_exec(
                lambda: _ShellProtocol(loop, collector),
                *(sys.executable, "-I", "-S", _SUPERVISOR, command, str(os.getpid())),
                **options,
            )
        else:
            transport, protocol = await loop.subprocess_shell(
                lambda: _ShellProtocol(loop, collector), command, **options
            )
    except OSError as exc:
        return failed(f"cannot run command: {exc.strerror or exc}")
    timed_out = detached = False
    try:
        try:
            await asyncio.wait_for(asyncio.shield(protocol.exited), time_limit)
        except TimeoutError:
            timed_out = True
            _kill_group(transport.get_pid())
            await protocol.exited
        try:
            await asyncio.wait_for(asyncio.shield(protocol.closed), _DRAIN_GRACE)
        except TimeoutError:
            detached = True
    except asyncio.CancelledError:
        _kill_group(transport.get_pid())
        # Wait for the exit (reaped by asyncio) so no process of the call outlives the cancel.
        await protocol.exited
        raise
    finally:
        transport.close()
    code = transport.get_returncode()
    output, truncated = collector.result()
    head, tail, _ = collector.parts()
    data = {"exit_code": code, "timed_out": timed_out, "truncated": truncated}

    def finish(text: str, cut: OutputCut | None) -> ToolResult:
        text = text.removesuffix("\n") or "(no output)"
        if detached:
            text += "\n[background processes still hold the output; later output is not shown]"
        if timed_out:
            message = f"{text}\n[timed out after {time_limit:g} s; the command was killed]"
            return msgspec.structs.replace(failed(message, **data), cut=cut)
        return ToolResult(content=f"{text}\n[exit code: {code}]", data=data, cut=cut)

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


class _ShellProtocol(asyncio.SubprocessProtocol):
    """Feeds output to the collector; signals process exit and pipe closure separately.

    ``Process.wait()`` only returns once every pipe is closed, so a backgrounded child holding
    stdout would stall it; the exit future here fires as soon as the shell itself exits.
    """

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
