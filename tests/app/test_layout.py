"""The main screen's layout at any width: panels docked, hidden, or over the conversation.

The conversation is never narrower than ``MIN_CONVERSATION`` columns while a panel is docked
beside it; F9 and F10 show or hide the skills sidebar and the context panel at any width.
"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from steiner_tui.app.screens.main import MainScreen
from steiner_tui.app.screens.panel_layout import MIN_CONVERSATION
from steiner_tui.app.widgets.whatif_view import WhatIfView
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, mid_reply, send, static_text

SIZES = [(80, 24), (100, 30), (120, 36), (160, 48), (220, 60)]


def _docked(screen: MainScreen) -> tuple[bool, bool]:
    """Whether the skills sidebar and the context panel take columns from the conversation."""
    skills = screen.skills
    slot = screen.query_one("#budget-slot")
    return (
        bool(skills.display) and skills.styles.layer != "overlay",
        bool(slot.display) and slot.styles.layer != "overlay",
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_conversation_stays_readable_at_every_size(
    app_for: AppFactory, size: tuple[int, int]
) -> None:
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.workbench
        width = screen.conversation.outer_size.width
        assert width >= min(MIN_CONVERSATION, size[0])
        skills, context = _docked(screen)
        assert skills == (size[0] >= 140)
        assert context == (size[0] >= 110)
        if not (skills or context):
            assert width == size[0]  # nothing beside it: the whole width


async def test_f9_and_f10_show_and_hide_the_panels_at_any_width(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert not screen.skills.display and not screen.budget.region
        await pilot.press("f10")
        await pilot.pause()
        # Over the conversation, which keeps its width; the panel has the focus.
        assert screen.budget.region.width >= 44 and app.focused is screen.budget
        assert screen.query_one("#budget-slot").styles.layer == "overlay"
        assert screen.conversation.outer_size.width == 80
        await pilot.press("f10")
        await pilot.pause()
        assert not screen.budget.region and app.focused is screen.prompt
        await pilot.press("f9")
        await pilot.pause()
        assert screen.skills.region.width == 28 and app.focused is screen.skills
        await pilot.press("f9")
        await pilot.pause()
        assert not screen.skills.display


async def test_esc_closes_the_panel_shown_over_the_conversation(app_for: AppFactory) -> None:
    """F9 at 120 columns floated the sidebar over the conversation, and Esc left it there:
    the conversation stayed covered until F9 again. Esc closes it (and ``/context``'s
    enlarged panel goes back to its docked size); a docked panel stays."""
    app = app_for()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press("f9")
        await pilot.pause()
        assert screen.skills.display and app.focused is screen.skills
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.skills.display and app.focused is screen.prompt
        await send(pilot, "/context")
        await pilot.pause()
        assert screen.has_class("-context")
        await pilot.press("escape")
        await pilot.pause()
        assert not screen.has_class("-context") and screen.budget.region  # docked, as before
        await pilot.press("escape")  # nothing over the conversation: nothing changes
        await pilot.pause()
        assert screen.budget.region and screen.prompt.text == ""


async def test_a_hidden_panel_stays_hidden_across_a_resize(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.workbench
        conversation = screen.conversation.outer_size.width
        await pilot.press("f9")  # hide the skills sidebar
        await pilot.pause()
        assert not screen.skills.display
        assert screen.conversation.outer_size.width == conversation + 28
        await pilot.resize_terminal(220, 60)
        await pilot.pause()
        assert not screen.skills.display
        await pilot.press("f9")  # shown again: the width shows it, nothing to remember
        await pilot.pause()
        assert screen.skills.display
        assert not screen.has_class("-skills-shown", "-skills-hidden")


async def test_resizing_moves_between_the_layouts(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(220, 60)) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert _docked(screen) == (True, True)
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert _docked(screen) == (False, True)
        assert screen.conversation.outer_size.width >= MIN_CONVERSATION
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert _docked(screen) == (False, False)
        assert screen.conversation.outer_size.width == 80


async def test_narrowing_from_two_docked_panels_keeps_the_app_running(
    app_for: AppFactory,
) -> None:
    """150 to 60 columns: one frame still docked both panels (74 columns), the prompt had no
    width, and Textual's TextArea raised wrapping its placeholder: the app quit with a
    traceback."""
    app = app_for()
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        for size in ((60, 20), (100, 30), (150, 45), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        screen = app.workbench
        assert _docked(screen) == (False, False)
        assert screen.prompt.outer_size.width == 80


async def test_context_enlarges_the_panel_over_the_conversation(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "/context")
        await pilot.pause()
        assert screen.budget.region.width > 46 and app.focused is screen.budget
        assert screen.conversation.outer_size.width == 100


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_f10_closes_the_enlarged_context_panel(
    app_for: AppFactory, size: tuple[int, int]
) -> None:
    """The enlarged panel's border says F10: it hides the panel (it stayed over the
    conversation, whatever F10 did, until /context was typed again)."""
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "/context")
        await pilot.pause()
        assert screen.budget.region.width > 46
        await pilot.press("f10")
        await pilot.pause()
        assert not screen.budget.region and app.focused is screen.prompt
        await pilot.press("f10")  # back as F10 shows it: the normal panel, not enlarged
        await pilot.pause()
        assert screen.budget.region.width == 46 and app.focused is screen.budget


async def test_f9_over_the_enlarged_context_panel_shows_the_sidebar_whole(
    app_for: AppFactory,
) -> None:
    """At 80 columns ``/context`` (70 wide) covered the sidebar F9 then showed, focused: its
    skills were cut to "1 code-r" and Space toggled one the person could not read."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "/context")
        await pilot.pause()
        await pilot.press("f9")
        await pilot.pause()
        skills, slot = screen.skills, screen.query_one("#budget-slot")
        assert skills.region.width == 28 and app.focused is skills
        assert not (slot.display and slot.region.overlaps(skills.region)), slot.region


async def test_the_welcome_names_the_panels_by_their_keys_not_their_place(
    app_for: AppFactory,
) -> None:
    """At 80 columns neither panel shows, so "on the right" and "on the left" named nothing
    on screen; the keys that show them hold at every width."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        welcome = static_text(app.workbench.query_one("#welcome", Static))
        assert "on the right" not in welcome and "on the left" not in welcome
        assert "context panel (F10" in welcome and "skills (F9" in welcome


async def test_whatif_shows_the_panel_it_focuses_at_80_columns(app_for: AppFactory) -> None:
    """At 80 columns the context panel is hidden: ``/whatif N`` focused the what-if view in
    it all the same, so nothing showed and the letters typed next (``t``, ``w``, ``+``, ``-``)
    went to a view nobody could see."""
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert not screen.budget.region
        await send(pilot, "/whatif 3000")
        await pilot.pause()
        view = screen.query_one(WhatIfView)
        assert app.focused is view
        assert view.region and screen.budget.region  # on screen, over the conversation
        assert screen.budget.region.intersection(view.region)  # scrolled into the panel's view
        assert view.threshold == 3000


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_panels_shown_over_the_conversation_never_cover_the_prompt(
    app_for: AppFactory, size: tuple[int, int]
) -> None:
    """Both panels shown where they float (F9, F10): the prompt stays whole and visible, even
    holding more lines than fit beside them (it scrolls instead of growing under them)."""
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.workbench
        for panel in ("skills", "context"):
            if not screen.panels.shown(panel):
                screen.action_toggle_panel(panel)
        screen.prompt.load_text("\n".join(f"line {n}" for n in range(12)))
        await pilot.pause()
        prompt = screen.prompt.region
        for panel in (screen.skills, screen.query_one("#budget-slot")):
            assert panel.display and panel.region.height > 0
            assert not panel.region.overlaps(prompt), (panel, panel.region, prompt)


async def test_the_context_panel_grows_with_a_wide_terminal(app_for: AppFactory) -> None:
    """Docked at 140 columns it is 46 wide; at 200, wider (its labels need not wrap)."""
    widths = []
    for width in (140, 200):
        app = app_for()
        async with app.run_test(size=(width, 50)) as pilot:
            await pilot.pause()
            widths.append(app.workbench.query_one("#budget-slot").region.width)
    assert widths[0] == 46 and widths[1] > 46


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_toasts_never_cover_the_prompt_or_the_status_line(
    app_for: AppFactory, size: tuple[int, int]
) -> None:
    """A toast ("Busy: your text stays in the prompt") hid the very text it spoke of at 80x24:
    toasts show at the top, clear of the prompt, the status line and the footer."""
    app = app_for()
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.pause()
        screen = app.workbench
        for severity in ("information", "warning", "error"):
            app.notify("A reply is still generating: wait, or press Esc. " * 2, title="Busy",
                       severity=severity)  # fmt: skip
        await pilot.pause()
        toasts = list(app.screen.query("Toast"))
        assert len(toasts) == 3
        kept_clear = (screen.prompt, screen.status, screen.query_one("Footer"))
        for toast in toasts:
            for widget in kept_clear:
                assert not toast.region.overlaps(widget.region), (toast.region, widget)


async def test_esc_while_a_reply_streams_stops_it_and_leaves_the_panel(
    app_for: AppFactory,
) -> None:
    async with mid_reply(app_for) as (app, pilot, _):
        screen = app.workbench
        await pilot.resize_terminal(120, 36)
        await pilot.press("f9")
        await pilot.pause()
        assert screen.skills.display
        await pilot.press("escape")
        await finish(pilot)
        [request] = app.session.snapshots.summaries()
        assert request.cancelled and screen.skills.display
