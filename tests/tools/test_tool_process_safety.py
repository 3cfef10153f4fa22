"""Tool subprocesses keep no secrets and never outlive the app (issue 15, item 4).

The death tests are real: a parent Python process runs a ``bash`` tool command that starts a
background ``sleep`` and reports the pids through a FIFO (reading it is the synchronisation, no
sleeping); the parent is then killed with each signal, and each pid must end. Waiting for that
uses ``pidfd_open`` and ``select`` on it, an event from the kernel, with a generous bound.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.config import parse_config
from steiner_tui.engine.messages import ToolCall
from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.bash import SUPERVISED, run_command
from steiner_tui.tools.environment import secret_names, tool_environment
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools
from tests.tools.conftest import make_ctx, wait_ended

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "OPENAI_API_KEY": "sk-openai-secret",
    "GITHUB_TOKEN": "ghp-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "VLLM_KEY": "vllm-secret",
    "MY_SERVICE_PASSWORD": "hunter2",
    "custom_private": "mine",
}


@pytest.mark.parametrize("name", [*SECRETS][:-1])
def test_the_deny_list(name: str) -> None:
    assert name not in tool_environment({name: "x"})


@pytest.mark.parametrize("name", ["PATH", "HOME", "LANG", "KEYBOARD", "TOKENIZERS_PARALLELISM"])
def test_ordinary_variables_are_kept(name: str) -> None:
    assert name in tool_environment({name: "x"})


def test_config_extends_the_deny_list() -> None:
    config = parse_config(
        [
            (
                "c",
                {
                    "providers": {"corp": {"type": "openai", "api_key_env": "CORP_CRED"}},
                    "tools": {"secret_env": ["custom_*"]},
                },
            )
        ]
    )
    extra = secret_names(config)
    assert "CORP_CRED" in extra and "ANTHROPIC_API_KEY" in extra and "custom_*" in extra
    env = tool_environment({**SECRETS, "CORP_CRED": "x", "PATH": "/bin"}, extra)
    assert env == {"PATH": "/bin"}


async def test_bash_never_sees_provider_secrets(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    executor = ToolExecutor(default_tools(), secret_env=["custom_*"])
    ctx, _ = make_ctx(project, [D.ALLOW_ONCE])
    result = await executor.execute(ToolCall("1", "bash", {"command": "env"}), ctx)
    assert result.status == "done", result.content
    for value in SECRETS.values():
        assert value not in result.content
    assert "PATH=" in result.content
    explicit = await run_command("env", cwd=project, env={"OPENAI_API_KEY": "x", "A": "1"})
    assert "OPENAI_API_KEY" not in explicit.content and "A=1" in explicit.content


async def test_commands_run_in_their_own_process_group(project: Path) -> None:
    result = await run_command("ps -o pgid= -p $$", cwd=project)
    assert int(result.content.split()[0]) != os.getpgrp()


PARENT = """
import asyncio, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_DFL)  # the app's default, even when pytest runs under nohup
from pathlib import Path
from steiner_tui.tools.bash import run_command
fifo = sys.argv[1]
command = f'sleep 300 & echo "$$ $!" > {fifo}; wait'
asyncio.run(run_command(command, cwd=Path.cwd(), time_limit=600))
"""


@pytest.mark.skipif(not SUPERVISED, reason="PR_SET_PDEATHSIG is Linux only")
@pytest.mark.parametrize(
    "signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=str
)
def test_commands_die_with_the_app(tmp_path: Path, signum: signal.Signals) -> None:
    fifo = tmp_path / "pids"
    os.mkfifo(fifo)
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, str(fifo)], cwd=tmp_path, stdin=subprocess.DEVNULL
    )
    try:
        with fifo.open() as reader:  # blocks until the command writes: the synchronisation
            shell, sleeper = (int(pid) for pid in reader.readline().split())
        os.kill(parent.pid, signum)
        parent.wait(timeout=30)
        assert wait_ended(shell), "the shell outlived the app"
        assert wait_ended(sleeper), "the background sleep outlived the app"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()  # reaped, so a failure here is reported as itself
