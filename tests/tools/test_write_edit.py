"""write and edit: results, permission flows, ambiguity, and the plan-mode fence."""

from __future__ import annotations

from pathlib import Path

import msgspec

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.artifacts import build_ledger
from steiner_tui.tools.base import PermissionDecision as D
from steiner_tui.tools.base import PermissionRequest
from steiner_tui.tools.bash import BashTool
from steiner_tui.tools.edit import EditTool
from steiner_tui.tools.guards import PREVIEW_LINE_CHARS, PREVIEW_LINES, change_preview
from steiner_tui.tools.write import WriteTool
from tests.tools.conftest import make_ctx


async def test_write_creates_parents_and_reports_bytes(project: Path) -> None:
    ctx, permission = make_ctx(project, [D.ALLOW_ONCE])
    result = await WriteTool().run({"path": "a/b/c.txt", "content": "héllo"}, ctx)
    assert result.status == "done"
    assert result.content == "Wrote 6 bytes to a/b/c.txt (new file)."
    assert (project / "a/b/c.txt").read_text() == "héllo"
    assert result.data["bytes"] == 6 and result.data["created"] is True
    [request] = permission.requests
    assert request.tool == "write"
    assert request.summary == "write a/b/c.txt (6 bytes, a new file)"
    assert request.arguments["content"] == "héllo"
    assert request.preview == "@@ -0,0 +1 @@\n+héllo"


async def test_write_overwrites(project: Path) -> None:
    (project / "f.txt").write_text("old")
    ctx, _ = make_ctx(project, [D.ALLOW_ONCE])
    result = await WriteTool().run({"path": "f.txt", "content": "new"}, ctx)
    assert result.content == "Wrote 3 bytes to f.txt."
    assert (project / "f.txt").read_text() == "new"


async def test_a_change_is_shown_before_it_is_allowed(project: Path) -> None:
    """The permission request of a write or an edit holds the diff of the file, with its line
    numbers: it was approved on a summary alone ("write m.py (1840 bytes)")."""
    lines = [f"line {i}" for i in range(1, 31)]
    (project / "m.py").write_text("\n".join(lines) + "\n")
    ctx, permission = make_ctx(project, [D.REJECT_ONCE] * 3)
    args = {"path": "m.py", "old_string": "line 20\n", "new_string": "line twenty\n"}
    await EditTool().run(args, ctx)
    changed = "\n".join([*lines[:19], "line twenty", *lines[20:]]) + "\n"
    await WriteTool().run({"path": "m.py", "content": changed}, ctx)
    edit, write = permission.requests
    expected = "@@ -18,5 +18,5 @@\n line 18\n line 19\n-line 20\n+line twenty\n line 21\n line 22"
    assert edit.preview == write.preview == expected
    assert write.summary == "write m.py (235 bytes, replacing its 231)"


async def test_a_write_of_the_text_the_file_holds_neither_asks_nor_writes(
    project: Path,
) -> None:
    """A small model writing a file again as it is asked for permission ("write m.py (231
    bytes: the file holds this text already)") for a change of nothing."""
    (project / "m.py").write_text("x = 1\n")
    before = (project / "m.py").stat().st_mtime_ns
    ctx, permission = make_ctx(project, [])
    result = await WriteTool().run({"path": "m.py", "content": "x = 1\n"}, ctx)
    assert (result.status, result.content) == (
        "done",
        "m.py already holds this text (6 bytes): nothing written.",
    )
    assert permission.requests == [] and (project / "m.py").stat().st_mtime_ns == before
    call = ToolCall("c1", "write", {"path": "m.py", "content": "x = 1\n"})
    answer = Message("tool", result.content, tool_call_id="c1")
    ledger = build_ledger([Message("assistant", "", tool_calls=(call,)), answer])
    assert ledger == build_ledger([])  # not a file the conversation changed


def test_a_long_change_is_cut_and_counted() -> None:
    preview = change_preview(None, "\n".join(f"x{i}" for i in range(PREVIEW_LINES + 5)))
    lines = preview.split("\n")
    assert lines[0] == f"@@ -0,0 +1,{PREVIEW_LINES + 5} @@"
    assert len(lines) == PREVIEW_LINES + 1 and lines[-1] == "… 6 more lines"
    # A minified file's one line: the prompt would lay out megabytes of text.
    minified = change_preview("var a=1;" * 500_000, "var b=1;" * 500_000)
    assert minified.split("\n")[1:] == [
        f"-{('var a=1;' * 50)[: PREVIEW_LINE_CHARS - 1]}… (3,999,601 more characters)",
        f"+{('var b=1;' * 50)[: PREVIEW_LINE_CHARS - 1]}… (3,999,601 more characters)",
    ]


async def test_write_rejected_once_and_always(project: Path) -> None:
    ctx, _ = make_ctx(project, [D.REJECT_ONCE, D.REJECT_ALWAYS])
    once = await WriteTool().run({"path": "f.txt", "content": "x"}, ctx)
    assert once.status == "rejected"
    assert once.content == "The user rejected this write call."
    always = await WriteTool().run({"path": "f.txt", "content": "x"}, ctx)
    assert always.content == (
        "The user rejected this write call. Future write calls will be rejected too."
    )
    assert not (project / "f.txt").exists()


async def test_write_outside_root_and_to_a_folder_fail_without_asking(project: Path) -> None:
    ctx, permission = make_ctx(project)
    outside = await WriteTool().run({"path": "../x.txt", "content": "x"}, ctx)
    assert outside.content == "cannot write ../x.txt: outside the project root"
    (project / "d").mkdir()
    folder = await WriteTool().run({"path": "d", "content": "x"}, ctx)
    assert folder.content == "cannot write d: is a directory"
    assert permission.requests == []


async def test_edit_unique_replacement(project: Path) -> None:
    (project / "m.py").write_text("a = 1\nb = 2\n")
    ctx, permission = make_ctx(project, [D.ALLOW_ONCE])
    args = {"path": "m.py", "old_string": "b = 2", "new_string": "b = 3"}
    result = await EditTool().run(args, ctx)
    assert result.status == "done"
    assert result.content == "Edited m.py: replaced 1 occurrence."
    assert (project / "m.py").read_text() == "a = 1\nb = 3\n"
    assert permission.requests[0].summary == "edit m.py: replace 1 occurrence"


async def test_edit_not_found_and_ambiguous_do_not_ask(project: Path) -> None:
    (project / "m.py").write_text("x\nx\nx\n")
    ctx, permission = make_ctx(project)
    missing = await EditTool().run({"path": "m.py", "old_string": "y", "new_string": "z"}, ctx)
    assert missing.status == "failed"
    assert missing.content == "old_string not found in m.py"
    ambiguous = await EditTool().run({"path": "m.py", "old_string": "x", "new_string": "z"}, ctx)
    assert ambiguous.status == "failed"
    assert ambiguous.content == (
        "old_string matches 3 places in m.py; add context to make it unique or set replace_all"
    )
    assert permission.requests == []
    assert (project / "m.py").read_text() == "x\nx\nx\n"


async def test_edit_replace_all(project: Path) -> None:
    (project / "m.py").write_text("x\nx\nx\n")
    ctx, _ = make_ctx(project, [D.ALLOW_ONCE])
    args = {"path": "m.py", "old_string": "x", "new_string": "y", "replace_all": True}
    result = await EditTool().run(args, ctx)
    assert result.content == "Edited m.py: replaced 3 occurrences."
    assert (project / "m.py").read_text() == "y\ny\ny\n"


async def test_edit_rejected_leaves_file(project: Path) -> None:
    (project / "m.py").write_text("a\n")
    ctx, _ = make_ctx(project, [D.REJECT_ONCE])
    result = await EditTool().run({"path": "m.py", "old_string": "a", "new_string": "b"}, ctx)
    assert result.status == "rejected"
    assert result.content == "The user rejected this edit call."
    assert (project / "m.py").read_text() == "a\n"


async def test_edit_argument_errors(project: Path) -> None:
    (project / "m.py").write_text("a\n")
    ctx, _ = make_ctx(project)
    empty = await EditTool().run({"path": "m.py", "old_string": "", "new_string": "b"}, ctx)
    assert empty.content.startswith("old_string must not be empty")
    same = await EditTool().run({"path": "m.py", "old_string": "a", "new_string": "a"}, ctx)
    assert same.content.startswith("old_string and new_string are identical")
    gone = await EditTool().run({"path": "no.py", "old_string": "a", "new_string": "b"}, ctx)
    assert gone.content == "cannot edit no.py: no such file"
    (project / "b.bin").write_bytes(b"a\x00b")
    binary = await EditTool().run({"path": "b.bin", "old_string": "a", "new_string": "c"}, ctx)
    assert binary.content == "cannot edit b.bin: binary file (3 bytes)"


async def test_edit_crlf_file_accepts_lf_strings(project: Path) -> None:
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    ctx, _ = make_ctx(project, [D.ALLOW_ONCE])
    args = {"path": "w.txt", "old_string": "one\ntwo", "new_string": "1\n2"}
    result = await EditTool().run(args, ctx)
    assert result.status == "done"
    assert (project / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_plan_mode_limits_write_and_edit(project: Path) -> None:
    (project / "m.py").write_text("a\n")
    ctx, permission = make_ctx(project, [D.ALLOW_ONCE], mode="plan")
    write = await WriteTool().run({"path": "m.py", "content": "b"}, ctx)
    assert write.status == "failed"
    assert write.content == "plan mode: write is limited to .steiner/plans/ (tried m.py)"
    edit = await EditTool().run({"path": "m.py", "old_string": "a", "new_string": "b"}, ctx)
    assert edit.content == "plan mode: edit is limited to .steiner/plans/ (tried m.py)"
    sneaky = await WriteTool().run({"path": ".steiner/plans/../x.md", "content": "b"}, ctx)
    assert sneaky.content == (
        "plan mode: write is limited to .steiner/plans/ (tried .steiner/plans/../x.md)"
    )
    assert permission.requests == []
    plan = await WriteTool().run({"path": ".steiner/plans/p.md", "content": "# plan"}, ctx)
    assert plan.status == "done"
    assert (project / ".steiner/plans/p.md").read_text() == "# plan"


async def test_plan_mode_refuses_bash(project: Path) -> None:
    ctx, permission = make_ctx(project, mode="plan")
    result = await BashTool().run({"command": "touch x"}, ctx)
    assert result.status == "failed"
    assert result.content.startswith("plan mode: bash is not available while planning")
    assert permission.requests == []
    assert not (project / "x").exists()


async def test_a_file_changed_while_permission_was_asked_is_not_overwritten(
    project: Path,
) -> None:
    """In tmux: ``return x * 7`` was changed to ``return x * 70`` in an editor while the edit's
    permission prompt waited; allowed, the edit wrote the file it had computed before the prompt,
    and the ``70`` was gone. An edit or a write finds the file as the diff showed it, or writes
    nothing and says why."""
    path = project / "m.py"
    path.write_text("def f7(x):\n    return x * 7\n")
    ctx, permission = make_ctx(project, [D.ALLOW_ONCE] * 3)
    asked = permission.__call__

    async def changed_meanwhile(request: PermissionRequest) -> D:
        path.write_text("def f7(x):\n    return x * 70\n")  # the person's editor
        return await asked(request)

    ctx = msgspec.structs.replace(ctx, permission=changed_meanwhile)
    edit = {"path": "m.py", "old_string": "return x * 7\n", "new_string": "return x + 7\n"}
    result = await EditTool().run(edit, ctx)
    assert result.status == "failed"
    assert result.content == (
        "cannot edit m.py: it changed on disk while permission was asked; nothing written "
        "(read it again)"
    )
    assert path.read_text() == "def f7(x):\n    return x * 70\n"
    path.write_text("old\n")
    result = await WriteTool().run({"path": "m.py", "content": "new\n"}, ctx)
    assert result.status == "failed" and "changed on disk" in result.content
    assert path.read_text() == "def f7(x):\n    return x * 70\n"
    path.unlink()  # a new file: made meanwhile, it is not replaced either
    result = await WriteTool().run({"path": "m.py", "content": "new\n"}, ctx)
    assert result.status == "failed" and path.read_text() == "def f7(x):\n    return x * 70\n"
