"""write and edit at the moment of writing: no symlink followed, no hard link, no config.

Issue 29: a symlink swapped in while the permission prompt was open carried the write out of
the project; hard-linked files were written through; the model could rewrite the project's
``.steiner/config.toml`` (and with it what the project is trusted to do).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from steiner_tui.tools.base import PermissionDecision, PermissionRequest, ToolContext
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.read import ReadTool
from steiner_tui.tools.write import WriteTool
from tests.tools.conftest import make_ctx


def _swap(swap: Path, outside: Path) -> None:
    if swap.is_dir():
        shutil.rmtree(swap)
    else:
        swap.unlink()
    swap.symlink_to(outside)


def swapping_ctx(root: Path, swap: Path, outside: Path) -> ToolContext:
    """A context whose permission prompt, while open, puts a symlink to ``outside`` at
    ``swap`` (a file or a folder), then allows."""

    async def ask(request: PermissionRequest) -> PermissionDecision:
        _swap(swap, outside)
        return PermissionDecision.ALLOW_ONCE

    return ToolContext(project_root=root, turn=1, permission=ask)


async def test_a_file_swapped_for_a_symlink_during_the_prompt_is_not_written_through(
    project: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (project / "f.txt").write_text("old\n")
    ctx = swapping_ctx(project, project / "f.txt", victim)
    written = await WriteTool().run({"path": "f.txt", "content": "pwned\n"}, ctx)
    assert written.status == "failed"
    assert victim.read_text() == "precious\n"
    (project / "f.txt").unlink()
    (project / "f.txt").write_text("old\n")
    ctx = swapping_ctx(project, project / "f.txt", victim)
    edited = await EditTool().run({"path": "f.txt", "old_string": "old", "new_string": "x"}, ctx)
    assert edited.status == "failed"
    assert victim.read_text() == "precious\n"


async def test_a_folder_swapped_for_a_symlink_during_the_prompt_is_not_written_through(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "sub").mkdir()
    ctx = swapping_ctx(project, project / "sub", outside)
    result = await WriteTool().run({"path": "sub/new.txt", "content": "x"}, ctx)
    assert result.status == "failed"
    assert "nothing written" in result.content
    assert list(outside.iterdir()) == []


async def test_a_hard_linked_file_is_refused_before_asking(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.txt"
    other.write_text("shared\n")
    os.link(other, project / "linked.txt")
    ctx, permission = make_ctx(project)
    written = await WriteTool().run({"path": "linked.txt", "content": "x"}, ctx)
    edited = await EditTool().run(
        {"path": "linked.txt", "old_string": "shared", "new_string": "x"}, ctx
    )
    for result in (written, edited):
        assert result.status == "failed"
        assert "2 hard links" in result.content
    assert permission.requests == []
    assert other.read_text() == "shared\n"


async def test_steiner_tui_s_own_configuration_is_never_written_by_tools(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project / "home-config"))
    user = project / "home-config" / "steiner" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[ui]\n")
    (project / ".steiner").mkdir()
    (project / ".steiner" / "config.toml").write_text("[ui]\n")
    ctx, permission = make_ctx(project)
    for path in (".steiner/config.toml", "home-config/steiner/config.toml"):
        written = await WriteTool().run({"path": path, "content": "[permissions]\n"}, ctx)
        assert written.status == "failed"
        assert "configuration is changed by the person only" in written.content
        edited = await EditTool().run(
            {"path": path, "old_string": "[ui]", "new_string": "[keymap]"}, ctx
        )
        assert edited.status == "failed"
    assert permission.requests == []
    assert user.read_text() == "[ui]\n"
    assert (project / ".steiner" / "config.toml").read_text() == "[ui]\n"


async def test_a_hard_link_to_a_private_file_is_not_read(project: Path, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    secret.chmod(0o600)
    os.link(secret, project / "key.txt")
    shared = tmp_path / "shared.py"
    shared.write_text("print(1)\n")
    shared.chmod(0o644)
    os.link(shared, project / "shared.py")  # a uv environment's files are such links
    ctx, _ = make_ctx(project)
    refused = await ReadTool().run({"path": "key.txt"}, ctx)
    assert refused.status == "failed" and "PRIVATE KEY" not in refused.content
    assert "hard link to a file only its owner may read" in refused.content
    read = await ReadTool().run({"path": "shared.py"}, ctx)
    assert read.status == "done" and "print(1)" in read.content
