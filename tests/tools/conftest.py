"""Shared helpers for the tool tests: a project folder and a scripted permission callback."""

from __future__ import annotations

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
