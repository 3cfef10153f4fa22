"""Secrets stay out of what tools return, and out of the app's /proc entry.

Issue 29: a bash call read ``/proc/<app pid>/environ`` and every key went into the request, the
session log and the ``--events`` log.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.engine.messages import ToolCall
from steiner_tui.tools import default_tools
from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.base import ToolContext
from steiner_tui.tools.environment import SecretScrubber
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.permissions import PermissionPolicy
from tests.tools.conftest import ScriptedPermission

KEY = "sk-test-0123456789abcdef"
DB = "correct horse battery staple"


async def test_secret_values_are_redacted_from_every_tool_result(tmp_path: Path) -> None:
    (tmp_path / "leak.txt").write_text(f"key={KEY}\ndb={DB}\nshort=12\n")
    env = {"PATH": os.environ["PATH"], "OPENAI_API_KEY": KEY, "MY_DB": DB, "X_TOKEN": "12"}
    executor = ToolExecutor(
        default_tools(), PermissionPolicy(ScriptedPermission([D.ALLOW_ONCE])), secret_env=["MY_*"]
    )
    ctx = ToolContext(project_root=tmp_path, env=env)
    read = await executor.execute(ToolCall("1", "read", {"path": "leak.txt"}), ctx)
    shell = await executor.execute(ToolCall("2", "bash", {"command": "cat leak.txt"}), ctx)
    for result in (read, shell):
        assert KEY not in result.content and DB not in result.content
        assert "key=[redacted: OPENAI_API_KEY]" in result.content
        assert "db=[redacted: MY_DB]" in result.content
        assert "short=12" in result.content  # too short to be a secret worth scrubbing
        if result.reshape is not None:
            assert KEY not in result.reshape(200).content


async def test_a_variable_set_after_the_first_call_is_kept_out_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The filtered environment is computed once per distinct environment: a variable set in
    the app's environment after a first call is still kept from the next one, and scrubbed."""
    (tmp_path / "leak.txt").write_text(f"late={KEY}\ncustom={DB}\n")
    executor = ToolExecutor(
        default_tools(),
        PermissionPolicy(ScriptedPermission([D.ALLOW_ONCE] * 2)),
        secret_env=["custom_*"],
    )
    ctx = ToolContext(project_root=tmp_path)  # the app's environment
    first = await executor.execute(ToolCall("1", "bash", {"command": "env"}), ctx)
    assert first.status == "done" and "LATE_TOKEN=" not in first.content
    monkeypatch.setenv("LATE_TOKEN", KEY)
    monkeypatch.setenv("custom_late", DB)
    shell = await executor.execute(ToolCall("2", "bash", {"command": "env; cat leak.txt"}), ctx)
    assert "LATE_TOKEN=" not in shell.content and "custom_late=" not in shell.content
    assert "late=[redacted: LATE_TOKEN]" in shell.content
    assert "custom=[redacted: custom_late]" in shell.content
    read = await executor.execute(ToolCall("3", "read", {"path": "leak.txt"}), ctx)
    assert KEY not in read.content and DB not in read.content


def test_the_longest_secret_is_replaced_whole() -> None:
    scrubber = SecretScrubber({"A_KEY": "abcdefgh", "B_KEY": "abcdefghijkl"})
    assert scrubber.scrub("abcdefghijkl abcdefgh") == "[redacted: B_KEY] [redacted: A_KEY]"
    assert not SecretScrubber({"PATH": "/usr/bin:/bin"})


@pytest.mark.skipif(sys.platform != "linux", reason="prctl is Linux's")
def test_the_app_process_is_not_dumpable() -> None:
    """Same-user children cannot read a non-dumpable process's environ or memory (root can)."""
    code = (
        "import ctypes, sys\n"
        "from steiner_tui.process_guard import guard_process\n"
        "guard_process()\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.prctl(3, 0, 0, 0, 0))\n"  # PR_GET_DUMPABLE
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "0"
