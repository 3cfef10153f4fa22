"""A recorded session: the app writes its log and ``resume`` shows the conversation again."""

from __future__ import annotations

from pathlib import Path

from steiner_tui.app.app import make_app
from steiner_tui.app.transcript import ReplyEntry, UserEntry
from tests.app.conftest import SIZE, session_for
from tests.app.helpers import finish, notices, send


async def test_recorded_session_resumes_into_the_pane(project: Path, config_dir: Path) -> None:
    app = make_app(session_for(project, config_dir, record=True))
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
    resumed = make_app(session_for(project, config_dir, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        await resumed.workers.wait_for_complete()
        await pilot.pause()
        assert resumed.session.driver.runner.conversation == sent
        entries = resumed.workbench.conversation.entries
        assert isinstance(entries[0], UserEntry)
        assert entries[0].text == "what is in this project?"
        assert any(isinstance(e, ReplyEntry) for e in entries)
        assert any(t.startswith("resumed session") for t in notices(messages))
