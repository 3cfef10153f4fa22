"""End to end: Ctrl+G hands the prompt to the person's editor in a real terminal, and back.

The app runs in tmux on the offline model with ``$EDITOR`` set. With a real ``vi`` (when the
machine has one) the test sees the prompt's text in the editor's screen, adds a line with vi's
own keys, writes and quits; the prompt then holds both lines and Enter sends them. An editor
that fails (``false``) leaves the prompt as it was, and the conversation says why.
"""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import pytest

from steiner_tui.commands.screenshots import write_sample_project
from tests.e2e.test_tmux import (
    SESSION,
    START_DEADLINE,
    Tmux,
    _keys,
    _type,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)


def _start(tmux: Tmux, tmp_path: Path, editor: str) -> None:  # noqa: F811
    project = write_sample_project(tmp_path / "project")
    app = f"exec {shlex.quote(sys.executable)} -m steiner_tui {shlex.quote(str(project))}"
    command = f"EDITOR={shlex.quote(editor)} VISUAL= {app}"
    tmux("new-session", "-d", "-x", "120", "-y", "32", "-s", SESSION, command)
    _wait_for(tmux, "Ask anything", "offline", deadline=START_DEADLINE)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("vi") is None, reason="the machine has no vi")
def test_ctrl_g_edits_the_prompt_in_vi_and_sends_it(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    _start(tmux, tmp_path, "vi")
    _type(tmux, "first line from the prompt")
    _wait_for(tmux, "first line from the prompt")
    _keys(tmux, "C-g")
    _wait_for(tmux, "steiner-prompt-", absent=("Ask anything",))  # vi's status line
    _keys(tmux, "G")
    _keys(tmux, "o")
    _type(tmux, "second line from vi")
    _keys(tmux, "Escape")
    _type(tmux, ":wq")
    _keys(tmux, "Enter")
    screen = _wait_for(tmux, "second line from vi", "BUILD")
    assert "first line from the prompt" in screen
    _keys(tmux, "Enter")
    _wait_for(tmux, "I am the offline model")
    _keys(tmux, "C-q")


@pytest.mark.slow
def test_a_failing_editor_leaves_the_prompt_as_it_was(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    _start(tmux, tmp_path, "false")
    _type(tmux, "kept as typed")
    _wait_for(tmux, "kept as typed")
    _keys(tmux, "C-g")
    screen = _wait_for(tmux, "false exited with status 1: the prompt is unchanged")
    assert "kept as typed" in screen
    _keys(tmux, "C-q")
