"""Start-up imports what the first frame needs and five things only later: the rest may load.

Every module imports what it uses at module level, with five exceptions that pay for
themselves: the provider SDKs (and their HTTP library), imported by a provider's first call;
the screens other than the workbench, imported when first opened; Textual's Markdown, with the
first reply; ``watchfiles``, when the watcher starts; and ``jinja2``, imported by the first
template render, which a launch makes after the first frame. These tests fail when an
import brings one of them onto the path to the first frame (or, except ``jinja2``, into
building a session). They check ``sys.modules`` in a fresh interpreter, never the clock.
"""

from __future__ import annotations

import json
import subprocess
import sys

FIRST_FRAME = """
import os, sys, tempfile
from pathlib import Path
home = tempfile.mkdtemp()
os.environ.update(HOME=home, XDG_CONFIG_HOME=home, XDG_CACHE_HOME=home, XDG_DATA_HOME=home)
from steiner_tui.commands.app import _start
from steiner_tui.app.app import make_app
make_app(_start(Path(home), None), defer_open=True)
"""
"""What ``commands.app`` does before the app runs, for a new session in an empty project."""

OPENED_SESSION = """
import tempfile
from pathlib import Path
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import make_app
project = Path(tempfile.mkdtemp())
app = make_app(SessionRequest(project, record=False))
app.session.preview()
"""
"""A built session with the offline model and its dry-run request (the context panel)."""

STARTED_UP = """
import asyncio, tempfile
from pathlib import Path
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import make_app
from steiner_tui.app.messages import WorkbenchReady
from steiner_tui.config import parse_config
project = Path(tempfile.mkdtemp())
config = parse_config([("test config", {"ui": {"watch_files": False}})])
app = make_app(SessionRequest(project, config, record=False), defer_open=True)
ready = []
async def main():
    hook = lambda message: ready.append(message) if isinstance(message, WorkbenchReady) else None
    async with app.run_test(message_hook=hook) as pilot:
        while not ready:
            await pilot.pause()
        await pilot.pause()
asyncio.run(main())
"""
"""The workbench launched and started up (the context panel filled), with no keymap to check."""

LATER = (
    # Provider SDKs and their HTTP library: a provider's first call imports them.
    "anthropic",
    "openai",
    "httpx2",
    # No other HTTP client: a local server's limits are asked over httpx2 too (in the probe).
    "http.client",
    "urllib.request",
    # The file watcher's native module: imported when the watcher starts.
    "watchfiles",
    # Claude's tokenizers: a Claude model's first count imports them (the offline model never).
    "ctok",
    # Textual's Markdown and its parser: the conversation asks for it with the first reply.
    "textual.widgets._markdown",
    "markdown_it",
    # Textual's DataTable: only screens opened later (inspector, lineage, sessions) use it.
    "textual.widgets._data_table",
    # Screens other than the workbench: imported when first opened.
    "steiner_tui.app.screens.config_save",
    "steiner_tui.app.screens.allow_always",
    "steiner_tui.app.screens.help",
    "steiner_tui.app.screens.inspector",
    "steiner_tui.app.screens.lineage",
    "steiner_tui.app.screens.sessions",
    "steiner_tui.app.screens.subagent_transcript",
    # Writing the project config (tomlkit keeps its comments): only the confirmation screen
    # before a write imports it, so it loads with that screen.
    "tomlkit",
    "steiner_tui.config_write",
)


AFTER_THE_FIRST_FRAME = (
    # The prompt templates' library: the first render imports it, when the session builds its
    # first request (the dry run), after the first frame.
    "jinja2",
    "markupsafe",
    "steiner_tui.engine.template_environment",
)


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return set(json.loads(out))


def test_the_first_frame_leaves_sdks_watcher_and_other_screens_unloaded() -> None:
    loaded = _loaded_after(FIRST_FRAME)
    assert "steiner_tui.app.screens.main" in loaded  # the probe really imported the workbench
    assert sorted(name for name in LATER + AFTER_THE_FIRST_FRAME if name in loaded) == []


def test_an_opened_session_leaves_them_unloaded_too() -> None:
    loaded = _loaded_after(OPENED_SESSION)
    assert "steiner_tui.agent.runner" in loaded  # the probe really built a session
    assert "jinja2" in loaded  # its dry run rendered the preamble
    assert sorted(name for name in LATER if name in loaded) == []


def test_starting_up_without_a_keymap_leaves_them_unloaded_too() -> None:
    loaded = _loaded_after(STARTED_UP)
    assert "steiner_tui.agent.runner" in loaded  # the probe really opened the session
    assert sorted(name for name in LATER if name in loaded) == []


OUR_DATACLASSES = """
import dataclasses, json, sys
import steiner_tui.commands.app
made = sorted(
    f"{name}.{value.__qualname__}"
    for name, module in list(sys.modules.items())
    if name.startswith("steiner_tui")
    for value in vars(module).values()
    if isinstance(value, type) and value.__module__ == name and dataclasses.is_dataclass(value)
)
print(json.dumps(made))
"""


def test_the_start_path_makes_none_of_our_classes_as_dataclasses() -> None:
    """A dataclass compiles each generated method with its own ``exec`` when its class is made;
    the package's values are ``msgspec`` structs (docs/ARCHITECTURE.md, "Start-up")."""
    out = subprocess.run(
        [sys.executable, "-c", OUR_DATACLASSES], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == []
