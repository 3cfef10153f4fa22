"""The prompt: history, newline keys, slash commands and their errors, help, keymap."""

from __future__ import annotations

import pytest
from textual import events

from steiner_tui.app.screens.help import HelpScreen, key_column, text_width
from steiner_tui.app.transcript import NoticeEntry
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import finish, said, send


async def test_up_and_down_walk_the_history(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        prompt = app.workbench.prompt
        await send(pilot, "first question")
        await finish(pilot)
        await send(pilot, "second question")
        await finish(pilot)
        prompt.focus()
        prompt.load_text("draft")
        await pilot.press("up")
        assert prompt.text == "second question"
        await pilot.press("up")
        assert prompt.text == "first question"
        await pilot.press("up")
        assert prompt.text == "first question"
        await pilot.press("down")
        assert prompt.text == "second question"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_newline_keys_insert_and_enter_sends(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        prompt = app.workbench.prompt
        prompt.focus()
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert prompt.text == "a\nb\nc"
        await pilot.press("up")
        assert prompt.cursor_location[0] == 1
        await pilot.press("enter")
        await finish(pilot)
        assert prompt.text == ""
        first = app.session.driver.runner.conversation[0]
        assert first.role == "user" and first.content == "a\nb\nc"


async def test_enter_after_a_backslash_is_a_line_break(app_for: AppFactory) -> None:
    """Claude Code's way to a new line where the terminal reports no Shift+Enter."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.focus()
        await pilot.press("a", "backslash", "enter", "b")
        assert prompt.text == "a\nb"
        await pilot.press("backslash", "left", "enter")  # not right after it: sent
        await finish(pilot)
        first = app.session.driver.runner.conversation[0]
        assert first.role == "user" and first.content == "a\nb\\"


async def test_unknown_slash_command_is_an_error_and_keeps_the_text(
    app_for: AppFactory,
) -> None:
    messages: list[object] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        await send(pilot, "/nope now")
        assert any("unknown command /nope" in t for t in said(app))  # stays, not a toast
        assert app.workbench.prompt.text == "/nope now"
        assert app.session.driver.runner.conversation == ()
        # Selected: the next command typed replaces it (it was appended: "/nope now/pins").
        assert app.workbench.prompt.selected_text == "/nope now"
        await pilot.press(*"/pi")
        assert app.workbench.prompt.text == "/pi"
        await send(pilot, "/nope")
        await pilot.press("end", "s")  # or it is mended where it is
        assert app.workbench.prompt.text == "/nopes"


async def test_double_slash_sends_a_message(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        await send(pilot, "//etc/hosts is what?")
        await finish(pilot)
        assert app.session.driver.runner.conversation[0].content == "/etc/hosts is what?"


async def test_model_command_shows_the_offline_model(app_for: AppFactory) -> None:
    messages: list[object] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        await send(pilot, "/model")
        await pilot.pause()
        text = "\n".join(said(app))
        assert "offline · not a language model" in text
        assert "32,768" in text


async def test_skills_and_context_commands_move_focus(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "/skills")
        assert app.focused is screen.skills
        await send(pilot, "/context")
        await pilot.pause()
        assert app.focused is screen.budget and screen.has_class("-context")
        assert screen.budget.size.width > 46  # wider than beside the conversation
        await send(pilot, "/context")
        assert app.focused is screen.prompt and not screen.has_class("-context")


async def test_a_narrow_terminal_shows_the_context_on_demand(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert screen.has_class("-narrow") and not screen.budget.region  # not laid out
        assert screen.conversation.size.width >= 40
        await send(pilot, "/context")
        await pilot.pause()
        assert screen.budget.region.width >= 44 and app.focused is screen.budget
        assert not screen.skills.display  # the context takes the sidebar's place


async def test_help_lists_keys_with_the_keymap_and_commands(app_for: AppFactory) -> None:
    app = app_for(config={"keymap": {"main.toggle_mode": "f5"}})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        await pilot.press("f5")
        assert app.workbench.status.mode == "plan"
        await pilot.press("shift+tab")
        assert app.workbench.status.mode == "plan"
        await send(pilot, "/help")
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        keys = {row.description: row.keys for row in screen.rows}
        assert keys["Switch plan/build mode; the notice goes out with your next message"] == "F5"
        assert any(row.keys == "/compact [focus]" for row in screen.rows)
        await pilot.press("escape")
        assert app.screen is app.workbench
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_model_command_lists_configured_models(app_for: AppFactory) -> None:
    messages: list[object] = []
    app = app_for(config={"models": {"anthropic/claude-sonnet-4": {}, "offline/offline": {}}})
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        await send(pilot, "/model")
        await pilot.pause()
        assert any(
            "/model can switch to: offline/offline, anthropic/claude-sonnet-4" in t
            for t in said(app)
        )


async def test_help_is_per_screen_and_lists_every_key(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        keys = {(row.section, row.keys) for row in help_screen.rows}
        assert ("Tool block (Tab or a click focuses it)", "Enter") in keys
        assert ("Permission request (F8 turns to it)", "a") in keys
        assert ("Workbench", "F8") in keys and ("Skills sidebar", "1-9") in keys
        sections = [row.section for row in help_screen.rows]
        assert sections == sorted(sections, key=sections.index)  # each section once
        await pilot.press("escape", "f2")
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert help_screen.screen_name == "Request inspector"
        keys = {(row.section, row.keys) for row in help_screen.rows}
        assert ("Request inspector", "m") in keys
        assert not any(row.section in ("Workbench", "Commands") for row in help_screen.rows)
        await pilot.press("escape", "escape", "ctrl+l")
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        assert ("Lineage browser", "h") in {(r.section, r.keys) for r in help_screen.rows}


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (100, 30), (120, 36)])
async def test_the_help_fits_the_terminal(app_for: AppFactory, size: tuple[int, int]) -> None:
    """The help dialog is never taller than the terminal: its bottom border and "Esc closes"
    show, and End scrolls its last command into view."""
    app = app_for()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        body = app.screen.query_one("#help-body")
        assert body.region.y >= 0 and body.region.bottom <= size[1]
        descriptions = [w for w in body.query("Static") if not w.classes]
        assert min(w.size.width for w in descriptions) >= 26  # room to read each
        await pilot.press("end")
        await pilot.pause()
        last = list(body.query(".help-keys"))[-1]
        assert body.region.contains_region(last.region)


def test_the_help_s_key_column_leaves_the_descriptions_room() -> None:
    """From 100 columns the keys' column is as wide as the widest keys; narrower, two fifths of
    the text at most (a long command wraps in its column)."""
    assert key_column(34, text_width(120)) == 36
    assert key_column(34, text_width(100)) == 36
    assert key_column(34, text_width(80)) == 28
    assert key_column(34, text_width(60)) == 20
    assert key_column(10, text_width(60)) == 12


async def test_page_keys_scroll_the_conversation_from_the_prompt(app_for: AppFactory) -> None:
    """PgUp, PgDn (and Home, End in an empty prompt) scroll the conversation while the prompt
    keeps the focus; with text in the prompt Home and End move its cursor."""
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await finish(pilot)
        pane = app.workbench.conversation
        await pane.load([NoticeEntry(f"line {n}") for n in range(60)])
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.focus()
        bottom = pane.scroll_y
        await pilot.press("pageup")
        await pilot.pause()
        assert pane.scroll_target_y < bottom and app.focused is prompt
        await pilot.press("end")
        await pilot.pause()
        assert pane.scroll_target_y == pane.max_scroll_y
        prompt.load_text("abc")
        await pilot.press("home")
        assert prompt.cursor_location == (0, 0) and pane.scroll_target_y == pane.max_scroll_y


async def test_shift_tab_on_an_entry_moves_the_focus_back(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await finish(pilot)
        screen = app.workbench
        mode = screen.status.mode
        entries = [w for w in screen.conversation.children if w.can_focus]
        entries[-1].focus()
        await pilot.pause()
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is not entries[-1] and screen.status.mode == mode


async def test_editing_keys_act_in_the_order_they_were_typed(app_for: AppFactory) -> None:
    """Backspace, the arrows, F7 (select all): the editor's own keys act in the order the
    terminal sent them. They ran once the key had bubbled up to the app, after the characters
    typed behind them: F7, Backspace, "rep 4", Enter sent "rep " (the 4 deleted)."""
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.focus()
        prompt.load_text("old text")
        await pilot.pause()
        keys = ["f7", "backspace", "a", "b", "c", "backspace", "x", "left", "y", "end", "z"]
        for key in keys:  # as the terminal sends them: no wait between two keys
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause()
        assert prompt.text == "abyxz"
