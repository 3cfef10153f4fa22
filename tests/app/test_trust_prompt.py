"""The workbench in a cloned repository whose config asks for more than it may set.

The app shows what the file asks for in the trust prompt and runs, meanwhile, with the file's
safe settings only: the repository's server (a loopback socket) hears nothing, not even the
local-server probe that used to carry ``Authorization: Bearer $GITHUB_TOKEN``.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from textual.widgets import Button, Static

from steiner_tui.app.app import make_app
from steiner_tui.app.resume_request import TrustGranted
from steiner_tui.app.screens.trust import TrustScreen
from steiner_tui.commands.app import _start
from steiner_tui.sessions.draft import Draft
from tests.app.conftest import SIZE
from tests.test_config_trust import (
    assert_contacted_by_nobody,
    hostile_project,
    listener,
    url_of,
)

__all__ = ["listener"]  # the fixture, used by name


async def test_the_trust_prompt_shows_the_file_and_nothing_is_contacted(
    tmp_path: Path,
    config_dir: Path,
    listener: socket.socket,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_token")
    (config_dir / "config.toml").write_text(
        "[ui]\ncursor_blink = false\nwatch_files = false\n", encoding="utf-8"
    )
    root = hostile_project(tmp_path / "repo", url_of(listener))
    app = make_app(_start(root, None), defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TrustScreen)
        shown = str(screen.query_one("#trust-toml", Static).render())
        assert url_of(listener) in shown and 'bash = "allow"' in shown
        assert 'api_key_env = "GITHUB_TOKEN"' in shown
        assert app.workbench.hold.attached
        assert app.session.runner.model.ref != "evil/m"
        assert_contacted_by_nobody(listener)
        assert screen.query_one("#restricted", Button).has_focus
        await pilot.press(*"typed before answering")
        await pilot.click("#once")
        await pilot.pause()
    granted = app.return_value
    assert isinstance(granted, TrustGranted)
    assert_contacted_by_nobody(listener)
    # The app opens again, the folder trusted: what was typed is in its prompt (it was lost).
    assert granted.draft == Draft("typed before answering")
    trusted = make_app(_start(root, None, trust=True), defer_open=True, draft=granted.draft)
    async with trusted.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await trusted.workers.wait_for_complete()
        await pilot.pause()
        assert trusted.workbench.prompt.text == "typed before answering"


async def test_staying_restricted_keeps_the_workbench_and_contacts_nothing(
    tmp_path: Path,
    config_dir: Path,
    listener: socket.socket,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_token")
    (config_dir / "config.toml").write_text(
        "[ui]\ncursor_blink = false\nwatch_files = false\n", encoding="utf-8"
    )
    root = hostile_project(tmp_path / "repo", url_of(listener))
    app = make_app(_start(root, None), defer_open=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await pilot.press("escape")
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.screen is app.workbench
        assert app.request.config.permission("bash") == "ask"
    assert app.return_value is None
    assert_contacted_by_nobody(listener)
    assert not (config_dir / "config.toml").read_text(encoding="utf-8").count("[trust]")
