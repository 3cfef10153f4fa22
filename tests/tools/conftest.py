"""Shared helpers for the tool tests: a project folder, a scripted permission callback, a wait."""

from __future__ import annotations

import os
import select
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from steiner_tui.tools.base import Mode, PermissionDecision, PermissionRequest, ToolContext


@dataclass
class ScriptedPermission:
    """Answers permission requests from a script and records every request it saw."""

    answers: list[PermissionDecision] = field(default_factory=list)
    requests: list[PermissionRequest] = field(default_factory=list)

    async def __call__(self, request: PermissionRequest) -> PermissionDecision:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected permission request: {request}")
        return self.answers.pop(0)


def wait_ended(pid: int, timeout: float = 30.0) -> bool:
    """True once process ``pid`` has ended, told by the kernel (``pidfd_open``), within a bound.

    Ended includes a zombie: a tool shell killed with its group is a grandchild of the app, so
    it is reaped by init, not by the app, and may linger unreaped for a moment. Without
    ``pidfd_open`` (not Linux: no supervisor) the shell is the app's child, reaped by then.
    """
    if not hasattr(os, "pidfd_open"):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        return bool(ready)
    finally:
        os.close(fd)


def make_ctx(
    root: Path,
    answers: Iterable[PermissionDecision] = (),
    mode: Mode = "build",
) -> tuple[ToolContext, ScriptedPermission]:
    """A context over ``root`` whose permission callback follows ``answers``."""
    permission = ScriptedPermission(list(answers))
    return ToolContext(project_root=root, mode=mode, turn=1, permission=permission), permission


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project root (a sub-folder, so ``..`` is a real place outside it)."""
    root = tmp_path / "project"
    root.mkdir()
    return root
