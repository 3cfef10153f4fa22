"""Opened tool blocks show the tool's text: numbered, highlighted lines, diffs, plain output."""

from __future__ import annotations

import json
from pathlib import Path

from textual.content import Content

from steiner_tui.app.tool_view import MAX_LINES, printable, tool_body
from steiner_tui.app.transcript import ToolEntry
from steiner_tui.app.widgets.tool_block import ToolBlock, tool_content
from steiner_tui.tools.bash import run_command
from steiner_tui.tools.read import read_file
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import BashProvider, fake_model
from tests.app.helpers import finish, send, static_text


def _plain(lines: list[Content]) -> list[str]:
    return [line.plain for line in lines]


def test_a_read_shows_numbered_lines_not_json(tmp_path: Path) -> None:
    root = tmp_path
    (root / "mod.py").write_text('__all__ = ["f"]\n\n\ndef f():\n\treturn "\\n"\n', "utf-8")
    result = read_file(root, "mod.py")
    lines = tool_body("read", {"path": "mod.py"}, "done", result.content)
    text = _plain(lines)
    assert text[0] == '1 __all__ = ["f"]'  # literal: no bold "all", no JSON
    assert text[4] == '5     return "\\n"'  # a tab as spaces, the escape as written
    assert not any("startLine" in line or "\\t" in line for line in text)
    styles = {str(span.style) for line in lines for span in line.spans}
    assert any(style.startswith("$") for style in styles - {"$text", "$text-muted"})


_GO = 'package main\n\nfunc main() {\n\tif x := 1; x > 0 {\n\t\tfmt.Println("hi")\n\t}\n}\n'


def _styled(lines: list[Content]) -> list[list[tuple[str, str]]]:
    """Each line's styled pieces: the text each style covers."""
    return [[(line.plain[s.start : s.end], str(s.style)) for s in line.spans] for line in lines]


def test_a_read_of_tab_indented_code_is_coloured_as_with_spaces(tmp_path: Path) -> None:
    """Go indents with tabs: each tab shifted the colours after it (``if`` was plain and ``x ``
    a keyword). The colours are those of the same code indented with spaces."""
    (tmp_path / "tabs.go").write_text(_GO, "utf-8")
    (tmp_path / "spaces.go").write_text(_GO.expandtabs(4), "utf-8")
    tabs, spaces = (
        tool_body("read", {"path": name}, "done", read_file(tmp_path, name).content)
        for name in ("tabs.go", "spaces.go")
    )
    assert _plain(tabs) == _plain(spaces)
    assert _styled(tabs) == _styled(spaces)
    assert ("if", "$text-accent") in _styled(tabs)[3]


def test_a_read_of_a_file_that_is_not_utf8_says_so_under_its_lines(tmp_path: Path) -> None:
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    result = read_file(tmp_path, "latin1.txt")
    text = _plain(tool_body("read", {"path": "latin1.txt"}, "done", result.content))
    assert text == ["1 caf\ufffd", json.loads(result.content)["note"]]


def test_an_edit_shows_a_diff() -> None:
    arguments = {"path": "a.py", "old_string": "x = 1\ny = 2", "new_string": "x = 3\ny = 2"}
    lines = _plain(tool_body("edit", arguments, "done", "Edited a.py: replaced 1 occurrence."))
    assert lines[0] == "Edited a.py: replaced 1 occurrence."
    assert "-x = 1" in lines and "+x = 3" in lines and " y = 2" in lines


def test_bash_output_is_printed_text_with_control_characters_visible() -> None:
    output = "\x1b[31mred\x1b[0m [bold]not markup[/] **nor markdown**\n[exit code: 0]"
    lines = _plain(tool_body("bash", {"command": "x"}, "done", output))
    assert lines == ["␛[31mred␛[0m [bold]not markup[/] **nor markdown**", "[exit code: 0]"]
    assert printable("a\x00b\x7f") == "a␀b␡"


def test_long_output_is_cut_with_a_count() -> None:
    output = "\n".join(f"line {n}" for n in range(MAX_LINES + 5))
    lines = _plain(tool_body("grep", {}, "done", output))
    assert len(lines) == MAX_LINES + 1 and lines[-1] == "… 5 more lines"


async def test_an_opened_read_block_in_the_app(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.tool_started("c1", "read", "read a.py", {"path": "a.py"})
        output = {"path": "a.py", "output": "   1\t__all__ = []\n   2\t[b]x[/b]"}
        pane.tool_finished("c1", "done", json.dumps(output))
        await pilot.pause()
        block = pane.query_one(ToolBlock)
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        text = static_text(block)
        assert "1 __all__ = []" in text and "2 [b]x[/b]" in text
        assert block.size.height == 3


async def test_a_long_output_line_wraps_under_the_output_not_under_the_title(
    app_for: AppFactory,
) -> None:
    """An output line longer than the block wrapped to the block's left edge, under the ▼ of
    the title; its continuation rows now keep the output's indent, at every width."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        pane = app.workbench.conversation
        await pane.tool_started("c1", "read", "read big.txt", {"path": "big.txt"})
        message = "cannot read big.txt: file is 30.0 MiB, over the 10 MiB limit " * 3
        pane.tool_finished("c1", "failed", message.strip())  # a failure opens the block
        await pilot.pause()
        block = pane.query_one(ToolBlock)
        rows = [line.text for line in block.render_lines(block.region.reset_offset)]
        body = [row.rstrip() for row in rows[1:] if row.strip()]
        assert len(body) >= 3  # wrapped
        assert all(row.startswith("   ") and not row.startswith("    ") for row in body), rows
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        rows = [line.text for line in block.render_lines(block.region.reset_offset)]
        body = [row.rstrip() for row in rows[1:] if row.strip()]
        assert len(body) >= 2 and all(row.startswith("   ") for row in body), rows


async def test_a_command_that_exited_non_zero_says_its_code_in_the_title(tmp_path: Path) -> None:
    """A failing test run showed "✓ bash command=pytest · done" like a passing one: its code
    was only in the collapsed output."""
    failing = await run_command("echo broken; exit 3", cwd=tmp_path)
    passing = await run_command("echo fine", cwd=tmp_path)
    timed_out = await run_command("sleep 5", cwd=tmp_path, time_limit=0.2)
    entry = ToolEntry("c1", "bash", "bash command=make", "done", failing.content)
    title = tool_content(entry, collapsed=True)
    assert title.plain == "▶ ✓ bash command=make · done · exit 3"
    assert any(
        title.plain[span.start : span.end] == "exit 3" and "warning" in str(span.style)
        for span in title.spans
    )
    for status, result in (("done", passing), ("failed", timed_out)):
        entry = ToolEntry("c2", "bash", "bash command=x", status, result.content)
        assert "exit" not in tool_content(entry, collapsed=True).plain


async def test_a_running_command_shows_its_lines_so_far_under_its_title(
    app_for: AppFactory, project: Path
) -> None:
    """A long build says it is alive: while the command runs, its closed block has a second
    line with its lines so far and the last one; the finished block is one line again."""
    command = "echo compiling; echo 'linking app'; while [ ! -f go ]; do sleep 0.02; done"
    provider = BashProvider(command=command)
    app = app_for(fake_model(provider), config={"permissions": {"bash": "allow"}})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "build it")
        block: ToolBlock | None = None
        for _ in range(300):
            await pilot.pause(0.02)
            blocks = app.workbench.conversation.query(ToolBlock)
            if blocks and "so far" in static_text(blocks.first()):
                block = blocks.first()
                break
        assert block is not None and block.collapsed
        assert static_text(block).splitlines()[1] == "   2 lines so far: linking app"
        assert block.size.height == 2
        (project / "go").touch()
        await finish(pilot)
        assert "so far" not in static_text(block) and block.size.height == 1
