"""SVG snapshots of keys, commands and text at 80x24 and 160x48: the help over the workbench and
over the inspector, the completion dropdown, opened read/edit/bash tool blocks, an error entry,
commands' notices, a skill toggled in the sidebar (pending) and the sessions screen.

Deterministic as ``test_snapshots``: the fixture project, fixed session id, date and clock, no
watchers, no blink. Update with ``uv run pytest tests/app/test_snapshots_keys.py
--snapshot-update`` after a deliberate UI change (and look at the report).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.screens.sessions import SessionsScreen
from steiner_tui.app.transcript import ErrorEntry, PermissionEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.engine.provider import Remedy
from steiner_tui.sessions.meta import SessionMeta
from steiner_tui.sessions.store import SessionInfo, SessionStore
from steiner_tui.tools.base import PermissionRequest
from steiner_tui.tools.guards import change_preview
from tests.app.conftest import FIXTURE_PROJECT, request_for
from tests.app.helpers import finish, send

SnapCompare = Callable[..., bool]
SIZES = [(80, 24), (160, 48)]
sized = pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
SCREEN_SIZES = [(80, 24), (100, 30), (160, 48), (220, 60)]
screen_sized = pytest.mark.parametrize(
    "size", SCREEN_SIZES, ids=lambda size: f"{size[0]}x{size[1]}"
)
"""Whole screens (help, sessions) at the four sizes the main screen is checked at."""

READ = {
    "path": "src/app.py",
    "startLine": 1,
    "endLine": 6,
    "totalLines": 6,
    "output": "\n".join(
        f"{n:>4}\t{line}"
        for n, line in enumerate(
            [
                '"""The app."""',
                "",
                '__all__ = ["main"]',
                "",
                "def main() -> int:",
                '\treturn print("hi\\tthere") or 0',
            ],
            1,
        )
    ),
}
EDIT = {"path": "src/app.py", "old_string": "    return 0\n", "new_string": "    return 1\n"}
BASH = "collected 3 items\n\ntests/test_app.py ...  [100%]\n\n3 passed in 0.01s\n[exit code: 0]"


def _app(config_dir: Path, **options: Any) -> Any:
    return make_app(request_for(FIXTURE_PROJECT, config_dir, **options))


def _workbench(pilot: Pilot[None]) -> Any:
    app = pilot.app
    assert isinstance(app, SteinerApp)
    return app.workbench


@screen_sized
def test_help_over_the_workbench(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    async def open_help(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=open_help)


@screen_sized
def test_help_over_the_inspector(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    async def open_help(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=open_help)


@sized
def test_completion_dropdown(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    async def type_slash(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("/", "m", "o", "tab")
        await pilot.pause()

    app = _app(
        config_dir, config={"models": {"anthropic/claude-sonnet-4": {}, "offline/offline": {}}}
    )
    assert snap_compare(app, terminal_size=size, run_before=type_slash)


@sized
def test_opened_tool_blocks(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    async def tools(pilot: Pilot[None]) -> None:
        await pilot.pause()
        pane = _workbench(pilot).conversation
        await pane.load(
            [
                UserEntry("run the tests and fix main"),
                ToolEntry("c1", "read", "read src/app.py", "done", json.dumps(READ), READ),
                ToolEntry("c2", "edit", "edit src/app.py", "done", "Edited src/app.py.", EDIT),
                ToolEntry("c3", "bash", "bash pytest -q", "done", BASH, {"command": "pytest"}),
            ]
        )
        await pilot.pause()
        for block in pane.query(ToolBlock):
            block.action_toggle_output()
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=tools)


@sized
def test_a_permission_prompt_shows_the_change(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    """An edit waiting for permission: its diff (line numbers, removed and added lines in the
    error and success colours, the first twelve lines, then how many more) above the keys."""
    before = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(1, 15))
    after = before.replace("x + 7\n", "x * 7\n").replace("def step_8(x):", "def step_eight(x):")
    request = PermissionRequest(
        "edit", "edit src/steps.py: replace 1 occurrence", EDIT, change_preview(before, after)
    )

    async def asking(pilot: Pilot[None]) -> None:
        await pilot.pause()
        pane = _workbench(pilot).conversation
        await pane.load(
            [
                UserEntry("make step 7 multiply"),
                ToolEntry("c1", "edit", "edit src/steps.py", "running", "", EDIT),
                PermissionEntry(request, lambda decision: None),
            ]
        )
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=asking)


@sized
def test_error_entry(snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]) -> None:
    async def error(pilot: Pilot[None]) -> None:
        await pilot.pause()
        pane = _workbench(pilot).conversation
        remedies = (
            Remedy("wait", "wait about 20s, then retry"),
            Remedy("switch_model", "switch to another model (/model)"),
        )
        await pane.load(
            [
                UserEntry("summarize the [draft] notes"),
                ErrorEntry(
                    "rate_limited",
                    "anthropic/claude-sonnet-4: 429 rate limited [retries used up]",
                    remedies,
                    "F5",
                ),
            ]
        )
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=error)


@sized
def test_command_notices(
    snap_compare: SnapCompare, config_dir: Path, size: tuple[int, int]
) -> None:
    """A command's answer on one line is centred; an error that wraps reads from the left."""

    async def commands(pilot: Pilot[None]) -> None:
        await finish(pilot)
        for command in ("/whatif abc", "/model gpt-5"):
            await send(pilot, command)
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=size, run_before=commands)


def test_a_pending_skill_in_the_sidebar(snap_compare: SnapCompare, config_dir: Path) -> None:
    """Space toggles the highlighted skill: its row and the sidebar's subtitle say it is
    pending (the sidebar is docked at 160 columns)."""

    async def toggle(pilot: Pilot[None]) -> None:
        await pilot.pause()
        _workbench(pilot).skills.focus()
        await pilot.press("space")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    assert snap_compare(_app(config_dir), terminal_size=(160, 48), run_before=toggle)


class _SessionsHost(App[None]):
    def on_mount(self) -> None:
        self.push_screen(SessionsScreen(SessionStore(Path("/nonexistent/sessions")), "a1b2c3"))


def _session(session_id: str, title: str, size: int, problem: str = "") -> SessionInfo:
    at = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    meta = SessionMeta(
        session_id=session_id,
        project_root="/home/me/projects/steiner-tui",
        created=at,
        last_activity=at,
        alias="anthropic",
        model="claude-sonnet-4",
        generations=3,
        messages=12,
        size_bytes=size,
        title=title,
    )
    return SessionInfo(meta, Path("/nonexistent") / session_id, problem)


async def _listed_sessions(pilot: Pilot[None]) -> None:
    """The sessions screen listing three sessions: one with markup in its title, one whose
    folder holds no log."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, SessionsScreen)
    screen.show_rows(
        [
            _session("a1b2c3", "fix the [/] markup crash in sessions list", 1_342_177),
            _session("d4e5f6", "read docs_big.md and summarize rounding", 52_118),
            _session("g7h8i9", "", 0, problem="no session log"),
        ]
    )
    await pilot.pause()


@screen_sized
def test_sessions_screen(snap_compare: SnapCompare, size: tuple[int, int]) -> None:
    assert snap_compare(_SessionsHost(), terminal_size=size, run_before=_listed_sessions)


def test_sessions_screen_filtered(snap_compare: SnapCompare) -> None:
    async def filtered(pilot: Pilot[None]) -> None:
        await _listed_sessions(pilot)
        await pilot.press("slash", *"markup [/]")
        await pilot.pause()

    assert snap_compare(_SessionsHost(), terminal_size=(80, 24), run_before=filtered)
