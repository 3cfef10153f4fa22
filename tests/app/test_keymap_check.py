"""The keymap conflict finder: which keys from ``[keymap]`` another binding takes, and where.

Pure tests over ``Binding`` data (a few made-up screens, and the real app's, workbench's and
prompt's classes), then the notice in the conversation.
"""

from __future__ import annotations

from textual.binding import Binding

from steiner_tui.app.app import SteinerApp
from steiner_tui.app.keymap_check import (
    BindingChain,
    BindingLayer,
    class_bindings,
    keymap_conflicts,
    split_keys,
)
from steiner_tui.app.screens.main import MainScreen
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.prompt import PromptEditor
from tests.app.conftest import SIZE, AppFactory

APP = BindingLayer(
    "the app",
    (
        Binding("ctrl+p", "command_palette", "Commands", id="app.palette", priority=True),
        Binding("f1", "help", "Help", id="app.help"),
    ),
)
MAIN = BindingLayer(
    "the main screen",
    (
        Binding("f5", "retry", "Retry", id="main.retry"),
        Binding("f10", "context", "Context", id="main.context"),
        Binding("ctrl+l", "lineage", "Lineage", id="main.lineage"),
        Binding("p", "pin", "Pin", id="main.pin"),
    ),
)
EDITOR = BindingLayer(
    "the editor",
    (Binding("f6", "select_line", "Select line"),),
    types=lambda key: len(key) == 1,
)
OTHER = BindingLayer("the other screen", (Binding("f2", "other", "Other", id="other.go"),))
DIALOG = BindingLayer("the dialog", (Binding("f3", "yes", "Yes", id="dialog.yes"),))
CHAINS = (
    BindingChain("the main screen", (MAIN, APP)),
    BindingChain("the main screen", (EDITOR, MAIN, APP), focus="the editor"),
    BindingChain("the other screen", (OTHER, APP)),
    BindingChain("the dialog", (DIALOG, APP), modal=True),
)


def said(keymap: dict[str, str]) -> list[str]:
    return [c.describe() for c in keymap_conflicts(keymap, CHAINS)]


def test_a_priority_key_of_the_app_wins_on_every_screen_it_reaches() -> None:
    (conflict,) = keymap_conflicts({"main.lineage": "ctrl+p"}, CHAINS)
    assert (conflict.binding_id, conflict.key, conflict.outcome) == (
        "main.lineage",
        "ctrl+p",
        "other wins",
    )
    # Found with the editor focused and without: said once, for the whole screen.
    assert conflict.describe() == (
        "Ctrl+P is also the app's 'app.palette' (Commands, a priority key), which wins on "
        "the main screen"
    )


def test_the_focused_widgets_key_wins_over_the_screens_while_it_has_focus() -> None:
    assert said({"main.context": "f6"}) == [
        "F6 is also the editor's Select line, which wins on the main screen while the editor "
        "has focus"
    ]


def test_a_key_taken_from_another_binding_of_the_same_screen_is_lost_there() -> None:
    assert said({"main.context": "f5"}) == [
        "F5 is also 'main.retry' (Retry); 'main.context' wins on the main screen, so "
        "'main.retry' loses it"
    ]


def test_a_screen_key_wins_over_the_apps_ordinary_key() -> None:
    assert said({"main.context": "f1"}) == [
        "F1 is also the app's 'app.help' (Help); 'main.context' wins on the main screen, so "
        "'app.help' loses it"
    ]
    assert said({"app.help": "f5"}) == [
        "F5 is also 'main.retry' (Retry), which wins on the main screen"
    ]


def test_a_key_the_focused_widget_types_is_typed() -> None:
    assert said({"main.lineage": "g"}) == [
        "the editor types g (a printable key), which wins on the main screen while the "
        "editor has focus"
    ]
    # A binding whose own key is typed is meant for when the editor has no focus.
    assert said({"main.pin": "i"}) == []


def test_keys_on_different_screens_and_keys_left_where_they_are_are_no_conflict() -> None:
    assert said({"main.context": "f2"}) == []  # the other screen's f2
    assert said({"main.retry": "f5", "main.pin": "p", "app.palette": "ctrl+p"}) == []
    assert said({"no.such.binding": "f5"}) == []  # reported as unknown, not here


def test_a_modal_screen_meets_only_the_apps_priority_keys() -> None:
    assert said({"app.help": "f3"}) == []  # the dialog never sees the app's F1 binding
    assert said({"app.palette": "f3"}) == [
        "F3 is also 'dialog.yes' (Yes); 'app.palette' wins on the dialog, so 'dialog.yes' loses it"
    ]


def test_conflicts_come_in_the_keymaps_order_each_key_of_an_entry_apart() -> None:
    found = keymap_conflicts({"main.context": "f6,f5", "main.lineage": "ctrl+p"}, CHAINS)
    assert [(c.binding_id, c.key) for c in found] == [
        ("main.context", "f6"),
        ("main.context", "f5"),
        ("main.lineage", "ctrl+p"),
    ]


def test_keys_are_named_as_textual_names_them() -> None:
    assert split_keys("f2, ctrl+i,?") == ["f2", "ctrl+i", "question_mark"]


def test_the_real_workbench_reports_the_two_cases_testers_met() -> None:
    app = BindingLayer("the app", class_bindings(SteinerApp))
    main = BindingLayer("the workbench", class_bindings(MainScreen))
    prompt = BindingLayer("the prompt", class_bindings(PromptEditor))
    chains = [
        BindingChain("the workbench", (main, app)),
        BindingChain("the workbench", (prompt, main, app), focus="the prompt"),
    ]
    keymap = {"main.lineage": "ctrl+p", "main.toggle_context": "f6", "main.sessions": "ctrl+b"}
    assert [c.describe() for c in keymap_conflicts(keymap, chains)] == [
        "Ctrl+P is also the app's 'app.command_palette' (Commands, a priority key), which "
        "wins on the workbench",
        "F6 is also the prompt's Select line, which wins on the workbench while the prompt "
        "has focus",
    ]
    # The prompt's own F7 (select all) is Textual's TextArea binding, inherited.
    assert any(b.key == "f7" and b.action == "select_all" for b in prompt.bindings)


async def test_a_conflicting_keymap_entry_is_said_in_the_conversation(
    app_for: AppFactory,
) -> None:
    keymap = {"main.lineage": "ctrl+p", "main.toggle_context": "f6"}
    app = app_for(config={"keymap": keymap})
    async with app.run_test(size=SIZE):
        # Start-up's end, not a number of frames: under load the first figures (and so the
        # check, which follows them) come later than any fixed wait.
        await app.started.wait()
        notices = [e for e in app.workbench.conversation.entries if isinstance(e, NoticeEntry)]
        warnings = [e.text for e in notices if "[keymap]" in e.text]
        assert warnings == [
            "test config: [keymap] 'main.lineage' = 'ctrl+p': Ctrl+P is also the app's "
            "'app.command_palette' (Commands, a priority key), which wins on the workbench",
            "test config: [keymap] 'main.toggle_context' = 'f6': F6 is also the prompt's "
            "Select line, which wins on the workbench while the prompt has focus",
        ]
        assert all(e.kind == "warning" for e in notices if "[keymap]" in e.text)
