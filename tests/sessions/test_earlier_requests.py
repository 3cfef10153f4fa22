"""A resumed session lists its earlier requests from its log (``sessions.earlier_requests``).

* every earlier request is listed with the figures the store listed when it was made (the
  log keeps them all), marked ``logged``, and no hash is computed to list them;
* a request read back has every message hash, and the message wherever the log holds one
  with that hash (never a block message: the log keeps no blocks);
* the reply's usage is kept for the request it answers, folded or as a ``usage`` record, and
  so is why none came (cancelled, or failed), read back as the store reads it live;
* the requests made after the resume follow at the next positions, the first one's cache
  reuse measured against the log's last request, and any two compare as the store's would;
* ``/clear`` starts a session of its own: the saved session's requests stay with it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest.mock import patch

import msgspec

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.engine.cache_causes import FIRST_SINCE_RESUME
from steiner_tui.engine.chain import shared_prefix
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import (
    MessageAppended,
    RequestSnapshot,
    RequestStopped,
    UsageReported,
    WarningEvent,
)
from steiner_tui.engine.messages import Message
from steiner_tui.engine.prices import FREE
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.snapshots import (
    RequestSummary,
    SnapshotStore,
    build_request_snapshot,
    hash_messages,
    prefix_stability,
)
from steiner_tui.engine.tokens.estimate import TokenEstimate
from steiner_tui.sessions.earlier_requests import (
    BLOCKS_SOURCE,
    LoggedRequest,
    LoggedRequests,
    SessionRequests,
    request_sources,
    request_stability,
)
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.records import RequestEntry
from steiner_tui.sessions.request_values import LoggedRecords
from steiner_tui.sessions.writer import SessionLog
from tests.agent.fakes import Reply
from tests.sessions.conftest import SUMMARY, OpenSession
from tests.sessions.test_log_format import _long_session


def _live(harness: Any) -> list[RequestSnapshot]:
    return [e for e in harness.sink.events if isinstance(e, RequestSnapshot)]


def _figures(row: RequestSummary) -> RequestSummary:
    """The row without what only says where it came from."""
    return msgspec.structs.replace(row, logged=False)


async def test_the_log_lists_every_earlier_request_as_the_store_did(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 30)
    live = _live(harness)
    assert len(harness.runner.lineage.generations) > 1  # compacted on the way
    resumed = open_session(resume=harness.session_id, window=6000)
    requests = resumed.session.requests
    assert len(requests) == len(live) and requests.logged == len(live)
    rows = requests.summaries()
    assert all(row.logged for row in rows)
    assert [_figures(row) for row in rows] == list(harness.session.snapshots.summaries())
    assert requests.summaries(3, 5) == rows[3:5]
    assert requests.position_of(live[4].index) == 4


def test_listing_computes_no_hash() -> None:
    records = LoggedRecords()
    hashes = hash_messages([Message("user", "hello")])
    for index in (1, 2):  # the second one's cache cause is read without hashing either
        entry = RequestEntry(
            index=index,
            request_id=f"s-{index}",
            hashes=hashes,
            prompt_bytes=9,
            estimated_prompt_tokens=4,
            model="m",
            usage=(4, 1),
        )
        records.add(entry, (), True)
    with patch.object(Message, "digest", side_effect=AssertionError("hashed")):
        row, _ = LoggedRequests(records, ConversationLineage()).summaries()
    assert row.message_count == 1 and row.logged and row.time is None and row.model == "m"


async def test_a_request_read_back_has_its_hashes_and_the_messages_the_log_holds(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 6)
    live = _live(harness)
    resumed = open_session(resume=harness.session_id, window=6000)
    requests = resumed.session.requests
    for position, snapshot in enumerate(live):
        request = requests.at(position)
        assert isinstance(request, LoggedRequest)
        assert request.message_hashes == snapshot.message_hashes
        assert request.index == snapshot.index and request.time == snapshot.time
        assert request.estimated_prompt_tokens == snapshot.estimated_prompt_tokens
        assert request.blocks_bytes == snapshot.blocks_bytes
        assert request.tools_bytes == snapshot.tools_bytes
        blocks = snapshot.block_message_count
        assert request.messages[:blocks] == (None,) * blocks  # the log keeps no blocks
        assert request_sources(request)[:blocks] == (BLOCKS_SOURCE,) * blocks
        for digest, message in zip(request.message_hashes, request.messages, strict=True):
            assert message is None or message.digest() == digest
        conversation = request.messages[blocks:]
        assert sum(m is not None for m in conversation) >= len(conversation) - 1


async def test_the_usage_of_each_reply_is_kept_with_its_request(
    open_session: OpenSession,
) -> None:
    def reply(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([SUMMARY])
        return Reply(["fine"], prompt_tokens=100 + len(request.messages))

    harness = open_session(on_request=reply)
    for turn in range(3):
        result = await harness.driver.submit(f"turn {turn}")
        assert result.status == "done", result.error
    harness.log.close()
    reported = [e for e in harness.sink.events if isinstance(e, UsageReported)]
    loaded = load_session(harness.session_dir)
    logged = LoggedRequests(loaded.requests, loaded.lineage)
    usages = [logged.at(p).usage for p in range(len(logged))]
    assert [u[0] for u in usages] == [e.prompt_tokens for e in reported]
    assert all(len(u) >= 2 for u in usages)


def test_why_a_request_got_no_usage_is_kept_folded_or_as_a_usage_record(
    tmp_path: Path,
) -> None:
    """Cancelled and held: folded into its request line; failed after another record: a
    ``usage`` record; a request with a usage (as an older log's) reads as not stopped."""
    time = datetime(2026, 9, 13, tzinfo=UTC)
    log, store = SessionLog.create(tmp_path / "s1", clock=lambda: time), SnapshotStore()
    conversation = [Message("user", "hello", turn=1)]
    log.emit(MessageAppended(conversation[0]))
    events: list[Any] = []
    for index in (1, 2, 3):
        events.append(
            build_request_snapshot(
                request_id=f"r-{index}",
                index=index,
                model="m",
                provider="p",
                time=time,
                messages=conversation,
                blocks=(),
                block_message_count=0,
                tools=(),
                max_tokens=4096,
                estimate=TokenEstimate(100, 100, "heuristic", "low"),
            )
        )
        if index == 1:
            events.append(RequestStopped("r-1", streamed_chars=7))
        elif index == 2:
            events.append(WarningEvent("w", "a record between"))
            events.append(RequestStopped("r-2", "p/m: overloaded"))
        else:
            events.append(
                UsageReported(model="m", prompt_tokens=100, completion_tokens=5, request_id="r-3")
            )
    for event in events:
        log.emit(event)
        store.emit(event)
    log.close()
    lines = [
        msgspec.json.decode(line)
        for line in (tmp_path / "s1" / "session.jsonl").read_bytes().splitlines()
    ]
    said = [
        (r["type"], r.get("stopped"), r.get("streamed"))
        for r in lines
        if r["type"] in ("request", "usage")
    ]
    assert said == [
        ("request", "", 7),
        ("request", None, None),
        ("usage", "p/m: overloaded", None),
        ("request", None, None),
    ]
    loaded = load_session(tmp_path / "s1")
    logged = LoggedRequests(loaded.requests, loaded.lineage).summaries()
    live = store.summaries()
    ended = [(r.cancelled, r.error, r.streamed_chars) for r in logged]
    assert ended == [(r.cancelled, r.error, r.streamed_chars) for r in live]
    assert ended == [(True, "", 7), (False, "p/m: overloaded", 0), (False, "", 0)]
    assert [r.cost_usd for r in logged] == [None, None, None]  # no price: unknown
    free = LoggedRequests(loaded.requests, loaded.lineage, lambda model: FREE).summaries()
    assert [r.cost_usd for r in free] == [0.0, 0.0, 0.0]  # a local server's: $0 all the same


async def test_requests_after_the_resume_follow_and_compare_with_earlier_ones(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 4)
    live = _live(harness)
    resumed = open_session(resume=harness.session_id, window=6000)
    result = await resumed.driver.submit("one more")
    assert result.status == "done", result.error
    requests = resumed.session.requests
    assert len(requests) == len(live) + 1
    new = resumed.session.snapshots.latest()
    assert new is not None
    *_, last_logged, first_new = requests.summaries()
    assert last_logged.logged and not first_new.logged
    assert first_new.position == len(live) and first_new.index == new.index
    assert requests.at(len(live)) == new
    earlier = requests.at(len(live) - 1)
    assert request_stability(earlier, new) == prefix_stability(live[-1], new)
    assert request_stability(requests.at(0), earlier) == prefix_stability(live[0], live[-1])


async def test_the_request_before_the_first_new_one_is_the_logs_last_main_one(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 30)
    live = _live(harness)
    resumed = open_session(resume=harness.session_id, window=6000)
    requests = resumed.session.requests
    mains = [s for s in live if not s.compaction]
    first_new = live[-1].index + 1
    found = requests.logged_main_before(first_new, 10)
    assert found is not None and found.index == mains[-1].index
    assert found.message_hashes == mains[-1].message_hashes
    for snapshot in live:  # numbered one after another: found without a table
        assert requests.position_of(snapshot.index) == live.index(snapshot)
    compactions = [s for s in live if s.compaction]
    assert compactions  # the lookback skips compaction requests
    after = compactions[0].index + 1
    found = requests.logged_main_before(after, 10)
    assert found is not None and not found.compaction and found.index < compactions[0].index
    assert requests.logged_main_before(1, 10) is None


def test_a_store_alone_lists_as_the_store() -> None:
    store = SnapshotStore()
    requests = SessionRequests(store)
    assert len(requests) == 0 and requests.summaries() == ()
    assert requests.position_of(1) is None


async def test_clear_leaves_the_saved_sessions_requests_with_it(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 2)
    resumed = open_session(resume=harness.session_id, window=6000)
    assert resumed.session.requests.logged
    resumed.session.clear()
    assert not resumed.session.requests.logged
    resumed.log.close()


def _logged(index: int, hashes: tuple[str, ...], blocks: int = 2) -> LoggedRequest:
    return LoggedRequest(
        index=index,
        request_id=f"s-{index}",
        time=None,
        model="m",
        provider="p",
        generation_id="0",
        compaction=False,
        estimated_prompt_tokens=10,
        raw_prompt_tokens=10,
        estimate_strategy="tiktoken",
        max_tokens=100,
        prompt_bytes=40,
        blocks_bytes=20,
        tools_bytes=0,
        block_message_count=blocks,
        hashes=hashes,
        messages=(None,) * len(hashes),
    )


def test_logged_requests_compare_by_their_hashes() -> None:
    a = _logged(1, ("b0", "b1", "u1"))
    stable = request_stability(a, _logged(2, ("b0", "b1", "u1", "a1", "u2")))
    assert stable.stable and stable.matching == 3
    blocks = request_stability(a, _logged(2, ("b0", "B1", "u1", "a1")))
    assert (blocks.matching, blocks.first_broken, blocks.broken_source) == (1, 1, BLOCKS_SOURCE)
    talk = request_stability(a, _logged(2, ("b0", "b1", "U1")))
    assert (talk.first_broken, talk.broken_source) == (2, "conversation")


class _FewerTools:
    """The runner's tools less the first definition (a tool list that changed)."""

    def __init__(self, tools: Any) -> None:
        self._tools = tools

    def definitions(self) -> Any:
        return self._tools.definitions()[1:]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tools, name)


def _caching_provider(clock: ManualClock) -> Any:
    """Replies whose usage is a prompt cache's: each message 40 tokens, the repeated prefix of
    the request before (same model, same tools, within 5 minutes) read, the rest written; one
    reply gives the provider's own reason."""
    seen: list[tuple[ChatRequest, datetime]] = []

    def reply(request: ChatRequest) -> Reply:
        prompt = 200 + 40 * len(request.messages)
        previous, at = seen[-1] if seen else (None, clock.now())
        seen.append((request, clock.now()))
        read = 0
        if (
            previous is not None
            and (previous.model, previous.tools) == (request.model, request.tools)
            and clock.now() - at < timedelta(minutes=5)
        ):
            shared = shared_prefix(previous.messages, request.messages)
            read = 200 + 40 * shared if shared else 0
        read = min(read, prompt)
        text = SUMMARY if request.compaction else f"answer {len(request.messages)}"
        reason = "messages_changed" if "reason" in request.messages[-1].content else ""
        return Reply([text], prompt_tokens=prompt, cache_read_tokens=read,
                     cache_write_tokens=prompt - read, cache_miss_reason=reason)  # fmt: skip

    return reply


async def test_a_resumed_session_shows_each_earlier_requests_cache_cause_and_cost(
    open_session: OpenSession, clock: ManualClock
) -> None:
    """Request for request, the cause, rewritten tokens and their dollars the live session
    reported are the resumed one's; the log writes a cause beside a usage only where its
    records do not imply it (a tool list changed, a provider's reason)."""
    provider = _caching_provider(clock)
    harness = open_session(model="claude-sonnet-4-5", on_request=provider)
    driver = harness.driver
    long = " lorem ipsum dolor" * 40
    await driver.submit("one" + long)  # first
    driver.toggle_skill("code-review")
    await driver.submit("two" + long)  # kept
    clock.advance(timedelta(minutes=9))
    for text in ("three", "three more", "three again"):  # idle, kept, kept
        await driver.submit(text + long)
    outcome = await driver.compact()
    assert outcome is not None and outcome.applied, outcome
    await driver.submit("four")  # compaction
    main = harness.runner.model
    harness.runner.switch_model(MainModel(main.alias, "claude-haiku-4-5", main.provider, main.info))
    await driver.submit("five")  # model
    harness.runner.tools = _FewerTools(harness.runner.tools)
    await driver.submit("six")  # tools
    await driver.submit("seven, with a reason")  # the provider's reason beside ours
    first_run = list(harness.session.snapshots.summaries())
    harness.log.close()
    causes = [r.cache.cause for r in first_run if r.cache is not None]
    assert causes == [
        *("first", "kept", "idle", "kept", "kept"),
        *("compaction", "model", "tools", "kept"),
    ]
    assert all(r.cache is None for r in first_run if r.compaction)
    assert first_run[-1].cache is not None and first_run[-1].cache.provider_reason

    again = open_session(resume=harness.session_id, model="claude-haiku-4-5", on_request=provider)
    again.runner.tools = _FewerTools(again.runner.tools)
    await again.driver.submit("eight")  # first since the resume
    second_run = list(again.session.snapshots.summaries())
    again.log.close()
    assert second_run[0].cache is not None and second_run[0].cache.detail == FIRST_SINCE_RESUME

    resumed = open_session(resume=harness.session_id, model="claude-haiku-4-5")
    rows = resumed.session.requests.summaries()
    live = [*first_run, *second_run]
    assert [(r.index, r.cache, r.cost_usd) for r in rows] == [
        (r.index, r.cache, r.cost_usd) for r in live
    ]
    assert any(r.cache is not None and r.cache.cost_usd for r in rows)  # a rewrite's dollars
    written = [
        line for line in (harness.session_dir / "session.jsonl").read_bytes().splitlines()
        if b'"cache":' in line
    ]  # fmt: skip
    assert len(written) == 2  # the tool list, the provider's reason
