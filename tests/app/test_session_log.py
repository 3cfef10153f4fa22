"""A recorded session: the app writes its log and ``resume`` shows the conversation again."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from textual.widgets import DataTable, Input

from steiner_tui.agent.session_factory import STOPPED_MID_REPLY
from steiner_tui.app.app import make_app
from steiner_tui.app.resume_request import ResumeRequest
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.screens.sessions import SessionsScreen
from steiner_tui.app.transcript import NoticeEntry, ReplyEntry, UserEntry
from steiner_tui.app.widgets.permission_prompt import PermissionPrompt
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.sessions.store import SessionStore
from tests.app.conftest import SIZE, request_for
from tests.app.fakes import GateProvider, WriteProvider, fake_model
from tests.app.helpers import finish, inspected, said, send


async def test_recorded_session_resumes_into_the_pane(project: Path, config_dir: Path) -> None:
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press("shift+tab")
        sent = app.session.driver.runner.conversation
    assert app.session.log is not None
    records = app.session.log.path.read_text(encoding="utf-8")
    assert '"type":"mode"' in records.replace(" ", "")

    messages: list[object] = []
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        assert resumed.session.driver.runner.conversation == sent
        entries = resumed.workbench.conversation.entries
        assert isinstance(entries[0], UserEntry)
        assert entries[0].text == "what is in this project?"
        assert any(isinstance(e, ReplyEntry) for e in entries)
        # What the session says at start stays in the conversation (not a toast that goes).
        said = [e.text for e in entries if isinstance(e, NoticeEntry)]
        assert any(text.startswith("resumed session") for text in said)


async def test_a_resumed_session_shows_what_a_permission_request_was_answered(
    project: Path, config_dir: Path
) -> None:
    """The prompt stays in the conversation with its answer, live and after a resume (it was
    gone after one: nothing in the log said what the person had allowed)."""
    app = make_app(request_for(project, config_dir, fake_model(WriteProvider()), record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "write a file")
        for _ in range(50):
            await pilot.pause()
            if app.query(PermissionPrompt):
                break
        await pilot.press("f8", "a")
        await finish(pilot)
        live = [p.text.plain for p in app.query(PermissionPrompt)]
    assert len(live) == 1 and live[0].endswith("→ allowed once")

    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        prompts = list(resumed.query(PermissionPrompt))
        assert [p.text.plain for p in prompts] == live
        assert not prompts[0].has_class("-open")


async def test_sessions_screen_lists_sessions_and_resuming_another_exits_with_it(
    project: Path, config_dir: Path
) -> None:
    first = make_app(request_for(project, config_dir, record=True, session_id="older-one"))
    async with first.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
    first.session.close()

    app = make_app(request_for(project, config_dir, record=True, session_id="newer-one"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "and now?")  # a session is saved once its first message is sent
        await finish(pilot)
        await send(pilot, "/sessions")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        table = screen.query_one("#sessions", DataTable)
        ids = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert any(i.startswith("older-one") for i in ids), ids
        assert any(i.startswith("newer-one") and "(open)" in i for i in ids), ids
        await pilot.press("end")  # the last row, as in the conversation (not the last column)
        assert table.row_count == 2 and table.cursor_row == 1
        await pilot.press("home")
        assert table.cursor_row == 0
        row = next(i for i, text in enumerate(ids) if text.startswith("older-one"))
        table.move_cursor(row=row)
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == ResumeRequest("older-one")


async def test_slash_typed_in_one_burst_on_the_sessions_screen_filters(
    project: Path, config_dir: Path
) -> None:
    """With a burst window, "/" and the words right behind it went to the prompt as one burst
    of text (a bound key is held to see whether text follows): the filter opened on nothing.
    (On a machine slow enough to space the keys more than the window apart, the old code
    passed too; it never fails the new.)"""
    config = {"ui": {"typing_burst_ms": 80}}
    app = make_app(request_for(project, config_dir, record=True, config=config, session_id="s1"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await screen.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("slash", *"this/project")  # a "/" in the filter is typed there
        await pilot.pause()
        field = screen.query_one("#sessions-filter", Input)
        assert field.value == "this/project" and screen.sub_title == "0 of 1 session"
        assert app.workbench.prompt.text == ""
        await pilot.press(*["backspace"] * 8, *" PROJECT")
        await pilot.pause()
        assert screen.sub_title == "1 session"  # every session listed matches
        await pilot.press("escape", *"what next")  # the filter closed: typing goes to the prompt
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.workbench
        assert app.workbench.prompt.text == "what next"


async def test_clear_starts_a_new_session(project: Path, config_dir: Path) -> None:
    app = make_app(request_for(project, config_dir, record=True, session_id="before-clear"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "first conversation")
        await finish(pilot)
        await send(pilot, "/clear")
        await pilot.pause()
        await send(pilot, "second conversation")
        await finish(pilot)
        session = app.session
        runner = session.driver.runner
        new_id = runner.session_id
        assert new_id != "before-clear"
        assert runner.model.prompt_cache_key == f"steiner-{new_id}"
        # The one session object follows the new session everywhere.
        folder = config_dir / "sessions" / new_id
        assert session.session_id == new_id
        assert session.history_path == folder / "history.md"
        assert session.log is not None and session.log.session_dir == folder
        assert SessionStore(config_dir / "sessions").is_open(new_id)
        assert not SessionStore(config_dir / "sessions").is_open("before-clear")
        # The chart, the inspector and /whatif show the new session's requests only.
        controller = app.workbench.hold.controller
        history = controller.view_of(*controller.shown_snapshot()).history
        assert [row.index for row in history] == [1]
        assert len(session.requests) == len(session.snapshots) == 1
        await send(pilot, "/lineage")
        lineage = app.screen
        assert isinstance(lineage, LineageScreen) and lineage.history_path == folder / "history.md"
    app.session.close()
    store = SessionStore(config_dir / "sessions")
    titles = {row.session_id: row.meta.title for row in store.list()}
    assert titles == {"before-clear": "first conversation", new_id: "second conversation"}
    old = load_session(config_dir / "sessions" / "before-clear")
    assert next(m.content for m in old.lineage.active.messages) == "first conversation"
    new = load_session(config_dir / "sessions" / new_id)
    assert new.problems == ()
    assert new.requests[0].index == 1  # a new session numbers its requests from 1 again
    assert new.prompt_cache_key == f"steiner-{new_id}"


async def test_a_log_that_stops_being_written_says_so_in_the_conversation(
    project: Path, config_dir: Path
) -> None:
    def disk_full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        assert app.session.log is not None
        app.session.log.write = disk_full
        await send(pilot, "and now?")
        await finish(pilot)
        entries = app.workbench.conversation.entries
        errors = [e for e in entries if isinstance(e, NoticeEntry) and e.kind == "error"]
        assert len(errors) == 1
        assert str(app.session.log.path) in errors[0].text
        assert "No space left on device" in errors[0].text


async def test_a_model_switch_with_no_turn_after_it_is_kept_on_resume(
    project: Path, config_dir: Path
) -> None:
    """``/model`` then quit (or a ``/compact`` cut short): no turn went to the new model, yet
    it is the one the person chose; the resumed session answers with it."""
    other = {"providers": {"other": {"type": "offline"}}, "models": {"other/offline": {}}}
    app = make_app(request_for(project, config_dir, record=True, config=other))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await send(pilot, "/model other/offline")
        await finish(pilot)
    resumed = make_app(request_for(project, config_dir, record=True, config=other, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert resumed.session.runner.model.ref == "other/offline"
        await send(pilot, "/model offline/offline")  # and back, then a turn on it
        await send(pilot, "and README.md?")
        await finish(pilot)
    again = make_app(request_for(project, config_dir, record=True, config=other, resume="latest"))
    async with again.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert again.session.runner.model.ref == "offline/offline"


async def test_a_compaction_mode_set_live_is_kept_on_resume(
    project: Path, config_dir: Path
) -> None:
    """F4 (or ``/compaction`` without ``save``) is the person's choice for this session: a
    resumed session keeps it, whatever the configuration says; ``--compaction`` still wins."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press("f4")
        await finish(pilot)
        assert app.session.runner.compaction_mode == "ask"
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert resumed.session.runner.compaction_mode == "ask"
        assert resumed.workbench.status.compaction == "ask"
        await send(pilot, "/compaction off")
        await send(pilot, "and README.md?")  # a turn after it does not undo it
        await finish(pilot)
    again = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with again.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert again.session.runner.compaction_mode == "off"
    told = make_app(
        request_for(project, config_dir, record=True, resume="latest", compaction_mode="auto")
    )
    async with told.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert told.session.runner.compaction_mode == "auto"


async def test_quitting_while_a_reply_streams_says_the_app_stopped_it(
    project: Path, config_dir: Path
) -> None:
    """Ctrl+Q mid-reply was logged as a cancellation: resumed, the inspector said "Cancelled
    (Esc)" and the conversation said nothing of the app stopping. F5 then sends the message
    again (it did nothing: a reply cut off without an error was taken as stopped with Esc)."""
    provider = GateProvider()
    app = make_app(request_for(project, config_dir, fake_model(provider), record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "tell me a story")
        await provider.reached.wait()
        await pilot.pause()
        await pilot.press("ctrl+q")
    assert app.session.log is not None
    request = load_session(app.session.log.path.parent).requests[-1]
    assert request.error == APP_STOPPED and not request.cancelled
    assert request.streamed_chars == len("Partial answer")
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert f"{STOPPED_MID_REPLY}; F5 resends your message" in said(resumed)
        cells, summary = await inspected(pilot, "cause")
        assert cells == ("stopped",) and summary.count("Stopped before the provider") == 1
        await pilot.press("escape")  # back from the inspector
        await pilot.press("f5")
        await finish(pilot)
        conversation = resumed.session.driver.runner.conversation
        assert [(m.role, m.incomplete) for m in conversation] == [
            ("user", False),
            ("assistant", True),
            ("user", False),
            ("assistant", False),
        ]
        assert conversation[2].content == "tell me a story"


async def test_exit_saves_the_session_and_quits(project: Path, config_dir: Path) -> None:
    """``/exit`` (Claude Code's and aider's) was an unknown command: it quits as Ctrl+Q does,
    the session saved."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await send(pilot, "/exit")
        await pilot.pause()
        assert not app.is_running
    assert app.session.log is not None
    assert len(load_session(app.session.log.path.parent).lineage.active.messages) >= 2


async def test_ctrl_d_deletes_right_and_quits_in_an_empty_prompt(
    project: Path, config_dir: Path
) -> None:
    """Ctrl+D, a shell's end of input (aider and Claude Code quit with it), only deleted."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        prompt = app.workbench.prompt
        prompt.load_text("ab")
        prompt.move_cursor((0, 0))
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert prompt.text == "b" and app.is_running
        await pilot.press("ctrl+d", "ctrl+d")
        await pilot.pause()
        assert not app.is_running


async def test_up_in_a_resumed_session_recalls_what_it_sent(
    project: Path, config_dir: Path
) -> None:
    """The prompt history was the running app's only: resumed, Up recalled nothing."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for text in ("what is in this project?", "read README.md"):
            await send(pilot, text)
            await finish(pilot)
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        prompt = resumed.workbench.prompt
        await pilot.press("up")
        assert prompt.text == "read README.md"
        await pilot.press("up")
        assert prompt.text == "what is in this project?"
