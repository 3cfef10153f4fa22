"""End to end: typed and pasted text lands in the prompt whole, whatever has the focus.

A real terminal (tmux, its own server) sends a 200-character burst at full speed (``send-keys
-l``), a non-bracketed paste (``paste-buffer``) and a bracketed one (``paste-buffer -p``) with
the focus moved by Tab onto each focusable place of the workbench in turn (the skills sidebar,
the conversation, its entries, the context panel and its parts), while a CPU hog runs beside
the app. Each is sent with Enter, and the session log must hold every message byte for byte:
no character lost, reordered, or taken by a single-key binding (``p`` pins, ``1`` toggles a
skill, ``m`` masks, ``+`` moves the what-if threshold).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from steiner_tui.app.widgets.prompt import PLACEHOLDER
from steiner_tui.commands.screenshots import write_sample_project
from tests.e2e.test_tmux import (
    SESSION,
    START_DEADLINE,
    STEP_DEADLINE,
    Tmux,
    _keys,
    _wait_for,
    tmux,  # noqa: F401  (the fixture)
)

TEXT = "please compare logs/app.log and fix bug 2 now: p m t w + - 1 2 3 q space "
BURST = (TEXT * 3)[:200]
"""200 characters with every single-key binding of the workbench in them."""
TABS = range(1, 9)
"""How many Tabs from the prompt: each focusable place in turn (and round again)."""
HOG = "import time\nend = time.time() + 300\nwhile time.time() < end: pass"
"""A busy loop that ends by itself after five minutes (and is killed at the test's end)."""


@pytest.fixture
def cpu_hog() -> Iterator[None]:
    """A busy loop beside the app (bounded: it ends by itself after five minutes)."""
    hog = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nend = time.time() + 300\nwhile time.time() < end: pass",
        ]
    )
    try:
        yield
    finally:
        hog.kill()
        hog.wait()


def _sent(config: Path) -> list[str]:
    """The user messages of the session log, in order (the text after any notice)."""
    texts = []
    for log in (config / "steiner" / "sessions").glob("*/session.jsonl"):
        # Whole lines only: the app may be writing the last one as it is read.
        for line in log.read_text(encoding="utf-8").split("\n")[:-1]:
            record = json.loads(line)
            if record.get("type") == "user" and not record.get("source"):
                content = str(record.get("content", ""))
                if "text" in record:  # a large message: its text is in session.text
                    offset, length = record["text"]
                    stored = (log.parent / "session.text").read_bytes()
                    content = stored[offset : offset + length].decode()
                texts.append(content)
    return texts


@pytest.mark.slow
def test_bursts_and_pastes_land_whole_wherever_the_focus_is(
    tmux: Tmux,  # noqa: F811
    tmp_path: Path,
    cpu_hog: None,
) -> None:
    project = write_sample_project(tmp_path / "budgetkit")
    command = f"uv run steiner-tui {shlex.quote(str(project))}"
    tmux("new-session", "-d", "-x", "160", "-y", "48", "-s", SESSION, command)
    _wait_for(tmux, "Skills", "dry run", PLACEHOLDER, deadline=START_DEADLINE)
    buffer = tmp_path / "burst.txt"
    buffer.write_text(BURST, encoding="utf-8")
    tmux("load-buffer", "-b", "burst", str(buffer))
    expected: list[str] = []
    for round_, tabs in enumerate(TABS):
        for way in ("keys", "paste", "bracketed"):
            # Idle, the prompt empty; then the focus moved (the pane's colours change).
            _wait_for(tmux, PLACEHOLDER, absent=("generating",))
            before = _colours(tmux)
            _keys(tmux, *["Tab"] * tabs)
            _wait_for_change(tmux, before)
            if way == "keys":
                tmux("send-keys", "-t", SESSION, "-l", BURST)
            else:
                bracketed = ["-p"] if way == "bracketed" else []
                tmux("paste-buffer", *bracketed, "-b", "burst", "-t", SESSION)
            _keys(tmux, "Enter")  # after the text in the terminal's stream, as a person would
            expected.append(BURST)
            _wait_for_log(tmp_path / "config", len(expected), (round_, tabs, way))
    sent = _sent(tmp_path / "config")
    assert [text[-len(BURST) :] for text in sent] == expected
    assert all(BURST in text for text in sent)


def _colours(run: Tmux) -> str:
    return run("capture-pane", "-e", "-p", "-t", SESSION)


def _wait_for_change(run: Tmux, before: str) -> None:
    """Poll until the pane (with its colours) differs from ``before``: the focus has moved."""
    end = time.monotonic() + STEP_DEADLINE
    while _colours(run) == before and time.monotonic() < end:
        time.sleep(0.05)  # polling interval only: the loop waits on the screen's content


def _wait_for_log(config: Path, count: int, where: object) -> None:
    """Poll the session log until it holds ``count`` messages of the person's."""
    end = time.monotonic() + STEP_DEADLINE
    while len(_sent(config)) < count:
        if time.monotonic() > end:
            pytest.fail(f"{where}: {count} messages expected, the log has {_sent(config)}")
        time.sleep(0.05)  # polling interval only: the loop waits on the log's content
