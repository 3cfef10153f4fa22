"""Files an import must not wait on, fill memory with, or stop at (issue 29, item 4).

A named pipe named ``*.jsonl`` blocked ``import`` for ever (an ``open`` waits for a writer); a
link to ``/dev/zero`` named ``*.jsonl`` read zeros until memory ran out; a 5000-digit number
(over Python's limit for an integer's digits) ended the whole import with a traceback. Each
runs in a child process here, so a hang fails the test instead of stopping the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from steiner_tui.importers import jsonl
from steiner_tui.importers.discover import import_paths
from tests.importers.test_claude_fixtures import SESSIONS

_PATIENCE = 60.0
"""How long an import may take before the test calls it hung (a bound, not a figure checked)."""


def _import_in_a_child(target: Path) -> str:
    code = (
        "import sys; from pathlib import Path; "
        "from steiner_tui.importers.discover import import_paths; "
        "r = import_paths([Path(sys.argv[1])]); "
        "print(len(r.sessions)); [print(p, '|', why) for p, why in r.skipped]"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(target)],
            capture_output=True,
            text=True,
            timeout=_PATIENCE,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"import of {target} did not end")
    assert done.returncode == 0, done.stderr
    return done.stdout


def _folder_with_one_session(tmp_path: Path) -> Path:
    folder = tmp_path / "projects"
    folder.mkdir()
    (folder / SESSIONS[0].name).write_bytes(SESSIONS[0].read_bytes())
    return folder


def test_a_named_pipe_is_skipped_not_waited_on(tmp_path: Path) -> None:
    folder = _folder_with_one_session(tmp_path)
    os.mkfifo(folder / "pipe.jsonl")
    shown = _import_in_a_child(folder)
    assert shown.startswith("1\n"), shown
    assert "pipe.jsonl | not a regular file" in shown


def test_a_link_to_dev_zero_is_skipped_not_read(tmp_path: Path) -> None:
    folder = _folder_with_one_session(tmp_path)
    (folder / "zero.jsonl").symlink_to("/dev/zero")
    shown = _import_in_a_child(folder)
    assert shown.startswith("1\n"), shown
    assert "zero.jsonl | not a regular file" in shown
    assert "not a regular file" in _import_in_a_child(folder / "zero.jsonl")


def test_a_5000_digit_number_is_one_lines_problem(tmp_path: Path) -> None:
    lines = SESSIONS[0].read_text(encoding="utf-8").splitlines()
    copy = tmp_path / SESSIONS[0].name
    huge = '{"type": "user", "n": ' + "9" * 5000 + "}"
    copy.write_text("\n".join([lines[0], huge, *lines[1:]]) + "\n", encoding="utf-8")
    (session,) = import_paths([copy]).sessions
    assert [(p.line, p.message) for p in session.problems] == [
        (2, "a number too long to read (over 4300 digits)")
    ]


def test_a_line_over_the_cap_is_skipped_and_the_rest_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_CHARS", 1000)
    lines = SESSIONS[0].read_text(encoding="utf-8").splitlines()
    copy = tmp_path / SESSIONS[0].name
    long = '{"type": "user", "pad": "' + "x" * 5000 + '"}'
    copy.write_text("\n".join([lines[0], long, *lines[1:]]) + "\n", encoding="utf-8")
    kept = [line for line in lines if len(line) < 1000]
    (session,) = import_paths([copy]).sessions
    problems = [(p.line, p.message) for p in session.problems]
    assert (2, "longer than 1,000 characters: skipped") in problems
    assert len(problems) == 1 + len(lines) - len(kept)
