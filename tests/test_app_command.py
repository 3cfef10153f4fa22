"""``steiner-tui`` itself, in a pseudo-terminal: how a launch reports what stops it.

A session is checked before the app starts and built after its first frame (``make_app(...,
defer_open=True)``). Configuration errors (an unknown provider, a missing API key) are
printed before the terminal is taken over; an error while opening the session ends the app,
and the same one-line message is printed once the terminal is restored. Either way the exit
status is 2.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from steiner_tui.commands.app import _start
from steiner_tui.sessions.lock import SessionLock

ALTERNATE_SCREEN = b"\x1b[?1049h"
DEADLINE = 120.0


def _launch(tmp_path: Path, config: str, *options: str) -> tuple[int, bytes]:
    """Run ``python -m steiner_tui`` in a pty until it exits: its status and all it wrote."""
    xdg = tmp_path / "xdg"
    (xdg / "steiner").mkdir(parents=True, exist_ok=True)
    (xdg / "steiner" / "config.toml").write_text(config, encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(XDG_CONFIG_HOME=str(xdg), XDG_CACHE_HOME=str(tmp_path / "cache"), TERM="xterm")
    argv = [sys.executable, "-m", "steiner_tui", "--project", str(project), *options]
    pid, fd = pty.fork()
    if pid == 0:  # the child becomes the program
        os.execve(argv[0], argv, env)
    output = b""
    start = time.monotonic()
    try:
        while time.monotonic() - start < DEADLINE:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # the program ended and closed the terminal
                break
            if not chunk:
                break
            output += chunk
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), output


def test_a_missing_api_key_is_reported_before_the_app_starts(tmp_path: Path) -> None:
    code, output = _launch(tmp_path, 'default_model = "anthropic/claude-sonnet-4-6"\n')
    assert code == 2, output
    assert b"steiner-tui: provider 'anthropic' needs an API key" in output
    assert ALTERNATE_SCREEN not in output


def test_a_wrong_configuration_is_said_as_one_before_the_app_starts(tmp_path: Path) -> None:
    """Every wrong value at once, said as the configuration's (the workbench printed
    "steiner-tui: 2 problems:")."""
    code, output = _launch(tmp_path, "[ui]\ntheme = 42\ntyping_burst_ms = -5\n")
    assert code == 2, output
    assert b"steiner-tui: 2 problems in the configuration:\r\n" in output
    assert b"'ui.typing_burst_ms' = -5: expected an integer of 0 or more" in output
    assert ALTERNATE_SCREEN not in output


@pytest.mark.parametrize("piped", ["stdin", "stdout"])
def test_without_a_terminal_the_workbench_says_to_use_exec(tmp_path: Path, piped: str) -> None:
    """``steiner-tui > out.txt`` (or with stdin from a pipe) drew its screens into the file and
    waited for keys until it was killed. It now stops at once and names ``exec``."""
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "TERM": "xterm"}
    argv = [sys.executable, "-m", "steiner_tui", "--project", str(project)]
    leader, follower = pty.openpty()  # the other stream is a terminal
    other = {"stdin": follower} if piped == "stdout" else {"stdout": follower}
    streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, **other}
    try:
        done = subprocess.run(
            argv, env=env, stderr=subprocess.PIPE, timeout=DEADLINE, check=False, **streams
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert done.returncode == 2
    said = done.stderr.decode()
    assert said.startswith(f"steiner-tui: the workbench needs a terminal, and {piped} is not one")
    assert 'steiner-tui exec "…"' in said
    assert not (tmp_path / "xdg" / "steiner" / "sessions").exists()  # nothing opened


def test_a_session_that_cannot_open_ends_the_app_with_its_error(tmp_path: Path) -> None:
    blocker = tmp_path / "xdg" / "steiner" / "sessions"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("a file where the sessions folder goes\n", encoding="utf-8")
    code, output = _launch(tmp_path, "")
    assert code == 2, output
    assert ALTERNATE_SCREEN in output  # the workbench was drawn before the session opened
    after_app = output.rsplit(b"\x1b[?1049l", 1)[-1]
    assert b"steiner-tui: " in after_app and b"sessions" in after_app, output[-2000:]


def test_a_session_open_in_another_app_is_refused_with_the_way_on(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    project = str(tmp_path / "project")
    argv = [sys.executable, "-m", "steiner_tui", "--project", project, "exec", "hi"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    session_id = done.stderr.rsplit("session: ", 1)[1].split()[0]
    lock = SessionLock.acquire(tmp_path / "xdg" / "steiner" / "sessions" / session_id)
    try:
        code, output = _launch(tmp_path, "", "--resume", session_id)
    finally:
        lock.release()
    assert code == 2, output
    assert b"is open in a running steiner-tui" in output
    assert f"steiner-tui sessions fork {session_id}".encode() in output.replace(b"\r\n", b"")
    assert ALTERNATE_SCREEN not in output


def test_model_chooses_the_workbench_s_model(tmp_path: Path) -> None:
    """``--model`` picks the model instead of the configured one (offline here): a hosted one
    without its key is reported before the terminal is taken over."""
    code, output = _launch(tmp_path, "", "--model", "anthropic/claude-sonnet-4-6")
    assert code == 2, output
    assert b"steiner-tui: provider 'anthropic' needs an API key" in output
    assert ALTERNATE_SCREEN not in output


def test_a_session_resumed_by_id_from_another_folder_opens_in_its_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The printed ``steiner-tui --resume ID`` run from another folder: the engine went on in
    the session's project, but its config, its status line and its pastes folder were the
    current folder's."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / ".steiner").mkdir(parents=True)
    (project / ".steiner" / "config.toml").write_text('[context]\nfiles = ["NOTES.md"]\n')
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    done = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec", "hello"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    session_id = done.stderr.rsplit("session: ", 1)[1].strip()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    request = _start(elsewhere, session_id)
    assert request.project_root == project.resolve()
    assert project.resolve() / ".steiner" / "config.toml" in request.config.sources
    assert _start(elsewhere, None).project_root == elsewhere  # a new session: where it is run
