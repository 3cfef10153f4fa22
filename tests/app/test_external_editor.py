"""Ctrl+G: the prompt in the person's editor (``external_editor``), and what the screen says
when it cannot hand over. The real terminal round trip is ``tests/e2e/test_tmux_editor.py``."""

from __future__ import annotations

import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest

from steiner_tui.app.external_editor import EditorError, edit_text, editor_command
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, mid_reply, said


def _script(tmp_path: Path, body: str) -> list[str]:
    """An editor: a Python script run on the file it is given."""
    path = tmp_path / "editor.py"
    path.write_text(f"import sys\npath = sys.argv[1]\n{body}\n", encoding="utf-8")
    return [sys.executable, str(path)]


def test_the_editor_is_visual_then_editor_split_as_a_shell_would() -> None:
    assert editor_command({"VISUAL": "code --wait", "EDITOR": "nano"}) == ["code", "--wait"]
    assert editor_command({"VISUAL": " ", "EDITOR": "'my editor' -n"}) == ["my editor", "-n"]
    with pytest.raises(EditorError, match=r"\$EDITOR .* cannot be read"):
        editor_command({"EDITOR": "vim 'unclosed"})


def test_with_no_editor_set_it_is_vi_if_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(EditorError, match=r"no editor: set \$VISUAL or \$EDITOR"):
        editor_command({})


def test_edited_text_comes_back_without_the_final_newline(tmp_path: Path) -> None:
    editor = _script(
        tmp_path,
        "text = open(path, encoding='utf-8').read()\n"
        "open(path, 'w', encoding='utf-8').write(text.upper() + '\\nADDED ✓\\n')",
    )
    assert edit_text("draft [b]x[/b]", editor, nullcontext) == "DRAFT [B]X[/B]\nADDED ✓"


def test_the_file_is_private_and_gone_after(tmp_path: Path) -> None:
    seen = tmp_path / "seen.txt"
    editor = _script(
        tmp_path,
        f"import os\nopen({str(seen)!r}, 'w').write(path + ' ' + oct(os.stat(path).st_mode))",
    )
    edit_text("secret", editor, nullcontext)
    name, mode = seen.read_text().split()
    assert stat.S_IMODE(int(mode, 8)) == 0o600
    assert not Path(name).exists()


def test_a_failed_editor_or_bad_text_changes_nothing(tmp_path: Path) -> None:
    with pytest.raises(EditorError, match="exited with status 3"):
        edit_text("x", _script(tmp_path, "sys.exit(3)"), nullcontext)
    with pytest.raises(EditorError, match="not UTF-8"):
        edit_text("x", _script(tmp_path, "open(path, 'wb').write(b'\\xff\\xfe')"), nullcontext)
    with pytest.raises(EditorError, match="cannot run /nonexistent/editor"):
        edit_text("x", ["/nonexistent/editor"], nullcontext)


def test_a_missing_editor_hands_the_terminal_back(tmp_path: Path) -> None:
    """EDITOR=nonexistent-editor, then Ctrl+G in tmux: the screen stayed blank and the app
    hung. Textual's ``App.suspend`` hands the terminal back only when its block ends without
    an exception (its code after ``yield`` is not in a ``finally``); the failure left the app
    suspended, its output queue filled and the event loop blocked on it. The block now ends
    normally and the error is raised after it."""
    given_back: list[bool] = []

    @contextmanager
    def suspended() -> Iterator[None]:  # as Textual's: nothing after an exception
        yield
        given_back.append(True)

    with pytest.raises(EditorError, match="cannot run nonexistent-editor"):
        edit_text("x", ["nonexistent-editor"], suspended)
    assert given_back == [True]


async def test_ctrl_g_without_a_terminal_says_so(
    app_for: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "true")  # an editor is found: the terminal is what is missing
    monkeypatch.delenv("VISUAL", raising=False)
    app = app_for()
    async with app.run_test() as pilot:
        await finish(pilot)
        prompt = app.workbench.prompt
        prompt.focus()
        prompt.load_text("as typed")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert prompt.text == "as typed"
        assert "this terminal cannot be handed to an editor" in said(app)


async def test_ctrl_g_while_a_reply_streams_waits_for_its_end(app_for: AppFactory) -> None:
    async with mid_reply(app_for) as (app, pilot, _):
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert any("the editor opens once the reply has ended" in t for t in said(app))
