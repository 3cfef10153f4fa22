"""Errors stay in the conversation with what the user can do; F5 resends once, not twice."""

from __future__ import annotations

from steiner_tui.app.transcript import ErrorEntry, ReplyEntry, UserEntry
from steiner_tui.app.widgets.error_row import ErrorRow
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import FailingProvider, fake_model
from tests.app.helpers import finish, send, static_text


async def test_a_provider_error_is_an_entry_with_its_remedies(app_for: AppFactory) -> None:
    provider = FailingProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "hello there")
        await finish(pilot)
        errors = [e for e in screen.conversation.entries if isinstance(e, ErrorEntry)]
        assert len(errors) == 1
        assert errors[0].code == "rate_limited" and errors[0].retry == "F5"
        row = screen.conversation.query_one(ErrorRow)
        text = static_text(row)
        assert "429 Too Many Requests: slow down [bold]now[/]" in text  # literal, not markup
        assert "wait a minute, then retry — F5 resends your message" in text
        assert "switch to another model (/model)" in text

        await pilot.press("f5")
        await finish(pilot)
        users = [m for m in app.session.driver.runner.conversation if m.role == "user"]
        assert len(users) == 1  # resent, not stored twice
        assert len(provider.requests) == 2
        shown = [e for e in screen.conversation.entries if isinstance(e, UserEntry)]
        assert len(shown) == 1
        assert isinstance(screen.conversation.entries[-1], ReplyEntry)
        assert screen.conversation.entries[-1].text == "Answered."
        await pilot.press("f5")  # nothing unanswered: does nothing
        await finish(pilot)
        assert len(provider.requests) == 2


async def test_compact_works_after_an_error(app_for: AppFactory) -> None:
    provider = FailingProvider(failures=5)
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "first")
        await finish(pilot)
        await send(pilot, "/compact")
        await finish(pilot)
        assert any(isinstance(e, ErrorEntry) for e in screen.conversation.entries)
        assert not screen.busy
