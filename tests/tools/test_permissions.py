"""The permission policy: the four decisions, session memory, config rules, read-only tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.engine.messages import ToolCall
from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.base import PermissionRequest, ToolContext
from steiner_tui.tools.permissions import PermissionPolicy
from steiner_tui.tools.registry import ToolExecutor, default_tools
from tests.tools.conftest import ScriptedPermission

REQUEST = PermissionRequest("bash", "ls")


async def test_allow_once_asks_every_time() -> None:
    asker = ScriptedPermission([D.ALLOW_ONCE, D.ALLOW_ONCE])
    policy = PermissionPolicy(asker)
    assert await policy(REQUEST) is D.ALLOW_ONCE
    assert await policy(REQUEST) is D.ALLOW_ONCE
    assert len(asker.requests) == 2


async def test_allow_always_is_remembered_per_tool() -> None:
    asker = ScriptedPermission([D.ALLOW_ALWAYS, D.REJECT_ONCE])
    policy = PermissionPolicy(asker)
    assert await policy(REQUEST) is D.ALLOW_ALWAYS
    assert await policy(PermissionRequest("bash", "rm -rf build")) is D.ALLOW_ALWAYS
    assert policy.remembered("bash") is D.ALLOW_ALWAYS
    assert await policy(PermissionRequest("write", "write x")) is D.REJECT_ONCE
    assert len(asker.requests) == 2


async def test_reject_once_asks_again_and_reject_always_does_not() -> None:
    asker = ScriptedPermission([D.REJECT_ONCE, D.REJECT_ALWAYS])
    policy = PermissionPolicy(asker)
    assert await policy(REQUEST) is D.REJECT_ONCE
    assert await policy(REQUEST) is D.REJECT_ALWAYS
    assert await policy(REQUEST) is D.REJECT_ALWAYS
    assert len(asker.requests) == 2
    policy.forget()
    assert policy.remembered("bash") is None


async def test_config_rules_answer_without_asking() -> None:
    asker = ScriptedPermission()
    policy = PermissionPolicy(asker, {"bash": "allow", "write": "deny"})
    assert await policy(REQUEST) is D.ALLOW_ALWAYS
    assert await policy(PermissionRequest("write", "w")) is D.REJECT_ALWAYS
    assert asker.requests == []
    assert policy.rule_for("edit") == "ask"


async def test_only_the_callbacks_answers_are_told() -> None:
    """A rule's or a remembered answer asked nobody: the log has nothing to keep of it."""
    told: list[tuple[str, D]] = []
    asker = ScriptedPermission([D.ALLOW_ALWAYS, D.REJECT_ONCE])
    policy = PermissionPolicy(
        asker, {"write": "deny"}, on_answer=lambda r, d: told.append((r.summary, d))
    )
    assert await policy(REQUEST) is D.ALLOW_ALWAYS
    assert await policy(PermissionRequest("bash", "make")) is D.ALLOW_ALWAYS  # remembered
    assert await policy(PermissionRequest("write", "w")) is D.REJECT_ALWAYS  # the rule
    assert await policy(PermissionRequest("edit", "e")) is D.REJECT_ONCE
    assert told == [("ls", D.ALLOW_ALWAYS), ("e", D.REJECT_ONCE)]


def test_bad_rule_is_rejected() -> None:
    with pytest.raises(ValueError, match="permission rule for bash"):
        PermissionPolicy(rules={"bash": "maybe"})


async def test_executor_uses_policy_memory_across_calls(tmp_path: Path) -> None:
    asker = ScriptedPermission([D.ALLOW_ALWAYS])
    executor = ToolExecutor(default_tools(), PermissionPolicy(asker))
    ctx = ToolContext(project_root=tmp_path)
    for i in range(3):
        result = await executor.execute(ToolCall(str(i), "bash", {"command": f"echo {i}"}), ctx)
        assert result.content == f"{i}\n[exit code: 0]"
    assert len(asker.requests) == 1


async def test_executor_config_deny_blocks_before_running(tmp_path: Path) -> None:
    asker = ScriptedPermission()
    executor = ToolExecutor(default_tools(), PermissionPolicy(asker, {"bash": "deny"}))
    call = ToolCall("1", "bash", {"command": "touch made"})
    result = await executor.execute(call, ToolContext(project_root=tmp_path))
    assert result.status == "rejected"
    assert result.content == "The bash tool is denied by the permission policy in config."
    assert not (tmp_path / "made").exists()
    assert asker.requests == []


async def test_read_only_tools_never_ask(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    asker = ScriptedPermission()
    executor = ToolExecutor(default_tools(), PermissionPolicy(asker))
    ctx = ToolContext(project_root=tmp_path)
    calls = [
        ToolCall("1", "read", {"path": "a.txt"}),
        ToolCall("2", "grep", {"pattern": "hello"}),
        ToolCall("3", "glob", {"pattern": "*.txt"}),
        ToolCall("4", "display_file", {"path": "a.txt"}),
    ]
    for call in calls:
        assert (await executor.execute(call, ctx)).status == "done"
    assert asker.requests == []


async def test_default_context_rejects_changes(tmp_path: Path) -> None:
    executor = ToolExecutor(default_tools())
    call = ToolCall("1", "write", {"path": "x", "content": "y"})
    result = await executor.execute(call, ToolContext(project_root=tmp_path))
    assert result.status == "rejected"
    assert not (tmp_path / "x").exists()
