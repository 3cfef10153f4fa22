"""The footer rebuilds its keys once per burst of binding changes, and shows the right ones."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from steiner_tui.app.widgets.footer import Footer
from tests.app.conftest import SIZE, AppFactory


def _keys(footer: Footer) -> list[str]:
    return [key.description for key in footer.query(FooterKey)]


async def test_moving_focus_rebuilds_the_footer_once(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        assert footer.rebuilds == 1  # start-up: focus and keymap changes, one rebuild
        assert "Send" in _keys(footer)  # the prompt has focus
        app.workbench.skills.focus()
        await pilot.pause()
        await pilot.pause()
        assert footer.rebuilds == 2  # Textual's Footer rebuilds twice for one focus move
        keys = _keys(footer)
        assert "Send" not in keys and "Toggle skill" in keys
