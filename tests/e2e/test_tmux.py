"""End to end: the real app in a real terminal (tmux), driven by keys, read from the screen.

One run of ``uv run steiner-tui PATH`` on a sample project with a temporary CONFIG: type a prompt
and send it, open the lineage browser with ``/lineage`` and close it, toggle a skill with its
number key, quit with Ctrl+Q, read the resume hint the app prints, and find the project folder
as it was. A second run resizes the terminal (``tmux resize-window``) from 220x60 down to 80x24
and back up, and reads the conversation's width off the screen at each size: the prompt's box
spans the conversation column. Every step waits by polling ``capture-pane`` until the expected text
appears, within a deadline; the pane's text is in the failure message. The test uses its own
tmux server socket, so it never touches the user's sessions.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from steiner_tui.app.widgets.prompt import PLACEHOLDER
from steiner_tui.commands.screenshots import write_sample_project

REPO = Path(__file__).resolve().parents[2]
SESSION = "e2e"
START_DEADLINE = 90.0
"""Seconds for the first frame: uv, Python and Textual start from cold in CI."""
STEP_DEADLINE = 30.0

Tmux = Callable[..., str]


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    """Run tmux commands against a private server; the server is killed afterwards."""
    binary = shutil.which("tmux")
    if binary is None:
        pytest.fail("the end-to-end test needs tmux on PATH (e.g. `apt-get install tmux`)")
    # One server per test: a server told to exit at the last test's end may still hold a
    # shared socket name when the next test starts one ("server exited unexpectedly").
    socket = f"steiner-e2e-{os.getpid()}-{tmp_path.name}"
    env = {  # COLUMNS and LINES are gone already (tests/conftest.py)
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }

    def run(*args: str) -> str:
        done = subprocess.run(
            [binary, "-L", socket, "-f", os.devnull, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=False,
        )
        if done.returncode:
            pytest.fail(f"tmux {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    try:
        yield run
    finally:
        subprocess.run([binary, "-L", socket, "kill-server"], capture_output=True, check=False)


def _screen(tmux: Tmux) -> str:
    return tmux("capture-pane", "-p", "-t", SESSION)


def _wait_for(
    tmux: Tmux, *texts: str, absent: tuple[str, ...] = (), deadline: float = STEP_DEADLINE
) -> str:
    """Poll the pane until every one of ``texts`` shows and none of ``absent`` does (a frame
    is drawn in parts: one capture can hold a title before its rows); fail with the pane after
    ``deadline``."""
    end = time.monotonic() + deadline
    while True:
        screen = _screen(tmux)
        if all(text in screen for text in texts) and not any(text in screen for text in absent):
            return screen
        if time.monotonic() > end:
            missing = [text for text in texts if text not in screen]
            shown = [text for text in absent if text in screen]
            pytest.fail(
                f"{missing} not on screen, {shown} still on screen after {deadline:.0f}s; "
                f"the pane shows:\n{screen}"
            )
        time.sleep(0.05)  # polling interval only: the loop waits on the screen's content


def _wait_until_closed(tmux: Tmux) -> tuple[str, str]:
    """Poll until the app has closed its terminal; return its exit status ("" if not yet
    reaped: tmux learns it from SIGCHLD, which may come later) and what the pane shows."""
    end = time.monotonic() + STEP_DEADLINE
    while True:
        state = tmux("display-message", "-p", "-t", SESSION, "#{pane_dead}|#{pane_dead_status}")
        dead, _, status = state.strip().partition("|")
        if dead == "1":
            return status, _screen(tmux)
        if time.monotonic() > end:
            pytest.fail(f"the app did not exit; the pane shows:\n{_screen(tmux)}")
        time.sleep(0.05)  # polling interval only: the loop waits for the pane to exit


def _keys(tmux: Tmux, *keys: str) -> None:
    tmux("send-keys", "-t", SESSION, *keys)


def _type(tmux: Tmux, text: str) -> None:
    tmux("send-keys", "-t", SESSION, "-l", text)


def _submit(tmux: Tmux, text: str) -> None:
    """Type ``text``, see it in the prompt, then press Enter (a separate key event)."""
    _type(tmux, text)
    _wait_for(tmux, text)
    _keys(tmux, "Enter")


def _start_app(
    tmux: Tmux, tmp_path: Path, *, server_url: str = "", env: str = "", size: str = "140x40"
) -> Path:
    """Start the app (this interpreter, ``-m steiner_tui``) in a pane ``size`` on a new sample
    project, ``env`` (shell assignments) before it; with ``server_url``, its model is
    ``loop/test-model`` on that OpenAI-compatible server, else the offline default. Returns the
    project once the prompt shows."""
    project = write_sample_project(tmp_path / "project")
    if server_url:
        config = tmp_path / "config" / "steiner"
        config.mkdir(parents=True)
        (config / "config.toml").write_text(
            'default_model = "loop/test-model"\n\n'
            f'[providers.loop]\ntype = "openai"\nbase_url = "{server_url}/v1"\n',
            encoding="utf-8",
        )
    app = f"exec {shlex.quote(sys.executable)} -m steiner_tui {shlex.quote(str(project))}"
    width, height = size.split("x")
    tmux("new-session", "-d", "-x", width, "-y", height, "-s", SESSION, f"{env} {app}".strip())
    _wait_for(tmux, "Ask anything", deadline=START_DEADLINE)
    return project


@pytest.mark.slow
def test_prompt_lineage_skill_quit_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    project = write_sample_project(tmp_path / "budgetkit")
    before = _files(project)
    command = f"uv run steiner-tui {shlex.quote(str(project))}"  # a positional project path
    # remain-on-exit keeps the pane after the app quits, so its exit status can be read. It is
    # set for every window before the session starts: set on the new window afterwards, it came
    # too late for an app that exited at once, and tmux reported only "no such session".
    tmux(
        "start-server", ";", "set-option", "-gw", "remain-on-exit", "on",
        ";", "new-session", "-d", "-x", "160", "-y", "48", "-s", SESSION, command,
    )  # fmt: skip

    # The sidebar's title and its rows are drawn in separate frames: wait for both, and for the
    # dry run's source rows, rather than assert on the first frame that shows the title.
    _wait_for(
        tmux, "Skills", "1 code-review", "dry run", "preamble", PLACEHOLDER,
        deadline=START_DEADLINE,
    )  # fmt: skip

    _submit(tmux, "What does this project do?")
    _wait_for(tmux, "Context · request #", "offline model", "conversation", absent=("dry run",))

    _submit(tmux, "/lineage")
    screen = _wait_for(
        tmux, "Lineage", "1 generation", "start", "Summary · generation 0", "History"
    )  # fmt: skip
    assert PLACEHOLDER not in screen
    _keys(tmux, "Escape")
    _wait_for(tmux, PLACEHOLDER, "Context · request #")

    # The number keys toggle skills when the prompt is not focused: /skills focuses the sidebar.
    # (Nothing returns focus to the prompt afterwards, so this step comes after /lineage.)
    _submit(tmux, "/skills")
    _wait_for(tmux, PLACEHOLDER)  # the prompt was cleared: the command ran
    _keys(tmux, "1")
    _wait_for(tmux, "1 code-review", "◐ pending on", "○ inactive")  # the others stay off

    _keys(tmux, "C-q")
    status, screen = _wait_until_closed(tmux)
    assert status in ("", "0"), f"exit status {status}; the pane shows:\n{screen}"
    assert "Traceback" not in screen and "Skills" not in screen, screen
    # On exit the app says which session it saved and how to resume it (once it has left the
    # alternate screen, that line can sit above the visible pane: read the scrollback too).
    history = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", SESSION)
    assert "resume it with: steiner-tui --resume " in history, history
    # Nothing was written into the project: the session lives under CONFIG.
    assert _files(project) == before
    assert list((tmp_path / "config" / "steiner" / "sessions").iterdir())


def _files(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*")}


def _conversation_width(screen: str) -> int:
    """The width of the prompt's box (the conversation column), read off the placeholder's row
    (-1 while the row is not drawn whole: a capture can fall in the middle of a redraw)."""
    row = next((line for line in screen.splitlines() if PLACEHOLDER[:12] in line), "")
    start = row.find(PLACEHOLDER[:12])
    left, right = row.rfind("│", 0, max(start, 0)), row.find("│", max(start, 0))
    return right - left + 1 if start >= 0 and left >= 0 and right >= 0 else -1


def _resize(tmux: Tmux, width: int, height: int) -> None:
    tmux("resize-window", "-t", SESSION, "-x", str(width), "-y", str(height))


def _wait_for_width(
    tmux: Tmux, width: int, shown: tuple[str, ...] = (), absent: tuple[str, ...] = ()
) -> str:
    """Poll until the conversation column is ``width`` wide (the app has laid out the size),
    every one of ``shown`` is on screen and none of ``absent``."""
    end = time.monotonic() + STEP_DEADLINE
    while True:
        screen = _screen(tmux)
        if (
            PLACEHOLDER[:12] in screen
            and _conversation_width(screen) == width
            and all(text in screen for text in shown)
            and not any(text in screen for text in absent)
        ):
            return screen
        if time.monotonic() > end:
            pytest.fail(f"the conversation is not {width} columns wide; the pane shows:\n{screen}")
        time.sleep(0.05)  # polling interval only: the loop waits on the screen's content


@pytest.mark.slow
def test_resizing_keeps_the_conversation_readable_in_tmux(tmux: Tmux, tmp_path: Path) -> None:
    project = write_sample_project(tmp_path / "budgetkit")
    command = f"uv run steiner-tui {shlex.quote(str(project))}"
    tmux(
        "start-server", ";", "set-option", "-gw", "remain-on-exit", "on",
        ";", "new-session", "-d", "-x", "220", "-y", "60", "-s", SESSION, command,
    )  # fmt: skip
    _wait_for(tmux, "Skills", "dry run", PLACEHOLDER, deadline=START_DEADLINE)
    # Polled, not read off the first frame: a capture can fall in the middle of a redraw.
    # 220 columns: both panels docked, the context panel 30% of the width (66: it grows with
    # the width), the conversation the rest.
    _wait_for_width(tmux, 220 - 28 - 66)
    _resize(tmux, 120, 36)  # the context panel stays, the skills sidebar goes
    _wait_for_width(tmux, 120 - 46, shown=("Context ·",), absent=("Skills ·",))
    _resize(tmux, 100, 30)  # neither panel: the conversation has the whole width
    _wait_for_width(tmux, 100, absent=("Context ·",))
    _resize(tmux, 80, 24)
    _wait_for_width(tmux, 80)
    _keys(tmux, "F10")  # the context panel on demand, over the conversation
    _wait_for(tmux, "Context ·")
    _keys(tmux, "F10")
    # Until the panel is gone: the conversation is 80 wide under the floating panel too, and an
    # F10 handled after the resize below would hide the panel the wider screen docks.
    _wait_for_width(tmux, 80, absent=("Context ·",))
    _resize(tmux, 160, 48)
    _wait_for_width(tmux, 160 - 28 - 48, shown=("Skills ·", "Context ·"))  # 30% of 160
    _keys(tmux, "C-q")
    status, screen = _wait_until_closed(tmux)
    assert status in ("", "0"), f"exit status {status}; the pane shows:\n{screen}"
