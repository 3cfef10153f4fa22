"""F1 opens the help from whatever has the focus, on every screen, listing that widget's keys.

Each focusable widget of the workbench, the lineage browser, the request inspector and the
sessions screen is focused in turn; F1 must open the help, and the help must list every key the
widget declares itself (its own ``BINDINGS`` and those of its steiner-tui bases, each with an
id and a tooltip, under the key the keymap gives it), so a binding added without a help entry
fails here.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.pilot import Pilot
from textual.widget import Widget

from steiner_tui.app.app import SteinerApp
from steiner_tui.app.help_catalog import IDLE_NOTE, HelpRow, key_label, noted, slash_rows
from steiner_tui.app.screens.help import HelpScreen
from tests.app.conftest import AppFactory
from tests.app.helpers import finish, send


def _own_bindings(widget: Widget) -> list[Binding]:
    """The bindings ``widget``'s class and its steiner-tui bases declare."""
    owners = [c for c in type(widget).__mro__ if c.__module__.startswith("steiner_tui.")]
    declared = [b for c in owners for b in c.__dict__.get("BINDINGS", ())]
    assert all(isinstance(b, Binding) for b in declared), (widget, declared)
    return [b for b in declared if isinstance(b, Binding)]


def _missing(widget: Widget, rows: tuple[HelpRow, ...], keymap: dict[str, str]) -> list[str]:
    """The widget's own keys the help does not list (with their description)."""
    missing = []
    for binding in _own_bindings(widget):
        if not binding.id or not binding.tooltip:
            missing.append(f"{binding.key}: no id or tooltip, so no help entry")
            continue
        texts = (binding.tooltip, noted(binding.tooltip, IDLE_NOTE))
        described = [row for row in rows if row.description in texts]
        for key in keymap.get(binding.id, binding.key).split(","):
            label = key_label(key.strip())
            digit = len(key.strip()) == 1 and key.strip().isdigit()  # "1-9" is one row
            if not any(label in row.keys.split(" ") or digit for row in described):
                missing.append(f"{label} ({binding.id}) not in the help")
    return missing


async def _f1_on_every_focusable(pilot: Pilot[None], app: SteinerApp) -> int:
    """Focus each focusable widget of the screen on top, press F1, check the help; returns
    how many widgets were checked."""
    screen = app.screen
    focusable = list(screen.focus_chain)
    keymap = dict(app.keymap)
    for widget in focusable:
        widget.focus()
        await pilot.pause()
        await pilot.press("f1")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen), widget
        assert _missing(widget, help_screen.rows, keymap) == [], widget
        help_screen.dismiss()
        await pilot.pause()
        assert app.screen is screen
    if not focusable:  # nothing to focus (no saved session to list): F1 still opens the help
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen), screen
        app.screen.dismiss()
        await pilot.pause()
    return len(focusable)


async def test_f1_works_on_every_focused_widget(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await finish(pilot)
        await send(pilot, "what is in this project?")
        await finish(pilot)
        assert await _f1_on_every_focusable(pilot, app) >= 4


async def test_f1_lists_each_focused_widgets_keys_on_every_screen(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        await finish(pilot)
        await send(pilot, "what is in this project?")
        await finish(pilot)
        checked = {"workbench": await _f1_on_every_focusable(pilot, app)}
        for name, key in (("lineage", "ctrl+l"), ("inspector", "f2"), ("sessions", "ctrl+o")):
            app.workbench.prompt.focus()
            await pilot.press(key)
            await finish(pilot)
            assert app.screen is not app.workbench, name
            checked[name] = await _f1_on_every_focusable(pilot, app)
            app.pop_screen()
            await finish(pilot)
        assert checked["workbench"] >= 4 and checked["lineage"] and checked["inspector"], checked


async def _help_at_launch(pilot: Pilot[None], app: SteinerApp) -> HelpScreen:
    """F1 pressed once the app has started."""
    await finish(pilot)
    await pilot.press("f1")
    await pilot.pause()
    assert isinstance(app.screen, HelpScreen)
    return app.screen


async def test_a_widgets_keys_are_listed_in_the_order_it_declares_them(
    app_for: AppFactory,
) -> None:
    """Textual lists a key a widget takes over from its base in the base's place: the
    prompt's Ctrl+D (the text area's delete) came first in the help, before Enter."""
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        help_screen = await _help_at_launch(pilot, app)
        prompt = [row.keys for row in help_screen.rows if row.section == "Prompt"]
        assert prompt[:4] == ["Enter", "Shift+Enter Ctrl+J", "Ctrl+G", "Ctrl+D"]
        workbench = [row.keys for row in help_screen.rows if row.section == "Workbench"]
        assert workbench[0] == "Shift+Tab"  # the screen's keys keep the footer's order


async def test_a_key_that_does_nothing_now_says_so_inside_its_parentheses(
    app_for: AppFactory,
) -> None:
    """A description that ends in parentheses took the note as a second pair: "Stop the
    reply, as Esc does (with text selected, Ctrl+C copies it) (when available)"."""
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        help_screen = await _help_at_launch(pilot, app)
        descriptions = [row.description for row in help_screen.rows]
        idle = [text for text in descriptions if "when available" in text]
        assert idle and all(
            text.endswith(("; when available)", " (when available)")) for text in idle
        )
        assert (
            "Stop the reply as Esc does, else clear the prompt (Up brings its text back; with "
            "text selected, Ctrl+C copies it; when available)" in idle
        )
        assert not [text for text in descriptions if ") (" in text]


def test_the_commands_say_the_other_agents_names_they_answer_to() -> None:
    """``/resume`` answered as ``/sessions`` and nothing on screen said so."""
    rows = {row.keys: row.description for row in slash_rows()}
    assert rows["/sessions [id]"].endswith("(also /resume)")
    assert rows["/context"].endswith("(Enter there opens the inspector; also /cost, /tokens)")
    assert rows["/quit"] == "save the session and quit, as Ctrl+Q does (also /exit)"
    assert "(also" not in rows["/lineage"]
