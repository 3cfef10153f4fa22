"""SVG snapshots of the steering views at 80x24 and 160x48: ``ask`` mode's question in the
conversation, and the context panel's ranking (what costs the most) and what-if view.

The session is ``test_steering``'s: the offline model on a copy of the sample project with a
``big.md`` to read and the soft trigger at 4,000 tokens. Update with
``uv run pytest tests/app/test_steer_snapshots.py --snapshot-update`` after a deliberate change.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from steiner_tui.app.app import SteinerApp
from steiner_tui.app.widgets.whatif_view import WhatIfView
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, send
from tests.app.test_steering import BEFORE, _app, _question, _turns

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_ask_question_in_the_conversation(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    async def ask(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, BEFORE)
        await send(pilot, "read big.md")
        await _question(pilot)
        await pilot.pause()

    app = _app(app_for, project, "ask")
    assert snap_compare(app, terminal_size=size, run_before=ask)


@pytest.mark.parametrize("size", SIZES)
def test_ranking_and_what_if_in_the_context_panel(
    snap_compare: SnapCompare, app_for: AppFactory, project: Path, size: tuple[int, int]
) -> None:
    async def panel(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await finish(pilot)
        await _turns(pilot, ("read big.md", *BEFORE))
        app = pilot.app
        assert isinstance(app, SteinerApp)
        if not app.screen.query_one("#budget").region.width:  # a narrow layout: on /context
            await send(pilot, "/context")
            await finish(pilot)
        view = app.screen.query_one(WhatIfView)
        view.focus()
        await pilot.press("minus", "minus")
        await finish(pilot)
        view.scroll_visible(animate=False)
        await pilot.pause()

    app = _app(app_for, project, "auto")
    assert snap_compare(app, terminal_size=size, run_before=panel)
