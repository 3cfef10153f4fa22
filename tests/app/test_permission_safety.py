"""Typing never answers a permission prompt; F8 or a click does, and "allow always" asks again."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple

from textual.pilot import Pilot
from textual.widgets import Button

from steiner_tui.app.screens.allow_always import ConfirmAllowAlways
from steiner_tui.app.transcript import PermissionEntry, ToolEntry
from steiner_tui.app.typing_route import OVER_NOTICE
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt, prompt_text
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.engine.messages import ToolCall
from steiner_tui.tools.base import PermissionDecision, PermissionRequest
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import BashProvider, CallsProvider, fake_model
from tests.app.helpers import finish, notices, send

TYPED = "what about Also allow? aArR yes!"
"""Every answer key, in both cases, among ordinary words."""


async def wait_for_prompt(pilot: Pilot[None]) -> PermissionPrompt:
    for _ in range(50):
        await pilot.pause()
        found = list(pilot.app.query(PermissionPrompt))
        if found:
            return found[0]
    raise AssertionError("no permission prompt appeared")


def _entry(prompt: PermissionPrompt) -> PermissionEntry:
    return prompt.entry


class Asked(NamedTuple):
    app: Any
    pilot: Pilot[None]
    prompt: PermissionPrompt
    provider: BashProvider


@asynccontextmanager
async def bash_asks(
    app_for: AppFactory,
    size: tuple[int, int] = SIZE,
    message_hook: Callable[[object], None] | None = None,
) -> AsyncIterator[Asked]:
    """The workbench with "run it" sent, its bash call's permission question waiting."""
    provider = BashProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=size, message_hook=message_hook) as pilot:
        await pilot.pause()
        await send(pilot, "run it")
        yield Asked(app, pilot, await wait_for_prompt(pilot), provider)


async def test_typing_ahead_through_a_bash_request_runs_nothing(
    app_for: AppFactory, project: Path
) -> None:
    async with bash_asks(app_for) as (app, pilot, prompt, provider):
        screen = app.workbench
        assert app.focused is screen.prompt  # the question does not take the focus
        await pilot.press(*TYPED)  # one key per character, as a typist sends them
        await pilot.pause()

        assert screen.prompt.text == TYPED
        assert _entry(prompt).decision is None and prompt.is_open
        assert not (project / "ran.txt").exists()
        assert len(provider.requests) == 1
        tool = next(e for e in screen.conversation.entries if isinstance(e, ToolEntry))
        assert tool.status == "running"

        await pilot.press("escape")  # cancel the run: the prompt closes unanswered
        await finish(pilot)
        assert not (project / "ran.txt").exists()
        assert _entry(prompt).decision is None and not prompt.is_open
        assert screen.prompt.text == TYPED


async def test_keys_typed_on_a_tool_block_go_to_the_prompt(app_for: AppFactory) -> None:
    async with bash_asks(app_for) as (app, pilot, prompt, _):
        screen = app.workbench
        screen.conversation.query_one(ToolBlock).focus()
        await pilot.pause()
        await pilot.press("1", "2", "a", "A", "r")
        await pilot.pause()
        assert screen.prompt.text == "12aAr"
        assert app.focused is screen.prompt
        assert prompt.is_open
        states = {row.name: row.state for row in screen.hold.controller.skill_rows()}
        assert "pending_activation" not in states.values()  # digits did not toggle skills
        await pilot.press("escape")
        await finish(pilot)


async def test_backspace_typed_off_the_prompt_edits_it(app_for: AppFactory) -> None:
    """Text typed, the focus turned to a tool block (Tab, a click), then Backspace: it corrects
    the prompt, whose typo stayed in the message before."""
    async with bash_asks(app_for) as (app, pilot, prompt, _):
        screen = app.workbench
        await pilot.press(*"fix teh")
        screen.conversation.query_one(ToolBlock).focus()
        await pilot.pause()
        await pilot.press("backspace", "backspace", "h", "e")
        await pilot.pause()
        assert screen.prompt.text == "fix the"
        assert app.focused is screen.prompt
        assert prompt.is_open
        await pilot.press("escape")
        await finish(pilot)


async def test_f8_then_a_allows_once(app_for: AppFactory, project: Path) -> None:
    async with bash_asks(app_for) as (app, pilot, prompt, provider):
        screen = app.workbench
        await pilot.press("f8")
        await pilot.pause()
        assert app.focused is prompt and "Esc back" in prompt.text.plain
        await pilot.press("x")  # not an answer: text for the prompt editor
        await pilot.pause()
        assert screen.prompt.text == "x" and prompt.is_open
        await pilot.press("f8", "a")
        await finish(pilot)
        assert (project / "ran.txt").exists()
        assert _entry(prompt).decision is PermissionDecision.ALLOW_ONCE
        assert app.focused is screen.prompt  # back to typing
        assert len(provider.requests) == 2


async def test_allow_always_asks_for_a_confirmation(app_for: AppFactory, project: Path) -> None:
    async with bash_asks(app_for) as (app, pilot, prompt, _):
        await pilot.press("f8", "A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmAllowAlways)
        await pilot.press("enter")  # Cancel has the focus
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmAllowAlways)
        assert prompt.is_open and not (project / "ran.txt").exists()

        await pilot.press("f8", "A")
        await pilot.pause()
        await pilot.click("#allow")
        await finish(pilot)
        assert _entry(prompt).decision is PermissionDecision.ALLOW_ALWAYS
        assert (project / "ran.txt").exists()


async def test_what_is_typed_over_the_workbench_waits_in_the_prompt(
    app_for: AppFactory, project: Path
) -> None:
    """F8 then "Also ok" typed slowly: ``A`` opened the allow-always dialog, which swallowed
    "lso ok"; text typed in the inspector (F2) was lost the same way. It waits in the prompt,
    and the dialog is still answered only by its buttons. Each screen says once where its text
    went: a key tried on the inspector went unseen into the prompt, and the command typed after
    it was sent to the model as "c/compact …"."""
    messages: list[object] = []
    async with bash_asks(app_for, message_hook=messages.append) as (app, pilot, prompt, _):
        await pilot.press("f8", "A")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmAllowAlways)
        await pilot.press(*"lso ok")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmAllowAlways)
        assert notices(messages).count(OVER_NOTICE) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert app.workbench.prompt.text == "lso ok"
        assert prompt.is_open and not (project / "ran.txt").exists()

        await pilot.press("f2")
        await pilot.pause()
        await pilot.press(*" then")
        await pilot.press("escape")
        await pilot.pause()
        assert app.workbench.prompt.text == "lso ok then"
        assert notices(messages).count(OVER_NOTICE) == 2
        await pilot.press(*" go")  # on the workbench, the prompt shows it
        await pilot.pause()
        assert notices(messages).count(OVER_NOTICE) == 2


async def test_a_click_on_a_button_answers(app_for: AppFactory, project: Path) -> None:
    async with bash_asks(app_for) as (_, pilot, prompt, _):
        buttons = list(prompt.query(Button))
        assert buttons and not any(b.can_focus for b in buttons)  # Tab never lands on one
        await pilot.click("#permission-reject_once")
        await finish(pilot)
        assert _entry(prompt).decision is PermissionDecision.REJECT_ONCE
        assert not (project / "ran.txt").exists()


async def test_the_status_says_a_permission_question_waits(app_for: AppFactory) -> None:
    async with bash_asks(app_for, size=(120, 36)) as (app, pilot, _, _):
        status = app.workbench.status
        line = status.render().plain
        assert "● waiting for your answer · F8" in line and "generating" not in line
        await pilot.press("f8", "r")  # refused
        await finish(pilot)
        assert not status.waiting and "idle" in status.render().plain


async def test_the_prompt_shows_the_change_before_it_is_allowed(
    app_for: AppFactory, project: Path
) -> None:
    """A write was approved on "write notes.txt (1840 bytes)" alone: the prompt now shows the
    change as a diff, its first lines while it waits, all of it once F8 turns to it, and only
    the answer once given."""
    content = "".join(f"line {i}\n" for i in range(1, 31))
    call = ToolCall("call_1", "write", {"path": "notes.txt", "content": content}, "")
    app = app_for(fake_model(CallsProvider((call,))))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "write it")
        prompt = await wait_for_prompt(pilot)
        lines = prompt.text.plain.split("\n")
        assert lines[0] == "permission write wants to run: write notes.txt (231 bytes, a new file)"
        assert lines[1:4] == ["@@ -0,0 +1,30 @@", "+line 1", "+line 2"]
        assert lines[12] == "+line 11"  # the first 12 lines of the change
        assert lines[13] == "… 19 more lines of the change: F8 shows them all"
        await pilot.press("f8")
        await pilot.pause()
        lines = prompt.text.plain.split("\n")
        assert lines[31] == "+line 30" and lines[32].startswith("a allow once")
        await pilot.press("a")
        await finish(pilot)
        assert prompt.text.plain.split("\n")[1:] == ["→ allowed once"]
        assert (project / "notes.txt").read_text() == content


def test_a_sub_agents_request_says_whose_it_is() -> None:
    request = PermissionRequest("write", "write a.py (6 bytes, a new file)", agent="code-1")
    text = prompt_text(PermissionEntry(request, lambda decision: None)).plain
    assert text.startswith("permission write (sub-agent code-1) wants to run: write a.py")
