"""Every connection a provider opens is closed by its session, none left to the garbage collector.

llama.cpp keeps a streamed reply's connection open a moment after the stream's last byte: when
the SDK released the response first, the connection went back to its client's pool, idle. No
session closed its provider's client, so that socket stayed open until a garbage collection
found it, after the event loop had ended, as a ResourceWarning (``unclosed <socket.socket ...>``)
that pytest turns into a failure of whichever test runs then. The loopback server keeps the
connection open (``keep_alive``) to make that certain, and says whether the client closed it.
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.from_config import take_fallback_providers
from steiner_tui.agent.headless import run_exec
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import parse_config
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest, ProviderEvent, StreamText
from tests.providers.loopback import LoopbackServer, Reply
from tests.providers.protocols import CHAT, WIRES, Wire

TURNS = 6
"""Enough turns for a compaction to summarize some."""

by_wire = pytest.mark.parametrize("wire", WIRES, ids=lambda wire: wire.name)


def pooled(wire: Wire, *pieces: str) -> Reply:
    """A complete reply whose connection the server keeps open."""
    return Reply(parts=wire.text_reply(*pieces), keep_alive=True)


def session_over(server: LoopbackServer, wire: Wire, project: Path) -> Session:
    provider = wire.provider(server, timeout=5.0, max_retries=0)
    main = MainModel(provider.alias, wire.model, provider, provider.model_info(wire.model))
    return build_session(SessionRequest(project, model=main, record=False, delegation=None))


def resource_warnings() -> list[str]:
    """What a garbage collection now says about unclosed resources."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    return [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


@by_wire
async def test_exec_closes_the_connection_its_reply_left_in_the_pool(
    wire: Wire, tmp_path: Path
) -> None:
    with LoopbackServer(pooled(wire, "Hello.")) as server:
        session = session_over(server, wire, tmp_path)
        try:
            result = await run_exec(session, "Say hello.")
        finally:
            session.close()
        assert result.status == "done", result.error
        assert await asyncio.to_thread(server.wait_closed)


async def test_the_connections_of_a_model_switched_away_from_close_with_the_session(
    tmp_path: Path,
) -> None:
    with LoopbackServer(pooled(CHAT, "One."), pooled(CHAT, "Two.")) as server:
        providers = {
            alias: {"type": "openai", "base_url": f"{server.url}/v1", "api_key_env": "KEY"}
            for alias in ("first", "second")
        }
        config = parse_config([("test", {"default_model": "first/m", "providers": providers})])
        request = SessionRequest(
            tmp_path, config, env={"KEY": "sk-test"}, record=False, delegation=None
        )
        session = build_session(request)
        try:
            assert (await session.driver.submit("One?")).status == "done"
            session.switch_model("second/m")
            assert (await session.driver.submit("Two?")).status == "done"
            await session.stop()
        finally:
            session.close()
        assert await asyncio.to_thread(server.wait_closed)


async def test_the_connections_of_a_compaction_fallback_close_with_the_session(
    tmp_path: Path,
) -> None:
    """The fallback's provider is built once and kept in a process-wide memo: the session's
    end closes its client too, as its main model's, and the next session builds its own."""
    replies = [pooled(CHAT, f"Answer {n}.") for n in range(TURNS)]
    with LoopbackServer(*replies, pooled(CHAT, "The summary.")) as server:
        providers = {
            alias: {"type": "openai", "base_url": f"{server.url}/v1", "api_key_env": "KEY"}
            for alias in ("first", "second")
        }
        fallback = {"model": "second/m", "after": "10m"}
        config = parse_config(
            [
                (
                    "test",
                    {
                        "default_model": "first/m",
                        "providers": providers,
                        "compaction_fallback": fallback,
                    },
                )
            ]
        )
        clock = ManualClock(datetime(2026, 6, 1, tzinfo=UTC))
        request = SessionRequest(
            tmp_path, config, env={"KEY": "sk-test"}, record=False, delegation=None, clock=clock
        )
        session = build_session(request)
        try:
            for n in range(TURNS):
                assert (await session.driver.submit(f"Question {n}?")).status == "done"
            clock.advance(timedelta(minutes=11))  # the main model's cache has gone cold
            outcome = await session.driver.compact()
            assert outcome is not None and outcome.fallback_status == "used", outcome
            assert outcome.summary_model == "second/m"
            await session.stop()
            assert take_fallback_providers() == []  # the next session builds its own
        finally:
            session.close()
        assert await asyncio.to_thread(server.wait_closed)


@by_wire
async def test_a_stream_cancelled_mid_reply_closes_its_connection(wire: Wire) -> None:
    with LoopbackServer(Reply(parts=wire.opening("Once"), end="stall")) as server:
        provider = wire.provider(server, timeout=5.0, max_retries=0)
        request = ChatRequest(model=wire.model, messages=(Message("user", "A story?"),))
        first = asyncio.Event()

        async def read(events: AsyncIterator[ProviderEvent]) -> None:
            async for event in events:
                if isinstance(event, StreamText):
                    first.set()

        reading = asyncio.ensure_future(read(provider.stream(request)))
        await first.wait()
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        # Closed by the cancelled stream itself: the provider's client is not closed here.
        assert await asyncio.to_thread(server.wait_closed)
        del provider, reading
        assert resource_warnings() == []
