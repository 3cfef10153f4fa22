"""A server's ``Retry-After`` is capped, said, and ended by a cancel (issue 29, item 4).

A 429 with ``Retry-After: 3600`` held a turn for an hour on the Anthropic path, with nothing on
screen. Each wire: the wait is capped (the cap made small here, so the retry comes at once), the
person is told what the server asked and what is waited, and a turn cancelled during the wait
(what Esc and Ctrl+C do) ends at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from steiner_tui.engine.events import WarningEvent
from steiner_tui.providers import retry_wait
from tests.providers.loopback import LoopbackServer, Reply
from tests.providers.protocols import WIRES, Wire
from tests.providers.sessions import Sessions

pytestmark = pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.name)

_PATIENCE = 60.0
"""Seconds before the test calls the turn hung (a bound, not a figure checked)."""


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[Sessions]:
    project = tmp_path / "project"
    project.mkdir()
    opened = Sessions(project, tmp_path / "sessions")
    yield opened
    await opened.close()


async def test_an_hour_long_retry_after_is_capped_and_said(
    wire: Wire, sessions: Sessions, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(retry_wait, "RETRY_WAIT_CAP", 0.05)
    limited = wire.error(429, "Rate limit reached", {"retry-after": "3600"})
    with LoopbackServer(limited, Reply(parts=wire.text_reply("fine"))) as server:
        provider = wire.provider(server, timeout=5.0, max_retries=1)
        session = sessions.open(provider, wire.model)
        try:
            result = await asyncio.wait_for(session.driver.submit("hello"), _PATIENCE)
        except TimeoutError:
            pytest.fail("the turn waited out the server's Retry-After: 3600")
    assert (result.status, result.reply) == ("done", "fine")
    [said] = [e for e in session.events(WarningEvent) if e.code == "provider_wait"]
    # Which retry of how many: a wait per retry said the same words each time.
    waited = "asks to wait 3600 s before retry 1 of 1; waiting 0.05 s (at most 0.05 s)"
    assert waited in said.message
    assert said.message.startswith(f"{wire.label}: HTTP 429: ")  # which provider is waited on


async def _said(events: Callable[[type[WarningEvent]], list[WarningEvent]]) -> None:
    """Until a warning is in the session's sink (a plain list, so it is polled)."""
    while not events(WarningEvent):  # noqa: ASYNC110
        await asyncio.sleep(0.01)


async def test_a_turn_cancelled_while_it_waits_ends_at_once(wire: Wire, sessions: Sessions) -> None:
    limited = wire.error(429, "Rate limit reached", {"retry-after": "3600"})
    with LoopbackServer(limited, Reply(parts=wire.text_reply("fine"))) as server:
        provider = wire.provider(server, timeout=5.0, max_retries=1)
        session = sessions.open(provider, wire.model)
        turn = asyncio.ensure_future(session.driver.submit("hello"))
        try:
            await asyncio.wait_for(_said(session.events), _PATIENCE)
        except TimeoutError:
            pytest.fail("the wait was never said")
        assert "waiting 60 s (at most 60 s)" in session.events(WarningEvent)[0].message
        turn.cancel()
        try:
            await asyncio.wait_for(asyncio.gather(turn, return_exceptions=True), _PATIENCE)
        except TimeoutError:
            pytest.fail("the cancelled turn went on waiting")
    assert len(server.requests) == 1
