"""Other screens from the workbench: lineage (after /compact), inspector, palette commands."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from steiner_tui.app.commands import WorkbenchCommands
from steiner_tui.app.screens.inspector import InspectorScreen
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.transcript import CompactionRunEntry
from steiner_tui.app.widgets.inspector_requests import RequestTable
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, send


async def test_compact_then_lineage_shows_two_generations(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        for text in ("what is in this project?", "show me README.md", "and AGENTS.md?"):
            await send(pilot, text)
            await finish(pilot)
        await send(pilot, "/compact keep the file names")
        await finish(pilot)
        lineage = app.session.driver.lineage
        assert len(lineage.generations) == 2
        runs = [e for e in screen.conversation.entries if isinstance(e, CompactionRunEntry)]
        assert runs[-1].ended.startswith("compacted into generation 1")
        assert screen.hold.controller.budget_view().compactions == 1
        assert screen.status.generation == 1

        await pilot.press("ctrl+l")
        assert isinstance(app.screen, LineageScreen)
        assert len(app.screen.lineage.generations) == 2
        await pilot.press("escape")
        assert app.screen is screen


async def test_inspector_opens_on_the_dry_run_then_on_requests(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        await pilot.press("f2")
        assert isinstance(app.screen, InspectorScreen)
        # Nothing was sent: the dry run is said to be one, not listed as a request #1.
        assert app.screen.sub_title == "dry run · nothing sent since opening"
        summary = str(app.screen.query_one("#request-summary", Static).content)
        assert summary.startswith("Next request · dry run, not sent · ")
        assert "Request #" not in summary
        table = app.screen.query_one(RequestTable)
        assert [str(c) for c in table.get_row_at(0)][4] == "dry run"
        await pilot.press("escape")
        await send(pilot, "hello")
        await finish(pilot)
        app.workbench.budget.focus()
        await pilot.press("enter")
        assert isinstance(app.screen, InspectorScreen)
        assert "dry run" not in app.screen.sub_title
        summary = str(app.screen.query_one("#request-summary", Static).content)
        assert summary.startswith("Request #")


async def test_palette_provider_lists_workbench_commands(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        provider = WorkbenchCommands(app.workbench)
        titles = [str(hit.text) async for hit in provider.discover()]
        for title in ("Compact now", "Lineage", "Inspector", "Clear conversation"):
            assert title in titles
        # Textual lists Theme among its system commands: the palette listed it twice.
        system = [command.title for command in app.get_system_commands(app.workbench)]
        assert [*titles, *system].count("Theme") == 1
        assert "Toggle skill: release-notes" in titles
        hits = [hit async for hit in provider.search("release")]
        assert hits and str(hits[0].text) == "Toggle skill: release-notes"
        hits[0].command()
        rows = {row.name: row.state for row in app.workbench.hold.controller.skill_rows()}
        assert rows["release-notes"] == "pending_activation"


async def test_palette_has_model_sessions_and_context_entries(app_for: AppFactory) -> None:
    app = app_for(config={"models": {"anthropic/claude-sonnet-4": {}, "offline/offline": {}}})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        provider = WorkbenchCommands(app.workbench)
        titles = [str(hit.text) async for hit in provider.discover()]
        for title in ("Model", "Sessions", "Context", "Switch model: anthropic/claude-sonnet-4"):
            assert title in titles


async def test_screenshot_says_where_it_saved_or_why_not(
    app_for: AppFactory, tmp_path: Path
) -> None:
    from steiner_tui.app.screenshot import save_screenshot

    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        blocked = tmp_path / "file"
        blocked.write_text("not a folder", encoding="utf-8")
        result = save_screenshot(app, [blocked / "sub", tmp_path / "shots"])
        assert result.path is not None and result.path.parent == tmp_path / "shots"
        assert result.path.read_text(encoding="utf-8").startswith("<svg")
        assert str(result.path) in result.message
        failed = save_screenshot(app, [blocked / "sub"])
        assert failed.path is None and str(blocked / "sub") in failed.message
        assert "Not a directory" in failed.message or "exists" in failed.message
        commands = [c.title for c in app.get_system_commands(app.screen)]
        assert commands.count("Screenshot") == 1
