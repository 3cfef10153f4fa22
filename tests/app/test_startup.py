"""Start-up: a planned session opens after the first frame; GC settings arrive after it too.

A launch hands the app a ``SessionPlan``: the workbench draws from it, opens the session right
after its first frame, and only then lists skills, fills the context panel and enables its keys.
The garbage-collector settings are applied after the first frame, and only when asked for.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from textual.widgets import Static

from steiner_tui.app.app import make_app
from steiner_tui.app.gc_tuning import UI_GC_THRESHOLDS
from steiner_tui.app.session import OFFLINE_LABEL, AppSession
from steiner_tui.app.session_plan import SessionOpenFailed, SessionPlan, plan_session
from steiner_tui.config import Config, ConfigError
from tests.app.conftest import SIZE, session_for
from tests.app.helpers import static_text


@pytest.fixture
def gc_defaults() -> Iterator[tuple[int, ...]]:
    """CPython's collector state before the test, restored after it."""
    before = gc.get_threshold()
    yield before
    gc.unfreeze()
    gc.set_threshold(*before)
    gc.enable()


async def test_cli_app_tunes_gc_after_its_first_frame(
    project: Path, config_dir: Path, gc_defaults: tuple[int, ...]
) -> None:
    gc.disable()  # as the app command does for its start-up
    app = make_app(session_for(project, config_dir), tune_gc=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == UI_GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
        assert gc.isenabled()


async def test_test_apps_keep_cpython_defaults(
    project: Path, config_dir: Path, gc_defaults: tuple[int, ...]
) -> None:
    app = make_app(session_for(project, config_dir))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert gc.get_threshold() == gc_defaults


def _plan(
    project: Path, open_session: Callable[[], AppSession], label: str = "planned · label"
) -> SessionPlan:
    return SessionPlan(
        project_root=project, model_label=label, open=open_session, cursor_blink=False
    )


async def test_a_planned_session_opens_after_the_first_frame(
    project: Path, config_dir: Path
) -> None:
    seen: dict[str, object] = {}

    def open_session() -> AppSession:
        screen = app.workbench
        seen.update(
            attached=screen.attached,
            laid_out=screen.status.size.width > 0,
            project=screen.status.project,
            model=screen.status.model,
            skills=str(screen.skills.border_title),
            mode_key=screen.check_action("toggle_mode", ()),
            lineage_key=app.check_action("lineage", ()),
            palette_key=app.check_action("command_palette", ()),
        )
        return session_for(project, config_dir)

    app = make_app(_plan(project, open_session))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert seen == {
            "attached": False,
            "laid_out": True,
            "project": project.name,
            "model": "planned · label",
            "skills": "Skills",  # no rows yet
            "mode_key": None,  # shown dimmed, does nothing
            "lineage_key": None,
            "palette_key": None,
        }
        screen = app.workbench
        assert screen.attached and app.session is screen.session
        assert screen.status.model == OFFLINE_LABEL
        rows = screen.controller.skill_rows()
        assert rows and all(screen.skills.prompt_of(row.name) is not None for row in rows)
        assert str(screen.skills.border_title).startswith("Skills · ")
        assert screen.prompt.has_focus
        assert screen.check_action("toggle_mode", ()) is True
        await pilot.press("shift+tab")
        assert screen.status.mode == "plan"


async def test_the_budget_panel_fills_once_the_planned_session_opens(
    project: Path, config_dir: Path
) -> None:
    app = make_app(_plan(project, lambda: session_for(project, config_dir)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        panel = app.workbench.budget
        assert "dry run" in str(panel.border_title)
        assert "preamble" in static_text(panel.query_one("#budget-rows", Static))


async def test_a_session_that_cannot_open_ends_the_app_with_its_error(project: Path) -> None:
    def open_session() -> AppSession:
        raise OSError("cannot create the session folder: read-only file system")

    app = make_app(_plan(project, open_session))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    assert app.return_value == SessionOpenFailed(
        "cannot create the session folder: read-only file system"
    )
    assert app.opened_session is None


def test_plan_session_names_the_model_and_checks_its_provider(project: Path) -> None:
    assert plan_session(project, Config(), {}, _unused).model_label == OFFLINE_LABEL
    config = Config().with_overrides({}, default_model="anthropic/claude-sonnet-4-6")
    key = {"ANTHROPIC_API_KEY": "sk-test"}
    assert plan_session(project, config, key, _unused).model_label == config.default_model
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        plan_session(project, config, {}, _unused)
    with pytest.raises(ConfigError, match="unknown provider 'nowhere'"):
        plan_session(project, Config().with_overrides({}, default_model="nowhere/x"), {}, _unused)


def _unused() -> AppSession:
    raise AssertionError("a plan is not opened by planning it")
