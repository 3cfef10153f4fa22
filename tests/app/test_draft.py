"""What was typed and not sent when the app quit comes back on resume (``sessions.draft``).

On main it was lost: Ctrl+Q with half a message in the prompt, then ``--resume``, showed an
empty prompt.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from steiner_tui.app import draft_keeper
from steiner_tui.app.app import make_app
from steiner_tui.sessions.draft import DRAFT_FILE_NAME, Draft, read_draft, save_draft
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.helpers import finish, said, send

PASTED = "".join(f"pasted line {n}\n" for n in range(600))


async def _session_with_a_draft(project: Path, config_dir: Path) -> Path:
    """A recorded session with one turn, quit with a typed line and a long paste unsent."""
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press(*"half a thought")
        app.workbench.prompt.take_paste(PASTED)
        await pilot.press("ctrl+q")
    assert app.session.log is not None
    return app.session.log.session_dir


async def test_a_draft_left_at_quit_is_back_in_the_prompt_on_resume(
    project: Path, config_dir: Path
) -> None:
    folder = await _session_with_a_draft(project, config_dir)
    assert (folder / DRAFT_FILE_NAME).is_file()
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        prompt = resumed.workbench.prompt
        assert prompt.text == "half a thought[pasted 600 lines #1]"
        assert "the message you had not sent (1 line) is back in the prompt" in said(resumed)
        await pilot.press("enter")  # the placeholder still stands for the 600 lines
        await finish(pilot)
        sent = resumed.session.driver.runner.conversation
        asked = [m.content for m in sent if m.role == "user"]
        assert asked == ["what is in this project?", "half a thought" + PASTED]
        assert not (folder / DRAFT_FILE_NAME).exists()  # sent: it does not come back
    again = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with again.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert again.workbench.prompt.text == ""


async def _typing_paused(pilot: Pilot[None]) -> None:
    await pilot.pause(0.05)  # past DRAFT_SAVE_SECONDS: the draft is being written
    await finish(pilot)


async def test_a_draft_is_kept_as_it_is_typed_and_gone_once_sent(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An app killed outright (kill -9) runs no quit: the draft is written as it is typed (it
    was written at quit only, and lost), and emptied as soon as it is sent."""
    monkeypatch.setattr(draft_keeper, "DRAFT_SAVE_SECONDS", 0.01)
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        folder = app.session.log.session_dir
        await pilot.press(*"typed while a reply streams")
        app.workbench.prompt.take_paste(PASTED)
        await _typing_paused(pilot)
        line = "[pasted 600 lines #1]"
        assert read_draft(folder) == Draft(f"typed while a reply streams{line}", {line: PASTED})
        await pilot.press("enter")
        await finish(pilot)
        assert read_draft(folder) is None
        await pilot.press(*"next")
        await _typing_paused(pilot)
        assert read_draft(folder) == Draft("next")


async def test_a_draft_that_is_not_one_is_reported_and_the_session_resumes(
    project: Path, config_dir: Path
) -> None:
    folder = await _session_with_a_draft(project, config_dir)
    (folder / DRAFT_FILE_NAME).write_bytes(b'{"text": 3}')
    resumed = make_app(request_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert resumed.workbench.prompt.text == ""
        (note,) = [n for n in said(resumed) if "had not sent" in n]
        assert note.startswith("the message you had not sent was not restored: ")
        assert note.endswith("draft.json: not a draft (Expected `str`, got `int` - at `$.text`)")
        assert len(resumed.session.driver.runner.conversation) >= 2


async def test_a_draft_that_cannot_be_kept_is_given_back_as_text(
    project: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(directory: Path, draft: Draft) -> bool:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(draft_keeper, "save_draft", full)
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in this project?")
        await finish(pilot)
        await pilot.press(*"keep me")
        unkept = app.workbench.keep_draft()
    assert unkept is not None
    assert "No space left on device" in unkept and unkept.endswith("keep me")
    assert app.workbench.keep_draft() is None  # a quit after the app is down: nothing to do


async def test_a_session_that_never_had_a_message_keeps_no_draft(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"never sent")
        await pilot.press("ctrl+q")
    assert app.session.log is not None
    assert not app.session.log.session_dir.exists()


def test_a_draft_keeps_what_utf8_cannot_hold(tmp_path: Path) -> None:
    draft = Draft("caf\u00e9 \ud800 [pasted 2 lines #3]", {"[pasted 2 lines #3]": "a\nb\udfff"})
    assert save_draft(tmp_path, draft)
    assert read_draft(tmp_path) == draft
    assert save_draft(tmp_path, Draft("  \n"))  # nothing typed: nothing kept
    assert read_draft(tmp_path) is None
    assert not save_draft(tmp_path / "missing", draft)


def test_an_unreadable_draft_says_which_file(tmp_path: Path) -> None:
    (tmp_path / DRAFT_FILE_NAME).write_bytes(b"\xff\xfe not json")
    with pytest.raises(ValueError, match=DRAFT_FILE_NAME):
        read_draft(tmp_path)


async def test_a_draft_goes_ahead_of_what_was_typed_while_the_session_opened(
    project: Path, config_dir: Path
) -> None:
    app = make_app(request_for(project, config_dir))
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        prompt = app.workbench.prompt
        await pilot.press(*"typed ahead")
        prompt.restore("kept [pasted 9 lines #4]", {"[pasted 9 lines #4]": "x\n" * 9})
        assert prompt.text == "kept [pasted 9 lines #4]\ntyped ahead"
        prompt.take_paste("y\n" * 20)  # the next paste has a number of its own
        assert prompt.text.endswith("[pasted 20 lines #5]")


async def test_up_in_a_new_session_recalls_what_the_project_sent_before(
    app_for: AppFactory,
) -> None:
    """Up recalled only the open session's prompts: a new session in the same project had
    nothing, where Claude Code and aider recall the project's. A prompt naming a paste is not
    kept (the paste is this session's)."""
    first = app_for()
    async with first.run_test() as pilot:
        await finish(pilot)
        await send(pilot, "what is in this project?")
        await finish(pilot)
        prompt = first.workbench.prompt
        prompt.take_paste("\n".join(f"line {n}" for n in range(600)))
        await pilot.press("enter")
        await finish(pilot)
        await send(pilot, "/help")
        await finish(pilot)
        await pilot.press("escape")
        await finish(pilot)
    second = app_for()
    async with second.run_test() as pilot:
        await finish(pilot)
        prompt = second.workbench.prompt
        assert prompt.prompt_history.entries == ("what is in this project?", "/help")
        prompt.focus()
        await pilot.press("up")
        assert prompt.text == "/help"
        await pilot.press("up")
        assert prompt.text == "what is in this project?"
