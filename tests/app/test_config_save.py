"""Writing the project config from the workbench asks first, showing the change as a diff: the
what-if view's ``w``, ``/whatif N save`` and ``/compaction save`` write only once confirmed
(Enter or ``y``), never after Esc or ``n``, and a file that cannot be changed is reported
without the dialog.

The session is ``test_steering``'s (the offline model, the soft trigger at 4,000 tokens); the
project's ``.steiner/config.toml`` is the sample project's, or the one a test writes.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Static

from steiner_tui import config_write
from steiner_tui.app.app import SteinerApp
from steiner_tui.app.screens.config_save import ConfigSaveScreen
from steiner_tui.app.screens.help import HelpScreen
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.whatif_view import WhatIfView
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, notices, said, send, static_text
from tests.app.test_steering import THRESHOLD, config

COMMENTED = """# the team's settings [bold]keep[/bold]
[context]
files = ["NOTES.md"]  # read first, [red]always[/red]
"""
"""A project config with comments (one with markup-looking text) to keep as they are."""


def _path(project: Path) -> Path:
    return project / ".steiner" / "config.toml"


def _app(app_for: AppFactory, project: Path, text: str | None = None) -> SteinerApp:
    if text is not None:
        _path(project).write_text(text, encoding="utf-8")
    return app_for(config=config("auto"))


async def _press_w(pilot: Pilot[None], raised: int = 5) -> None:
    """Raise the what-if threshold ``raised`` steps (1,600 each) and press ``w``."""
    app = pilot.app
    await finish(pilot)
    view = app.screen.query_one(WhatIfView)
    view.focus()
    for _ in range(raised):
        await pilot.press("plus")
    await finish(pilot)
    await pilot.press("w")
    await pilot.pause()


def _diff(app: SteinerApp) -> str:
    """The diff shown, a line per row (a line's mark and text are two cells of the grid)."""
    screen = app.screen
    assert isinstance(screen, ConfigSaveScreen)
    lines: list[str] = []
    for cell in screen.query_one("#config-save-lines").query(Static):
        if cell.has_class("diff-text"):
            lines[-1] += static_text(cell)
        else:
            lines.append(static_text(cell))
    return "\n".join(lines)


def _notices(app: SteinerApp) -> list[str]:
    entries = app.workbench.conversation.entries
    return [entry.text for entry in entries if isinstance(entry, NoticeEntry)]


def _threshold(app: SteinerApp) -> int:
    return app.workbench.hold.driver.runner.model.budget.soft_threshold


async def test_w_shows_the_change_and_enter_writes_it_keeping_the_file(
    app_for: AppFactory, project: Path
) -> None:
    app = _app(app_for, project, COMMENTED)
    async with app.run_test(size=(120, 36)) as pilot:
        await _press_w(pilot)
        screen = app.screen
        assert isinstance(screen, ConfigSaveScreen)
        where = screen.query_one("#config-save-path")
        assert static_text(where) == "file .steiner/config.toml in sample_project"
        assert where.tooltip == Content(str(_path(project)))
        assert _diff(app).splitlines() == [
            "@@ -1,3 +1,6 @@",
            " # the team's settings [bold]keep[/bold]",
            " [context]",
            ' files = ["NOTES.md"]  # read first, [red]always[/red]',
            "+",
            '+[models."offline/offline"]',
            "+compaction_threshold_tokens = 12000",
        ]
        assert _path(project).read_text(encoding="utf-8") == COMMENTED  # not yet
        assert _threshold(app) == THRESHOLD  # used once written
        await pilot.press("enter")
        await finish(pilot)
        assert not isinstance(app.screen, ConfigSaveScreen)
        written = _path(project).read_text(encoding="utf-8")
        assert written.startswith(COMMENTED)  # the comments and the order kept
        saved = tomllib.loads(written)["models"]["offline/offline"]
        assert saved["compaction_threshold_tokens"] == 12000
        assert _threshold(app) == 12000
        assert _notices(app)[-1] == (
            f"soft trigger 12,000 from now on; written to {_path(project)} as "
            "compaction_threshold_tokens"
        )


@pytest.mark.parametrize("key", ["escape", "n", "cancel button"])
async def test_esc_n_or_cancel_write_nothing(app_for: AppFactory, project: Path, key: str) -> None:
    before = _path(project).read_text(encoding="utf-8")
    app = _app(app_for, project)
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await _press_w(pilot)
        assert isinstance(app.screen, ConfigSaveScreen)
        if key == "cancel button":
            await pilot.click("#cancel")
        else:
            await pilot.press(key)
        await finish(pilot)
        assert not isinstance(app.screen, ConfigSaveScreen)
        assert _path(project).read_text(encoding="utf-8") == before
        assert _threshold(app) == THRESHOLD
        assert f"not saved: nothing was written to {_path(project)}" in notices(messages)


async def test_whatif_save_from_the_prompt_asks_too(app_for: AppFactory, project: Path) -> None:
    app = _app(app_for, project)
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await send(pilot, "/whatif 6000 save")
        assert "+compaction_threshold_tokens = 6000" in _diff(app)
        await pilot.press("y")
        await finish(pilot)
        saved = tomllib.loads(_path(project).read_text(encoding="utf-8"))
        assert saved["models"]["offline/offline"]["compaction_threshold_tokens"] == 6000
        assert _threshold(app) == 6000


async def test_compaction_save_confirms_then_writes(app_for: AppFactory, project: Path) -> None:
    app = _app(app_for, project)
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        await send(pilot, "/compaction ask save")
        assert _diff(app).splitlines()[-2:] == ["+[compaction]", '+mode = "ask"']
        assert app.workbench.hold.driver.runner.compaction_mode == "ask"  # live at once
        assert "mode" not in _path(project).read_text(encoding="utf-8")
        await pilot.press("enter")
        await finish(pilot)
        assert tomllib.loads(_path(project).read_text(encoding="utf-8"))["compaction"] == {
            "mode": "ask"
        }
        assert _notices(app)[-1] == f"compaction mode: ask (saved to {_path(project)})"
        assert app.workbench.status.compaction == "ask"


async def test_compaction_save_cancelled_keeps_the_mode_for_the_session_only(
    app_for: AppFactory, project: Path
) -> None:
    before = _path(project).read_text(encoding="utf-8")
    app = _app(app_for, project)
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await finish(pilot)
        await send(pilot, "/compaction off save")
        await pilot.press("n")
        await finish(pilot)
        assert _path(project).read_text(encoding="utf-8") == before
        assert app.workbench.hold.driver.runner.compaction_mode == "off"
        assert _notices(app)[-1] == "compaction mode: off"
        assert f"not saved: nothing was written to {_path(project)}" in notices(messages)


async def test_a_file_that_is_not_toml_is_reported_without_the_dialog(
    app_for: AppFactory, project: Path
) -> None:
    """The file was broken after the session opened (an edit in progress, say)."""
    broken = "[context\nfiles = \n"
    app = _app(app_for, project)
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await finish(pilot)
        _path(project).write_text(broken, encoding="utf-8")
        await _press_w(pilot)
        assert not isinstance(app.screen, ConfigSaveScreen)
        await send(pilot, "/compaction ask save")
        await finish(pilot)
        assert not isinstance(app.screen, ConfigSaveScreen)
        toasts = notices(messages)
        assert toasts[0].startswith(f"not saved: {_path(project)}: not valid TOML")
        # The command's error stays in the conversation.
        assert any(t.startswith(f"/compaction {_path(project)}: not valid TOML") for t in said(app))
        assert _path(project).read_text(encoding="utf-8") == broken
        assert _threshold(app) == THRESHOLD
        assert app.workbench.hold.driver.runner.compaction_mode == "ask"


async def test_a_write_that_fails_is_reported_and_loses_nothing(
    app_for: AppFactory, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(**_: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(_path(project).parent))

    app = _app(app_for, project, COMMENTED)
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await _press_w(pilot)
        monkeypatch.setattr(config_write, "tempfile", SimpleNamespace(mkstemp=refuse))
        await pilot.press("enter")
        await finish(pilot)
        assert not isinstance(app.screen, ConfigSaveScreen)
        assert _path(project).read_text(encoding="utf-8") == COMMENTED
        assert sorted(p.name for p in _path(project).parent.iterdir()) == ["config.toml", "skills"]
        assert _threshold(app) == THRESHOLD
        assert f"not saved: [Errno 13] Permission denied: '{_path(project).parent}'" in notices(
            messages
        )


async def test_the_dialog_lists_its_keys_in_the_help(app_for: AppFactory, project: Path) -> None:
    app = _app(app_for, project)
    async with app.run_test(size=(120, 36)) as pilot:
        await _press_w(pilot)
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        rows = {(row.section, row.keys, row.description) for row in help_screen.rows}
        section = "Write to the project config"
        assert (section, "Enter y", "Write the change shown into the project config") in rows
        assert (section, "Esc n", "Close without writing anything") in rows


async def test_a_theme_picked_is_kept_for_the_next_run(
    app_for: AppFactory, config_dir: Path
) -> None:
    """The palette's Theme lasted one run: the next launch was back on the default. The pick
    is written to the user config as ``[ui] theme``, the file's other lines kept."""
    user_file = config_dir / "config.toml"
    user_file.write_text('# mine\ndefault_model = "offline"  # keep\n', encoding="utf-8")
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await finish(pilot)
        app.action_change_theme()
        await pilot.pause()
        await pilot.press(*"nord")
        await pilot.pause(0.3)  # the palette searches in a worker
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.theme == "nord"
    text = user_file.read_text(encoding="utf-8")
    assert text.startswith('# mine\ndefault_model = "offline"  # keep\n')
    assert tomllib.loads(text)["ui"] == {"theme": "nord"}
    assert f"theme nord kept for the next run ([ui] theme in {user_file})" in notices(messages)


async def test_a_theme_that_cannot_be_kept_says_why(app_for: AppFactory, config_dir: Path) -> None:
    (config_dir / "config.toml").write_text("ui = 3\n", encoding="utf-8")
    app = app_for()
    messages: list[object] = []
    async with app.run_test(size=(120, 36), message_hook=messages.append) as pilot:
        await finish(pilot)
        app.theme = "gruvbox"
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.theme == "gruvbox"  # for this run all the same
    assert notices(messages) == ["theme gruvbox not kept for the next run: 'ui' is not a table"]
