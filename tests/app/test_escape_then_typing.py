"""Esc typed just ahead of the next message: the terminal sends Esc and the letter together,
which Textual reads as one Alt key (``typing_route``)."""

from __future__ import annotations

import asyncio

from textual import events

from steiner_tui.app.widgets.prompt import PromptEditor
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import GateProvider, fake_model
from tests.app.helpers import finish, send


async def test_esc_then_a_letter_at_once_cancels_and_keeps_the_letter(
    app_for: AppFactory,
) -> None:
    """Esc, then "t" within Textual's escape delay (a fast typist's next message) arrived as
    "alt+t": the "t" went into the prompt and the reply streamed on, Esc lost."""
    provider = GateProvider()
    app = app_for(fake_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, "hello")
        await provider.reached.wait()
        app.post_message(events.Key("alt+t", "t"))  # what Textual reads of "\x1bt"
        await pilot.press("h", "e", "n")
        # Cancelled, the run ends (not cancelled, it waits on the provider for ever).
        await asyncio.wait_for(finish(pilot), timeout=60)
        assert app.query_one(PromptEditor).text == "then"
        [request] = app.session.snapshots.summaries()
        assert request.cancelled
