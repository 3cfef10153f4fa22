"""Whatever a note tells the model to read, it can read: a cut output's saved copy is read
back through the ``read`` tool (the session's saved-output folder is its second, read-only
root), and nothing else outside the project is."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import msgspec

from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.bash import BashTool
from steiner_tui.tools.read import ReadTool
from steiner_tui.tools.results import DirectoryResultStore, TemporaryResultStore
from tests.tools.conftest import make_ctx


async def test_a_cut_bash_output_is_read_back_with_the_tool_its_note_names(
    project: Path, tmp_path: Path
) -> None:
    store = DirectoryResultStore(tmp_path / "session" / "tool-results")
    ctx, _ = make_ctx(project, [D("allow_once")])
    ctx = msgspec.structs.replace(ctx, results=store, call_id="call-7", output_chars=1500)
    command = "for i in $(seq 1 3000); do echo line $i; done; echo 'ERROR: disk full'"
    result = await BashTool().run({"command": command}, ctx)
    note = re.search(
        r"the full output is saved at (\S+): read it with the read tool", result.content
    )
    assert note is not None, result.content[-400:]
    saved = note.group(1)
    assert not Path(saved).is_relative_to(project)

    read = await ReadTool().run({"path": saved, "offset": 2999, "limit": 5}, ctx)
    assert read.status == "done", read.content
    output = json.loads(read.content)["output"]
    assert "line 3000" in output and "ERROR: disk full" in output


async def test_only_saved_outputs_are_a_second_root(project: Path, tmp_path: Path) -> None:
    store = DirectoryResultStore(tmp_path / "results")
    store.save("kept", "kept text\n")
    (tmp_path / "secret.txt").write_text("no", encoding="utf-8")
    ctx, _ = make_ctx(project)
    ctx = msgspec.structs.replace(ctx, results=store)
    outside = await ReadTool().run({"path": str(tmp_path / "secret.txt")}, ctx)
    assert outside.status == "failed" and "outside the project root" in outside.content
    escape = str(tmp_path / "results" / ".." / "secret.txt")
    assert (await ReadTool().run({"path": escape}, ctx)).status == "failed"
    kept = await ReadTool().run({"path": str(tmp_path / "results" / "kept.txt")}, ctx)
    assert kept.status == "done" and "kept text" in kept.content
    assert TemporaryResultStore().holds(str(tmp_path / "results" / "kept.txt")) is None


def test_the_store_makes_its_folder_on_first_save_and_again_when_it_is_removed(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "session" / "tool-results"
    store = DirectoryResultStore(folder)
    assert store.location("c1") is None and not folder.exists()
    first = store.save("c1", "whole output\n")
    shutil.rmtree(tmp_path / "session")  # the session's folder removed while it is open
    second = store.save("c2", "another\n")
    assert Path(second).read_text(encoding="utf-8") == "another\n"
    assert store.location("c1") is None and Path(first).parent == Path(second).parent
