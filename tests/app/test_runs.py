"""Runs from the UI: Esc cancels (typed right ahead of a letter too), permission prompts answer
tools, /clear, busy refusals, messages queued while a reply generates."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import events
from textual.pilot import Pilot

from steiner_tui.app.transcript import (
    CompactionRunEntry,
    NoticeEntry,
    ReplyEntry,
    ToolEntry,
    UserEntry,
)
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.app.widgets.prompt import PromptEditor
from steiner_tui.app.widgets.tool_block import ToolBlock
from steiner_tui.app.widgets.user_message import UserMessage
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import GateProvider, WriteProvider, fake_model
from tests.app.helpers import finish, mid_reply, notices, said, send


async def test_escape_cancels_and_marks_the_reply_interrupted(app_for: AppFactory) -> None:
    provider = GateProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "tell me a story")
        await provider.reached.wait()
        await pilot.pause()
        assert screen.status.busy and app.session.driver.busy
        await pilot.press("escape")
        await finish(pilot)

        assert not app.session.driver.busy and not screen.status.busy
        stored = app.session.driver.runner.conversation[-1]
        assert stored.role == "assistant" and stored.incomplete
        assert stored.content == "Partial answer"
        replies = list(screen.conversation.query(".reply"))
        assert replies and replies[-1].has_class("-interrupted")
        last = screen.conversation.entries[-1]
        assert isinstance(last, NoticeEntry) and last.kind == "interrupted"


async def test_ctrl_c_stops_the_reply_unless_text_is_selected(app_for: AppFactory) -> None:
    """Ctrl+C, which stops a reply in Claude Code and aider, did nothing here (the prompt's
    copy, with nothing selected): it stops the reply; with text selected it copies it."""
    async with mid_reply(app_for) as (app, pilot, _):
        screen = app.workbench
        screen.prompt.load_text("keep this")
        screen.prompt.select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "keep this" and screen.busy
        screen.prompt.move_cursor(screen.prompt.document.end)
        # Text selected in the conversation (with the mouse) is copied too, as on any screen.
        screen.conversation.query_one(UserMessage).text_select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "hello" and screen.busy
        screen.clear_selection()
        await pilot.press("ctrl+c")
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert not screen.busy and screen.prompt.text == "keep this"
        stored = app.session.driver.runner.conversation[-1]
        assert stored.role == "assistant" and stored.incomplete
        app.copy_to_clipboard("")
        screen.conversation.query_one(UserMessage).text_select_all()
        await pilot.press("ctrl+c")  # idle too: it copied nothing (the app's quit hint)
        await pilot.pause()
        assert app.clipboard == "hello"


async def test_ctrl_c_with_nothing_to_stop_clears_the_prompt_then_says_which_key_quits(
    app_for: AppFactory,
) -> None:
    """Ctrl+C with no reply to stop clears the prompt, as Claude Code and aider do (it did
    nothing to a draft here), the text kept where Up finds it; in an empty prompt it says
    which key quits (Textual's toast said "Press [b]ctrl+q[/b] to quit the app", its markup
    as text)."""
    messages: list[object] = []
    app = app_for()
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await finish(pilot)
        prompt = app.workbench.prompt
        prompt.load_text("a draft\nof two lines")
        app.workbench.conversation.focus()  # the screen's key: wherever the focus is
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert prompt.text == "" and "prompt cleared: Up brings its text back" in notices(messages)
        assert "Press Ctrl+Q to quit." not in notices(messages)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert "Press Ctrl+Q to quit." in notices(messages) and app.is_running
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == "a draft\nof two lines"


async def test_esc_then_a_letter_at_once_cancels_and_keeps_the_letter(
    app_for: AppFactory,
) -> None:
    """Esc, then "t" within Textual's escape delay (a fast typist's next message) arrived as
    "alt+t": the "t" went into the prompt and the reply streamed on, Esc lost."""
    async with mid_reply(app_for) as (app, pilot, _):
        app.post_message(events.Key("alt+t", "t"))  # what Textual reads of "\x1bt"
        await pilot.press("h", "e", "n")
        # Cancelled, the run ends (not cancelled, it waits on the provider for ever).
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert app.query_one(PromptEditor).text == "then"
        [request] = app.session.snapshots.summaries()
        assert request.cancelled


async def test_permission_prompt_allow_once_runs_the_write(
    app_for: AppFactory, project: Path
) -> None:
    provider = WriteProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "write a file")
        prompt = await _wait_for_prompt(pilot)
        assert app.focused is screen.prompt and prompt.has_class("-open")
        await pilot.press("f8", "a")  # typing alone never answers (test_permission_safety)
        await finish(pilot)

        assert (project / "notes.txt").read_text(encoding="utf-8") == "hello\n"
        assert not prompt.has_class("-open") and "allowed once" in prompt.text.plain
        tool = next(e for e in screen.conversation.entries if isinstance(e, ToolEntry))
        assert tool.status == "done"
        assert len(provider.requests) == 2


async def test_permission_prompt_reject_once_refuses_the_write(
    app_for: AppFactory, project: Path
) -> None:
    provider = WriteProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "write a file")
        await _wait_for_prompt(pilot)
        await pilot.press("f8", "r")
        await finish(pilot)

        assert not (project / "notes.txt").exists()
        tool = next(e for e in screen.conversation.entries if isinstance(e, ToolEntry))
        assert tool.status == "rejected"
        block = screen.conversation.query_one(ToolBlock)
        assert block.has_class("-rejected")
        result = provider.requests[-1].messages[-1]
        assert result.role == "tool" and "rejected" in result.content


async def _wait_for_prompt(pilot: object) -> PermissionPrompt:
    assert isinstance(pilot, Pilot)
    for _ in range(50):
        await pilot.pause()
        found = list(pilot.app.query(PermissionPrompt))
        if found:
            return found[0]
    raise AssertionError("no permission prompt appeared")


async def test_clear_starts_a_new_conversation(app_for: AppFactory) -> None:
    app = app_for()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "what is in this project?")
        await finish(pilot)
        assert app.session.driver.runner.conversation
        await send(pilot, "/clear")
        await pilot.pause()

        assert app.session.driver.runner.conversation == ()
        assert [type(e) for e in screen.conversation.entries] == [NoticeEntry]
        assert "dry run" in str(screen.budget.border_title)
        assert screen.prompt.text == ""


async def test_clear_stays_in_the_prompt_and_a_message_is_queued_while_busy(
    app_for: AppFactory,
) -> None:
    """A message sent while a reply generated stayed in the prompt behind a toast: it is queued
    (the prompt's border says so) and goes, as typed, once the reply ends. ``/clear``, refused,
    left the prompt: it stays there, to send once the reply has ended."""
    provider = GateProvider()
    app = app_for(fake_model(provider))
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()  # the side panels mount after the first frame
        screen = app.workbench
        await send(pilot, "first")
        await provider.reached.wait()
        await send(pilot, "/clear")
        assert screen.prompt.text == "/clear" and screen.prompt.queued == ""
        assert any("/clear replaces the conversation" in t for t in notices(messages))
        await send(pilot, "second")
        await pilot.pause()
        assert screen.prompt.text == "" and screen.prompt.queued == "second"
        assert str(screen.prompt.border_title) == "[bold]queued [/bold]second"
        users = [e for e in screen.conversation.entries if isinstance(e, UserEntry)]
        assert [u.text for u in users] == ["first"]
        provider.release.set()
        await finish(pilot)
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent == ["first", "second"]
        assert screen.prompt.queued == "" and screen.prompt.border_title is None
        replies = [e for e in screen.conversation.entries if isinstance(e, ReplyEntry)]
        assert len(replies) == 2 and not replies[-1].interrupted


async def test_messages_queued_one_after_another_go_as_one(app_for: AppFactory) -> None:
    async with mid_reply(app_for, "first") as (app, pilot, provider):
        await send(pilot, "second")
        await send(pilot, "third")
        await pilot.pause()
        assert app.workbench.prompt.queued == "second\n\nthird"
        provider.release.set()
        await finish(pilot)
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent == ["first", "second\n\nthird"]


async def test_esc_gives_a_queued_message_back_to_the_prompt(app_for: AppFactory) -> None:
    """Cancelled, the run sends nothing more: what was queued is back in the prompt, ahead of
    what was typed since, and the conversation says so."""
    async with mid_reply(app_for, "first") as (app, pilot, _):
        screen = app.workbench
        await send(pilot, "second")
        await pilot.press("a", "n", "d")
        await pilot.press("escape")
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert screen.prompt.text == "second\nand"
        assert screen.prompt.queued == ""
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent == ["first"]
        assert any("queued is back in the prompt" in t for t in said(app))


async def test_a_queued_message_is_kept_as_the_draft(app_for: AppFactory) -> None:
    """A quit (or a kill after the draft's pause) while a message is queued keeps it."""
    async with mid_reply(app_for, "first") as (app, pilot, _):
        screen = app.workbench
        await send(pilot, "second")
        await pilot.press("x")
        assert screen.unsent().text == "second\nx"


async def test_compact_while_busy_is_queued_and_runs_before_what_follows(
    app_for: AppFactory,
) -> None:
    """``/compact focus`` typed while a reply generated stayed in the prompt, refused: it is
    queued like a message, an entry of its own, and runs once the reply ends; a message queued
    behind it goes once the compaction ends."""
    async with mid_reply(app_for, "first") as (app, pilot, provider):
        screen = app.workbench
        await send(pilot, "/compact keep the file list")
        await send(pilot, "second")
        await pilot.pause()
        assert screen.prompt.text == "" and screen.prompt.queued == (
            "/compact keep the file list\n\nsecond"
        )
        title = "[bold]queued [/bold]/compact keep the file list (+1)"
        assert str(screen.prompt.border_title) == title
        provider.release.set()
        await finish(pilot)
        kinds = [type(e) for e in screen.conversation.entries]
        assert kinds == [UserEntry, ReplyEntry, CompactionRunEntry, UserEntry, ReplyEntry]
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent[-1] == "second" and screen.prompt.queued == ""
        assert screen.prompt.text == "" and screen.prompt.border_title is None


async def test_esc_gives_back_the_queued_messages_and_says_which_command_did_not_run(
    app_for: AppFactory,
) -> None:
    """A queued /compact alone comes back to the prompt; behind messages, it would take them as
    its focus: the messages come back and the conversation names the command."""
    async with mid_reply(app_for, "first") as (app, pilot, _):
        screen = app.workbench
        await send(pilot, "/compact keep it")
        await send(pilot, "second")
        await pilot.press("escape")
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert screen.prompt.text == "second" and screen.prompt.queued == ""
        assert said(app)[-1].endswith("Not run: /compact keep it.")
    async with mid_reply(app_for, "first") as (app, pilot, _):
        screen = app.workbench
        await send(pilot, "/compact keep it")
        await pilot.press("escape")
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert screen.prompt.text == "/compact keep it"
        assert said(app)[-1] == "What you queued is back in the prompt: Enter sends it."


async def test_model_while_busy_is_queued_and_switches_before_what_follows(
    app_for: AppFactory,
) -> None:
    """``/model NAME`` typed while a reply generated was refused and left the prompt, the
    refusal followed by "(configured: none in [models]); did you mean ...": it is queued like
    ``/compact``, and the message queued behind it goes to the new model."""
    async with mid_reply(app_for, "first") as (app, pilot, provider):
        screen = app.workbench
        await send(pilot, "/model offline/offline")
        await send(pilot, "second")
        await pilot.pause()
        assert screen.prompt.text == "" and screen.prompt.queued == (
            "/model offline/offline\n\nsecond"
        )
        provider.release.set()
        await finish(pilot)
        runner = app.session.driver.runner
        assert runner.model.ref == "offline/offline"
        replies = [m.content for m in runner.conversation if m.role == "assistant"]
        assert replies[0] == "Partial answer" and replies[-1] != "Partial answer"
        sent = [m.content for m in runner.conversation if m.role == "user"]
        assert sent == ["first", "second"] and screen.prompt.queued == ""
        assert not [t for t in said(app) if "cannot switch" in t]


async def test_a_queued_model_that_fails_gives_back_what_follows(app_for: AppFactory) -> None:
    """The switch fails once the reply ends: the message behind it is not sent to the old model
    but given back, and the conversation says why."""
    async with mid_reply(app_for, "first") as (app, pilot, provider):
        screen = app.workbench
        await send(pilot, "/model nonsense-model-x")
        await send(pilot, "second")
        provider.release.set()
        await finish(pilot)
        sent = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert sent == ["first"] and screen.prompt.text == "second"
        texts = said(app)
        assert "cannot switch to 'nonsense-model-x'" in texts[-2]
        assert texts[-1] == "What you queued is back in the prompt: Enter sends it."


async def test_a_second_enter_before_the_run_starts_is_queued(app_for: AppFactory) -> None:
    provider = GateProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.workbench.prompt
        # Both arrive before the run's worker gets to start: the driver is not busy yet.
        prompt.post_message(PromptEditor.Submitted(prompt, "one"))
        prompt.post_message(PromptEditor.Submitted(prompt, "two"))
        await provider.reached.wait()
        await pilot.pause()
        assert prompt.queued == "two"
        provider.release.set()
        await finish(pilot)
        users = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert users == ["one", "two"]
        replies = [e for e in app.workbench.conversation.entries if isinstance(e, ReplyEntry)]
        assert len(replies) == 2 and not replies[-1].interrupted


async def test_a_message_sent_while_a_question_waits_stays_in_the_prompt(
    app_for: AppFactory,
) -> None:
    """Queued behind a permission question, "yes" would look like an answer and wait for ever:
    it stays in the prompt, and the toast says where the question is."""
    provider = WriteProvider()
    messages: list[object] = []
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "write a file")
        await _wait_for_prompt(pilot)
        await send(pilot, "yes")
        assert screen.prompt.text == "yes" and screen.prompt.queued == ""
        assert any("A question waits for your answer" in t for t in notices(messages))
        await pilot.press("f8", "a")
        await finish(pilot)
        assert screen.prompt.text == "yes"
        assert len(provider.requests) == 2


async def test_a_queued_paste_goes_whole_and_comes_back_as_its_line(app_for: AppFactory) -> None:
    """A long paste queued is sent whole once the reply ends; given back (Esc), it is its
    placeholder line again, which still stands for the paste."""
    pasted = "\n".join(f"line {n}" for n in range(600))
    async with mid_reply(app_for, "first") as (app, pilot, provider):
        prompt = app.workbench.prompt
        prompt.take_paste(pasted)
        await pilot.press("enter")
        await pilot.pause()
        [line] = prompt.pastes
        assert prompt.queued == line and prompt.text == ""
        await pilot.press("escape")
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert prompt.text == line
        provider.release.set()
        await pilot.press("enter")
        await finish(pilot)
        users = [m.content for m in app.session.driver.runner.conversation if m.role == "user"]
        assert users[-1].endswith(pasted)
