"""Named cache causes over the Anthropic wire: the loopback server reports cache reads and
writes, the real SDK and runner send each request, and every usage event carries its cost, the
session's total and the cause its bytes and times show."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.model import MainModel
from steiner_tui.engine.events import UsageReported
from steiner_tui.engine.prompt.static_cache import StaticPartition
from steiner_tui.providers.anthropic_provider import AnthropicProvider
from tests.providers.loopback import LoopbackServer, Reply, sse
from tests.providers.protocols import AnthropicWire, block_start, block_stop, message_end, text
from tests.providers.protocols import message_start as start
from tests.providers.sessions import LoggedSession, Sessions

WIRE = AnthropicWire()
MODEL = "claude-sonnet-4-6"
WRITE = 3.75 / 1e6
"""Sonnet's 5-minute cache write, dollars per token."""


def reply(read: int, write: int, word: str = "ok") -> Reply:
    return Reply(
        parts=[
            start(25, read, write),
            block_start(0, {"type": "text", "text": ""}),
            text(0, word),
            block_stop(0),
            *message_end("end_turn", 12),
        ]
    )


@pytest.fixture
async def sessions(tmp_path: Path) -> AsyncIterator[Sessions]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Use tabs.\n", encoding="utf-8")
    opened = Sessions(project, tmp_path / "sessions")
    yield opened
    await opened.close()


def open_session(sessions: Sessions, server: LoopbackServer) -> LoggedSession:
    return sessions.open(WIRE.provider(server, timeout=5.0, max_retries=0), MODEL)


def usages(session: LoggedSession) -> list[UsageReported]:
    return session.events(UsageReported)


async def test_a_toggled_skill_keeps_the_cache_and_costs_are_summed(sessions: Sessions) -> None:
    with LoopbackServer(reply(0, 41_800), reply(41_800, 700)) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        session.driver.toggle_skill("code-review")
        await session.driver.submit("again")
    first, second = usages(session)
    assert first.cache is not None and first.cache.cause == "first"
    assert second.cache is not None
    assert (second.cache.cause, second.cache.rewritten_tokens) == ("kept", 0)
    assert second.cache.detail == "appends after the conversation: cache kept"
    assert first.cost is not None and first.cost_usd is not None
    assert first.cost.cache_write_usd == pytest.approx(41_800 * WRITE)
    assert second.session_cost_usd == pytest.approx(first.cost_usd + (second.cost_usd or 0))


async def test_an_edited_agents_md_applied_at_compaction_is_named(sessions: Sessions) -> None:
    summary = reply(0, 0, "## Summary\nWe said hello.")
    turns = (reply(0, 41_000), reply(41_000, 400), reply(41_400, 400))
    with LoopbackServer(*turns, summary, reply(0, 9_000)) as server:
        session = open_session(sessions, server)
        for words in ("hello", "and more", "and the last"):  # more than the summary of them
            await session.driver.submit(f"{words}, " + "with the details of the task " * 8)
        (sessions.project / "AGENTS.md").write_text("Use spaces.\n", encoding="utf-8")
        session.runner.context.mark_changed([StaticPartition.AGENTS])
        await session.driver.compact()
        await session.driver.submit("again")
    last = usages(session)[-1]
    assert last.cache is not None
    assert last.cache.cause == "source"
    assert last.cache.detail.startswith("AGENTS.md changed (applied at the compaction")
    # Of the 41,800 tokens cached, the compacted request wrote again only its own 9,025: the
    # rest was dropped, not paid for again (it said 41,800, $0.16, for a $0.03 request).
    assert last.cache.rewritten_tokens == last.prompt_tokens == 9_025
    assert last.cache.cost_usd == pytest.approx(9_025 * WRITE)
    assert last.cost_usd is not None and last.cache.cost_usd <= last.cost_usd


async def test_a_model_switch_rewrites_the_cache(sessions: Sessions) -> None:
    with LoopbackServer(reply(0, 41_800), reply(0, 42_600)) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        provider = session.provider
        haiku = MainModel(provider.alias, "claude-haiku-4-5", provider, provider.model_info(MODEL))
        session.runner.switch_model(haiku)
        await session.driver.submit("again")
    last = usages(session)[-1]
    assert last.cache is not None
    assert last.cache.cause == "model"
    assert "claude-sonnet-4-6 → claude-haiku-4-5" in last.cache.detail
    assert last.cache.cost_usd == pytest.approx(41_800 * 1.25 / 1e6)


def switch(session: LoggedSession, model: str) -> None:
    provider = session.provider
    info = provider.model_info(model)
    session.runner.switch_model(MainModel(provider.alias, model, provider, info))


async def test_back_on_a_model_its_own_cache_is_the_baseline(sessions: Sessions) -> None:
    """A cache belongs to one model: Sonnet's request after a Haiku question (Sonnet's cache
    still warm) is explained against Sonnet's last request, and a resume says the same."""
    replies = (reply(0, 41_800), reply(0, 42_000), reply(41_800, 900), reply(0, 43_000))
    with LoopbackServer(*replies) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        switch(session, "claude-haiku-4-5")
        await session.driver.submit("a quick question")
        switch(session, MODEL)
        await session.driver.submit("back to it")
        switch(session, "claude-haiku-4-5")
        sessions.clock.advance(timedelta(minutes=7))
        switch(session, MODEL)
        await session.driver.submit("after a break")
        session.close_log()
    causes = [u.cache for u in usages(session)]
    assert [(c.cause, c.rewritten_tokens) for c in causes if c is not None] == [
        ("first", 0),
        ("model", 41_800),
        ("kept", 0),
        ("idle", 42_700),
    ]
    with LoopbackServer(reply(43_000, 300)) as server:
        resumed = sessions.open(
            WIRE.provider(server, timeout=5.0, max_retries=0), MODEL, resume=session.session_id
        )
        await resumed.driver.submit("and on")
    logged = [row.cache for row in resumed.session.requests.summaries() if row.logged]
    assert logged[1:] == causes[1:]
    earlier = resumed.session.requests.earlier
    assert earlier is not None
    assert [record.cache for record in earlier.records] == [None] * 4  # the records imply them


async def test_an_idle_gap_past_the_ttl_is_named(sessions: Sessions) -> None:
    with LoopbackServer(reply(0, 41_800), reply(0, 42_600)) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        sessions.clock.advance(timedelta(minutes=7))
        await session.driver.submit("again")
    last = usages(session)[-1]
    assert last.cache is not None
    assert (last.cache.cause, last.cache.rewritten_tokens) == ("idle", 41_800)
    assert last.cache.detail == "idle 7 min > 5 min TTL: the cache expired"


async def test_an_identical_prefix_the_provider_did_not_reuse(sessions: Sessions) -> None:
    with LoopbackServer(reply(0, 41_800), reply(0, 42_600)) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        sessions.clock.advance(timedelta(seconds=30))
        await session.driver.submit("again")
    last = usages(session)[-1]
    assert last.cache is not None
    assert last.cache.cause == "provider"
    assert last.cache.detail == "prefix identical: the provider did not reuse it"
    assert last.cache.cost_usd == pytest.approx(41_800 * WRITE)


async def test_the_providers_own_reason_is_shown_beside_ours(sessions: Sessions) -> None:
    diagnosed = reply(0, 42_600)
    started = json.loads(diagnosed.parts[0].decode().split("data: ", 1)[1])
    started["message"]["diagnostics"] = {
        "cache_miss_reason": {"type": "tools_changed", "cache_missed_input_tokens": 41_800}
    }
    diagnosed.parts[0] = sse("message_start", started)
    with LoopbackServer(reply(0, 41_800), diagnosed) as server:
        session = open_session(sessions, server)
        await session.driver.submit("hello")
        await session.driver.submit("again")
    last = usages(session)[-1]
    assert last.cache_miss_reason == "tools_changed"
    assert last.cache is not None
    assert (last.cache.cause, last.cache.provider_reason) == ("provider", "tools_changed")
    assert last.cache.disagrees


async def test_each_request_asks_for_the_diagnostics_against_the_previous_message(
    sessions: Sessions,
) -> None:
    with LoopbackServer(reply(0, 41_800), reply(41_800, 700)) as server:
        provider = AnthropicProvider(
            "anthropic", "sk-ant-test", server.url, max_retries=0, diagnostics=True
        )
        session = sessions.open(provider, MODEL)
        await session.driver.submit("hello")
        await session.driver.submit("again")
        bodies = [r.body for r in server.requests]
    assert [b["diagnostics"] for b in bodies] == [
        {"previous_message_id": None},
        {"previous_message_id": "msg_01"},  # the id message_start gave
    ]


def test_only_anthropics_own_endpoint_is_asked_by_default() -> None:
    assert AnthropicProvider("anthropic", "k", None).asks_for_diagnostics
    assert not AnthropicProvider("anthropic", "k", "http://127.0.0.1:9").asks_for_diagnostics


async def test_the_session_total_holds_summary_calls_and_a_resumed_sessions_requests(
    sessions: Sessions,
) -> None:
    summary = Reply(
        parts=[
            start(9_000, 0, 0),
            block_start(0, {"type": "text", "text": ""}),
            text(0, "## Summary\nWe said hello."),
            block_stop(0),
            *message_end("end_turn", 300),
        ]
    )
    turns = (reply(0, 41_000), reply(41_000, 400), reply(41_400, 400))
    with LoopbackServer(*turns, summary, reply(0, 2_000)) as server:
        session = open_session(sessions, server)
        for words in ("hello", "and more", "and the last"):
            await session.driver.submit(words)
        await session.driver.compact()
        await session.driver.submit("again")
        session.close_log()
    *main, summarized, last = usages(session)
    assert summarized.cache is None  # no turn of the conversation: no cause
    # Sonnet: 9,000 uncached input at $3/M and 300 output at $15/M.
    assert summarized.cost_usd == pytest.approx((9_000 * 3 + 300 * 15) / 1e6)
    assert summarized.session_cost_usd == pytest.approx(
        sum(u.cost_usd or 0 for u in (*main, summarized))
    )
    total = last.session_cost_usd
    assert total == pytest.approx(sum(u.cost_usd or 0 for u in (*main, summarized, last)))

    with LoopbackServer(reply(2_025, 500)) as server:
        resumed = sessions.open(
            WIRE.provider(server, timeout=5.0, max_retries=0), MODEL, resume=session.session_id
        )
        await resumed.driver.submit("and on")
    (after,) = usages(resumed)
    assert after.session_cost_usd == pytest.approx((total or 0) + (after.cost_usd or 0))


async def test_a_resumed_sessions_logged_requests_reuse_what_the_cache_read(
    sessions: Sessions,
) -> None:
    """The inspector's cache reuse of a request read from the log is the share of its prompt
    the provider read from cache, as it was live (it was the share of its messages)."""
    with LoopbackServer(reply(0, 41_000), reply(41_000, 400), reply(0, 41_600)) as server:
        session = open_session(sessions, server)
        for words in ("hello", "and more", "and the last"):
            await session.driver.submit(words)
        session.close_log()
    live = [row.reuse for row in session.session.requests.summaries()]
    assert live == [0.0, 41_000 / 41_425, 0.0]
    with LoopbackServer(reply(41_600, 300)) as server:
        resumed = sessions.open(
            WIRE.provider(server, timeout=5.0, max_retries=0), MODEL, resume=session.session_id
        )
        await resumed.driver.submit("and on")
    rows = resumed.session.requests.summaries()
    assert [row.logged for row in rows] == [True, True, True, False]
    assert [row.reuse for row in rows] == [*live, 41_600 / 41_925]
