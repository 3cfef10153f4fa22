"""End to end: Ctrl+G hands the prompt to the person's editor in a real terminal, and back.

The app runs in tmux on the offline model with ``$EDITOR`` set. With a real ``vi`` (when the
machine has one) the test sees the prompt's text in the editor's screen, adds a line with vi's
own keys, writes and quits; the prompt then holds both lines and Enter sends them. An editor
that fails (``false``) leaves the prompt as it was, and the conversation says why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.e2e.test_tmux import (
    Tmux,
    _keys,
    _start_app,
    _type,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("vi") is None, reason="the machine has no vi")
def test_ctrl_g_edits_the_prompt_in_vi_and_sends_it(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    _start_app(tmux, tmp_path, env="EDITOR=vi VISUAL=", size="120x32")
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
    # A frame is drawn in parts: wait for every part, not one and then assert the other.
    _wait_for(tmux, "second line from vi", "first line from the prompt", "BUILD")
    _keys(tmux, "Enter")
    _wait_for(tmux, "I am the offline model")
    _keys(tmux, "C-q")


@pytest.mark.slow
def test_a_failing_editor_leaves_the_prompt_as_it_was(tmux: Tmux, tmp_path: Path) -> None:  # noqa: F811
    _start_app(tmux, tmp_path, env="EDITOR=false VISUAL=", size="120x32")
    _type(tmux, "kept as typed")
    _wait_for(tmux, "kept as typed")
    _keys(tmux, "C-g")
    _wait_for(tmux, "false exited with status 1: the prompt is unchanged", "kept as typed")
    _keys(tmux, "C-q")
