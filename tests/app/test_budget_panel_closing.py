"""The context panel when its figures arrive as it closes."""

from __future__ import annotations

from steiner_tui.app.widgets.budget_panel import BudgetPanel
from tests.app.conftest import AppFactory
from tests.app.helpers import finish


async def test_figures_arriving_while_the_panel_closes_are_dropped(app_for: AppFactory) -> None:
    """The dry run's figures can arrive as the app quits: the panel, being removed, mounts no
    parts any more, and showing the figures raised ``NoMatches`` (seen as a failure of a
    layout test that quits as soon as the first frame is up)."""
    app = app_for()
    async with app.run_test(size=(120, 36)) as pilot:
        await finish(pilot)
        screen = app.workbench
        view = screen.hold.controller.budget_view()
        panel = BudgetPanel(id="closing")
        await screen.mount(panel)
        removing = panel.remove()
        panel.show(view)
        await removing
        assert not panel.is_attached
        assert app.is_running  # the app carries on
