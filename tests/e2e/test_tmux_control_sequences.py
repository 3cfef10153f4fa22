"""End to end: an escape sequence in data never reaches the terminal (issue 29).

A file in the project is named ``ESC ]2;PWNED BEL notes.md`` (an OSC title change). The offline
model lists the project's files in its reply; tmux's ``pipe-pane`` records every byte the app
writes to its terminal, through the reply and then the request inspector (F2), whose messages
table shows the name again. The sequence must not be among them (nor any OSC but Textual's own
pointer shape and links), and the pane shows it as text (``␛]2;PWNED``).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from steiner_tui.commands.screenshots import write_sample_project
from tests.e2e.test_tmux import (
    SESSION,
    START_DEADLINE,
    Tmux,
    _keys,
    _submit,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)

HOSTILE = "\x1b]2;PWNED\x07notes.md"


@pytest.mark.slow
def test_a_file_name_the_offline_model_repeats_is_shown_not_obeyed(
    tmux: Tmux,  # noqa: F811
    tmp_path: Path,
) -> None:
    project = write_sample_project(tmp_path / "budgetkit")
    (project / HOSTILE).write_text("hello\n")
    raw = tmp_path / "terminal.bin"
    command = f"uv run steiner-tui {shlex.quote(str(project))}"
    tmux("new-session", "-d", "-x", "160", "-y", "48", "-s", SESSION, command)
    tmux("pipe-pane", "-o", "-t", SESSION, f"cat >> {shlex.quote(str(raw))}")
    _wait_for(tmux, "Ask anything", "dry run", deadline=START_DEADLINE)
    _submit(tmux, "what is in this project?")
    screen = _wait_for(tmux, "Here is what the tools showed", "Top-level files")
    assert "␛]2;PWNED" in screen, screen
    # The inspector lists the request's messages, the glob's result (the name) among them.
    _keys(tmux, "F2")
    _wait_for(tmux, "First line", "notes.md")
    written = raw.read_bytes()
    assert b"\x1b]2;PWNED" not in written, screen
    osc = set(re.findall(rb"\x1b\](\d*)", written))
    assert osc <= {b"22", b"8"}, (
        f"OSC {osc} reached the terminal (Textual's own: 22 pointer, 8 links)"
    )
    assert "␛]2;PWNED" in screen, screen
