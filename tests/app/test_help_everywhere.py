"""F1 opens the help from whatever has the focus on the workbench, listing that widget's keys."""

from __future__ import annotations

from steiner_tui.app.screens.help import HelpScreen
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, send


async def test_f1_works_on_every_focused_widget(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await finish(pilot)
        await send(pilot, "what is in this project?")
        await finish(pilot)
        screen = app.workbench
        focusable = [w for w in screen.focus_chain]
        assert len(focusable) >= 4
        for widget in focusable:
            widget.focus()
            await pilot.pause()
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), widget
            app.screen.dismiss()
            await pilot.pause()
