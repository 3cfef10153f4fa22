"""Slash commands complete in a dropdown under the prompt: names, then models, skills, sessions."""

from __future__ import annotations

from steiner_tui.app.completion import CompletionSources, complete
from steiner_tui.app.transcript import NoticeEntry
from steiner_tui.app.widgets.completion_list import CompletionList
from tests.app.conftest import SIZE, AppFactory
from tests.app.helpers import said

MODELS = ("anthropic/claude-sonnet-4", "offline/offline")


def test_names_then_arguments() -> None:
    sources = CompletionSources(models=[(m, "") for m in MODELS], skills=[("code-review", "")])
    assert [c.text for c in complete("/mo", sources)] == ["/model "]
    assert [c.text for c in complete("/model an", sources)] == ["/model anthropic/claude-sonnet-4"]
    assert [c.text for c in complete("/skills rev", sources)] == ["/skills code-review"]
    assert complete("//model", sources) == [] and complete("hello /mo", sources) == []
    assert complete("/model x\nmore", sources) == []


async def test_tab_completes_and_down_chooses(app_for: AppFactory) -> None:
    app = app_for(config={"models": {m: {} for m in MODELS}})
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert not screen.query("#completions")  # mounted when first needed
        await pilot.press("/", "m", "o")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert dropdown.display and dropdown.candidates[0].text == "/model "
        await pilot.press("tab")
        await pilot.pause()
        assert screen.prompt.text == "/model " and app.focused is screen.prompt
        assert [c.label for c in dropdown.candidates] == list(MODELS)
        await pilot.press("down", "tab")
        await pilot.pause()
        assert screen.prompt.text == "/model offline/offline"
        assert not dropdown.display  # complete: nothing more to offer
        await pilot.press("tab")  # no list: Tab moves the focus as usual
        await pilot.pause()
        assert app.focused is not screen.prompt


async def test_escape_closes_the_list_and_enter_completes_a_partial_name(
    app_for: AppFactory,
) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press("/", "c", "l")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert dropdown.display
        await pilot.press("escape")
        await pilot.pause()
        assert not dropdown.display and screen.prompt.text == "/cl"
        await pilot.press("e")
        await pilot.pause()
        assert dropdown.display
        await pilot.press("enter")  # "/cle" is no command: Enter takes the completion
        await pilot.pause()
        assert screen.prompt.text == "/clear"


async def test_skills_command_toggles_a_named_skill(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"/skills release")
        await pilot.pause()
        dropdown = screen.query_one("#completions", CompletionList)
        assert [c.label for c in dropdown.candidates] == ["release-notes"]
        await pilot.press("tab", "enter")
        await pilot.pause()
        state = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert state["release-notes"] == "pending_activation"


LOOP = {
    "providers": {"loop": {"type": "openai", "base_url": "http://127.0.0.1:9/v1"}},
    "models": {"loop/small": {"context_window": 8192}, "offline/offline": {}},
}


async def test_model_command_switches_the_model(app_for: AppFactory) -> None:
    app = app_for(config=LOOP)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await pilot.press(*"/model lo", "tab")
        await pilot.pause()
        assert screen.prompt.text == "/model loop/small"
        await pilot.press("enter")
        await pilot.pause()
        runner = app.session.driver.runner
        assert runner.model.ref == "loop/small" and runner.model.budget.context_size == 8192
        assert screen.status.model == "loop/small"
        notes = [e.text for e in screen.conversation.entries if isinstance(e, NoticeEntry)]
        assert notes and notes[-1].endswith("→ loop/small")


async def test_an_unresolvable_model_is_refused_with_the_reason(app_for: AppFactory) -> None:
    messages: list[object] = []
    app = app_for(config=LOOP)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        before = app.session.driver.runner.model.ref
        app.workbench.prompt.load_text("/model nonsense-model-x")
        await pilot.press("enter")
        await pilot.pause()
        errors = [t for t in said(app) if "nonsense-model-x" in t]
        assert errors and "cannot switch" in errors[0] and "loop/small" in errors[0]
        assert app.session.driver.runner.model.ref == before
