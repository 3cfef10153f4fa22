"""display_file: text for the user, an acknowledgement for the model, omitted from history."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.engine.compaction.history_render import OMITTED_TOOLS
from steiner_tui.tools.display_file import DisplayFileTool, display_file
from tests.tools.conftest import make_ctx


async def test_display_whole_file(project: Path) -> None:
    (project / "a.py").write_text("one\ntwo\nthree\n")
    ctx, permission = make_ctx(project)
    result = await DisplayFileTool().run({"path": "a.py"}, ctx)
    assert result.status == "done"
    assert result.display == "one\ntwo\nthree"
    assert DisplayFileTool.definition.name in OMITTED_TOOLS  # left out of the history archive
    assert result.content == "Displayed a.py (lines 1-3 of 3) to the user."
    assert permission.requests == []


def test_display_line_range(project: Path) -> None:
    (project / "a.py").write_text("one\ntwo\nthree\nfour\n")
    result = display_file(project, "a.py", 2, 3)
    assert result.display == "two\nthree"
    assert dict(result.data) == {"path": "a.py", "startLine": 2, "endLine": 3, "totalLines": 4}
    assert display_file(project, "a.py", 3).display == "three\nfour"
    assert display_file(project, "a.py", 2, 99).display == "two\nthree\nfour"


def test_display_refusals(project: Path) -> None:
    (project / "a.py").write_text("one\n")
    (project / "b.bin").write_bytes(b"\x00\x01")
    assert display_file(project, "a.py", 5).content == (
        "cannot display a.py: start_line 5 is past the end (1 lines)"
    )
    assert display_file(project, "a.py", 1, 0).status == "failed"
    assert display_file(project, "b.bin").content == "cannot display b.bin: binary file (2 bytes)"
    assert display_file(project, "../x").content == "cannot display ../x: outside the project root"
