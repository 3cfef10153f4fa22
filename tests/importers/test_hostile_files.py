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
from steiner_tui.importers.follow import TranscriptFollower
from steiner_tui.importers.model import LineProblem
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
    assert (2, "longer than 1,000 characters") in problems
    assert session.problems[0].said() == "line 2: longer than 1,000 characters (skipped)"
    assert len(problems) == 1 + len(lines) - len(kept)


def test_a_line_with_bytes_that_are_not_utf8_is_kept_and_said(tmp_path: Path) -> None:
    """The bytes became U+FFFD with no word of it, where a line cut short was reported: the
    line is read, and reported as kept (apart from skipped lines), in the import and the
    watch."""
    lines = SESSIONS[0].read_bytes().splitlines(keepends=True)
    number, line = next((n, b) for n, b in enumerate(lines, 1) if b'"text":"' in b and n > 2)
    at = line.index(b'"text":"') + len(b'"text":"')
    lines[number - 1] = line[:at] + b"caf\xe9 \xff\xfe" + line[at:]
    copy = tmp_path / SESSIONS[0].name
    copy.write_bytes(b"".join(lines))
    (session,) = import_paths([copy]).sessions
    (whole,) = import_paths([SESSIONS[0]]).sessions
    column = len(line[:at].decode()) + 4
    [problem] = session.problems
    assert problem == LineProblem(
        number,
        f"3 bytes that are not UTF-8: 0xE9 at column {column}, 0xFF 0xFE at column {column + 2}",
        kept=True,
    )
    assert problem.said().endswith("(kept, each bad byte shown as \ufffd)")
    assert len(session.requests) == len(whole.requests)  # nothing skipped
    follower = TranscriptFollower(copy)
    follower.poll()
    assert follower.skipped_lines() == [
        f"line {number} of {copy.name}: {problem.message}; kept, each bad byte shown as \ufffd"
    ]
