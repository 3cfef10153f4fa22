"""A paste too long for the prompt is kept in a file the model can read; nothing is lost."""

from __future__ import annotations

from pathlib import Path

from textual import events

from steiner_tui.app.paste import save_pastes
from steiner_tui.app.widgets.prompt import PASTE_LIMIT
from steiner_tui.tools.files import MAX_FILE_BYTES
from steiner_tui.tools.read import read_file
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import notices


async def test_a_huge_paste_is_kept_in_a_file_and_named_in_the_prompt(
    app_for: AppFactory, project: Path
) -> None:
    big = "line of pasted text\r" * (3 * PASTE_LIMIT // 20)  # a terminal's pasted newlines
    messages: list[object] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"see: ")
        app.post_message(events.Paste(big))
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = screen.prompt.text
        assert text.startswith("see: (pasted ") and ".steiner/pastes/paste-1.txt" in text
        assert len(text) < 200
        kept = project / ".steiner" / "pastes" / "paste-1.txt"
        assert kept.read_bytes() == big.replace("\r", "\n").encode()  # every line, as lines
        assert any("kept in .steiner/pastes/paste-1.txt" in n for n in notices(messages))


async def test_a_paste_under_the_limit_goes_in_the_prompt(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.post_message(events.Paste("a [b]normal[/b] paste"))
        await pilot.pause()
        assert app.workbench.prompt.text == "a [b]normal[/b] paste"


def test_pastes_are_numbered_and_never_replaced(tmp_path: Path) -> None:
    assert save_pastes(tmp_path, "one") == (".steiner/pastes/paste-1.txt",)
    assert save_pastes(tmp_path, "two") == (".steiner/pastes/paste-2.txt",)
    assert (tmp_path / ".steiner/pastes/paste-1.txt").read_text(encoding="utf-8") == "one"


def test_a_paste_over_the_read_limit_is_kept_in_parts_the_read_tool_opens(
    tmp_path: Path,
) -> None:
    """The read tool refuses files over ``MAX_FILE_BYTES``: a 30 MB paste kept as one file
    could not be read at all. Parts split at line ends, each readable, hold every byte."""
    line = "0123456789 [bold]x[/] é ünïcödé\n"
    text = line * (25 * 1024 * 1024 // len(line.encode()))
    saved = save_pastes(tmp_path, text)
    assert len(saved) == 3
    parts = [(tmp_path / path).read_bytes() for path in saved]
    assert b"".join(parts) == text.encode()
    assert all(len(part) <= MAX_FILE_BYTES and part.endswith(b"\n") for part in parts)
    assert min(map(len, parts)) > MAX_FILE_BYTES // 2  # about one size, no stub at the end
    for path in saved:
        assert read_file(tmp_path, path).status == "done"


def test_a_part_without_line_ends_is_cut_between_characters(tmp_path: Path) -> None:
    saved = save_pastes(tmp_path, "é" * 5, limit=3)  # 2 bytes each: never half of one
    assert [(tmp_path / p).read_text(encoding="utf-8") for p in saved] == ["é", "é", "é", "é", "é"]


def test_the_pastes_folder_is_git_ignored(tmp_path: Path) -> None:
    """The first paste writes ``.steiner/.gitignore`` (ignoring ``pastes/``); a file there
    already is the project's and is kept as it is."""
    save_pastes(tmp_path, "one")
    ignore = tmp_path / ".steiner" / ".gitignore"
    assert "pastes/" in ignore.read_text(encoding="utf-8").splitlines()
    ignore.write_text("mine\n", encoding="utf-8")
    save_pastes(tmp_path, "two")
    assert ignore.read_text(encoding="utf-8") == "mine\n"
