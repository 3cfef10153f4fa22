"""The footer (Textual's own) shows the keys of what has focus, dimmed until the session opens."""

from __future__ import annotations

from textual.widgets import Footer

from tests.app.conftest import SIZE, AppFactory


def _keys(footer: Footer) -> list[str]:
    """The footer's keys as drawn (``FooterKey`` is queried by name: its module is private)."""
    return [str(key.render()).strip() for key in footer.query("FooterKey")]


async def test_the_footer_follows_focus(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        keys = _keys(footer)
        assert any(key.endswith("Send") for key in keys)  # the prompt has focus
        assert any(key.endswith("Lineage") for key in keys)
        app.workbench.skills.focus()
        await pilot.pause()
        await pilot.pause()
        keys = _keys(footer)
        assert not any(key.endswith("Send") for key in keys)
        assert any(key.endswith("Toggle skill") for key in keys)


async def test_the_footer_redraws_only_when_its_keys_change(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.workbench.query_one(Footer)
        drawn = list(footer.query("FooterKey"))
        app.workbench.refresh_bindings()  # nothing changed: the same key widgets stay
        app.workbench.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query("FooterKey")) == drawn
        app.workbench.skills.focus()  # other keys: drawn anew, once
        await pilot.pause()
        await pilot.pause()
        assert all(key not in drawn for key in footer.query("FooterKey"))
        assert any(
            str(key.render()).strip().endswith("Toggle skill") for key in footer.query("FooterKey")
        )
