"""Small pilot helpers shared by the app tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.content import Content
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Static

from steiner_tui.app.app import SteinerApp
from tests.app.conftest import SIZE, AppFactory
from tests.app.fakes import GateProvider, fake_model


async def send(pilot: Pilot[None], text: str) -> None:
    """Type ``text`` in the prompt and press Enter (does not wait for the run)."""
    app = pilot.app
    assert isinstance(app, SteinerApp)
    prompt = app.workbench.prompt
    prompt.focus()
    prompt.load_text(text)
    await pilot.press("enter")
    await pilot.pause()


@asynccontextmanager
async def mid_reply(
    app_for: AppFactory, text: str = "hello", **request: object
) -> AsyncIterator[tuple[SteinerApp, Pilot[None], GateProvider]]:
    """An app (``app_for`` with ``request``) whose reply to ``text`` is streaming: its
    provider waits at its gate until the test opens it, cancels the run or ends the app."""
    provider = GateProvider()
    app = app_for(fake_model(provider), **request)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot)
        await send(pilot, text)
        await provider.reached.wait()
        yield app, pilot, provider


async def finish(pilot: Pilot[None]) -> None:
    """Wait for the workers (the run, the context panel's dry run), then for their messages to
    be handled; again while handling them started more (a dry run for a newer refresh)."""
    app = pilot.app
    for _ in range(20):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if all(worker.is_finished for worker in app.workers):
            return


async def key_alone(pilot: Pilot[None], key: str) -> None:
    """Press ``key`` as a key of its own: the typing router holds a bound printable key until
    no text follows it (``typing_route``); this waits for that, not for the other workers."""
    await pilot.press(key)
    app = pilot.app
    typing = [w for w in app.workers if w.group == "typing"]
    if typing:  # (an empty list would mean every worker to ``wait_for_complete``)
        await app.workers.wait_for_complete(typing)
    await pilot.pause()


def static_text(widget: Static) -> str:
    """The plain text a Static shows."""
    visual = widget.visual
    assert isinstance(visual, Content)
    return visual.plain


def said(app: SteinerApp) -> list[str]:
    """The texts of the conversation's notices (what commands answered or refused)."""
    from steiner_tui.app.transcript import NoticeEntry

    entries = app.workbench.conversation.entries
    return [entry.text for entry in entries if isinstance(entry, NoticeEntry)]


def notices(messages: list[object]) -> list[str]:
    """The texts of the notifications among ``messages`` (a ``message_hook`` list)."""
    return [m.notification.message for m in messages if isinstance(m, Notify)]


async def inspected(
    pilot: Pilot[None], *columns: str, row: int = -1
) -> tuple[tuple[str, ...], str]:
    """Open the inspector (F2): the cells of ``columns`` in request row ``row`` (-1: the last),
    and the detail of the request selected."""
    from steiner_tui.app.widgets.inspector_requests import RequestTable

    await pilot.press("f2")
    await finish(pilot)
    screen = pilot.app.screen
    table = screen.query_one(RequestTable)
    key = str(table.row_count - 1 if row < 0 else row)
    cells = tuple(str(table.get_cell(key, column)) for column in columns)
    return cells, static_text(screen.query_one("#request-summary", Static))
