"""Resume reads request records only when asked (``request_values.LoggedRecords``).

* loading, building and pricing a resumed session reads no record: only each line's head;
* a record read later equals the one read when its line was (the first, the last, after a
  damaged line, after a compaction's generation record, in a fork), and what the session
  sent; its head agrees with it;
* the writer reads the log's last record when it writes the next request;
* the session's cost is each model's tokens summed, then priced; a record that shares more
  hashes than the one before has is reported on its line and left out, at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest.mock import patch

import msgspec
import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.prices import ModelPrice, request_cost
from steiner_tui.sessions.earlier_requests import LoggedRequests
from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.records import RequestEntry
from steiner_tui.sessions.request_values import LoggedRecords, RequestHead, RequestRecord
from steiner_tui.sessions.resume import next_request_number
from steiner_tui.sessions.store import SessionStore
from tests.sessions.conftest import OpenSession
from tests.sessions.test_log_format import _long_session

_SENT = (
    "index", "request_id", "time", "model", "provider", "compaction", "generation_id",
    "estimated_prompt_tokens", "max_tokens", "prompt_bytes", "blocks_bytes", "tools_bytes",
    "block_message_count", "message_hashes",
)  # fmt: skip
"""What a record says of the request sent."""


def _sent(request: RequestRecord | RequestSnapshot) -> dict[str, Any]:
    return {f: getattr(request, f) for f in _SENT}


def _live(harness: Any) -> list[RequestSnapshot]:
    return [e for e in harness.sink.events if isinstance(e, RequestSnapshot)]


def _read_at_once(log: bytes) -> list[RequestRecord]:
    """Each record as read right after its line (the log cut there), as a whole-log read
    did before records were read lazily; later lines may only add its usage or stop."""
    lines = log.splitlines(keepends=True)
    cuts = [n for n, line in enumerate(lines, 1) if line.startswith(b'{"type":"request"')]
    read: list[RequestRecord] = []
    for n in cuts:
        records = parse_log_bytes(b"".join(lines[:n])).requests
        if len(records) > len(read):  # not a line left out
            read.append(records[-1])
    return read


def _assert_lazy_reads_as_eager(directory: Path) -> list[RequestRecord]:
    log = (directory / "session.jsonl").read_bytes()
    records = load_session(directory).requests
    read = list(records)
    eager = _read_at_once(log)
    assert len(read) == len(eager) == len(records.heads)
    for lazy, early, head in zip(read, eager, records.heads, strict=True):
        assert _sent(lazy) == _sent(early) and lazy.exact == early.exact
        later = {
            f: getattr(head, f) for f in ("usage", "cache", "cancelled", "error", "streamed_chars")
        }
        assert lazy == msgspec.structs.replace(early, previous=lazy.previous, **later)
        assert msgspec.structs.replace(head, **_head_of(lazy)) == head
    return read


def _head_of(record: RequestRecord) -> dict[str, Any]:
    return {f: getattr(record, f) for f in RequestHead.__struct_fields__}


async def test_resume_reads_no_request_record(open_session: OpenSession) -> None:
    harness = await _long_session(open_session, 8)
    live = _live(harness)
    with patch(
        "steiner_tui.sessions.request_values.read_request",
        side_effect=AssertionError("a record was read"),
    ):
        resumed = open_session(resume=harness.session_id, window=6000)
        loaded = resumed.loaded
        assert loaded is not None and len(loaded.requests) == len(live)
        assert next_request_number(loaded) == live[-1].index + 1
        total = resumed.runner.cache.session_cost
        assert LoggedRequests(loaded.requests, loaded.lineage).cost() == total
        assert resumed.session.requests.position_of(live[-1].index) == len(live) - 1
        resumed.session.preview()
    assert [_sent(r) for r in loaded.requests] == [_sent(s) for s in live]
    resumed.log.close()


async def test_records_read_later_equal_those_read_with_their_line(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 20)
    live = _live(harness)
    assert len(harness.runner.lineage.generations) > 1  # generation records between
    read = _assert_lazy_reads_as_eager(harness.session_dir)
    assert [_sent(r) for r in read] == [_sent(s) for s in live]
    first, last = read[0], read[-1]
    assert first.previous is None and first.shared == 0
    assert last.message_hashes == live[-1].message_hashes


async def test_a_record_after_a_damaged_line_reads_as_it_did(open_session: OpenSession) -> None:
    harness = await _long_session(open_session, 6)
    path = harness.session_dir / "session.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    victim = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant"'))
    lines[victim] = b"\xff" + lines[victim]
    path.write_bytes(b"".join(lines))
    read = _assert_lazy_reads_as_eager(harness.session_dir)
    assert not all(r.exact for r in read)
    problems = load_session(harness.session_dir).problems
    assert any("may be inexact" in p.message for p in problems)


async def test_a_forks_records_read_later_as_they_did(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    source = await _long_session(open_session, 8)
    fork = fork_session(SessionStore(sessions_base), source.session_id, clock=clock.now)
    harness = open_session(resume=fork.session_id, window=6000)
    for turn in range(3):
        result = await harness.driver.submit(f"fork turn {turn}")
        assert result.status == "done", result.error
    harness.log.close()
    read = _assert_lazy_reads_as_eager(fork.directory)
    assert [_sent(r) for r in read] == [_sent(s) for s in _live(harness)]


async def test_the_next_request_is_written_against_the_logs_last(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 6)
    resumed = open_session(resume=harness.session_id, window=6000)
    result = await resumed.driver.submit("after the resume")
    assert result.status == "done", result.error
    resumed.log.close()
    read = _assert_lazy_reads_as_eager(harness.session_dir)
    assert [_sent(r) for r in read] == [_sent(s) for s in (*_live(harness), *_live(resumed))]


def test_the_session_cost_sums_each_models_tokens() -> None:
    records = LoggedRecords()
    usages = [("a", (100, 10)), ("b", (900, 5, 800)), ("a", (100, 20, 50, 70)), ("a", ())]
    usages += [("a", (10, 1, 50)), ("b", (7,))]  # more cached than prompted: clamped alone
    for model, usage in usages:
        records.add(RequestEntry(model=model, usage=usage, hashes=()), (), True)
    prices = {"a": ModelPrice(input=3, output=15, cache_read=0.3, cache_write=3.75)}
    prices["b"] = ModelPrice(input=1, output=2)
    each = [
        request_cost(prices[m], **dict(zip(_TOKENS, (*u, 0, 0, 0)[:4], strict=True)))
        for m, u in usages
        if u
    ]
    total = LoggedRequests(records, ConversationLineage(), prices.get).cost()
    assert total is not None
    assert total.total_usd == pytest.approx(sum(c.total_usd for c in each if c is not None))
    assert LoggedRequests(records, ConversationLineage(), {"a": prices["a"]}.get).cost() is None


_TOKENS = ("prompt_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


async def test_a_record_sharing_too_much_is_reported_and_left_out(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 6)
    path = harness.session_dir / "session.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    requests = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"request"')]
    bad = requests[2]
    lines[bad] = lines[bad].replace(b'{"type":"request"', b'{"type":"request","shared":999', 1)
    path.write_bytes(b"".join(lines))
    loaded = load_session(harness.session_dir)
    [problem] = [p for p in loaded.problems if p.line_number == bad + 1]
    assert "shares 999 hashes with the request before" in problem.message
    assert len(loaded.requests) == len(requests) - 1
    _assert_lazy_reads_as_eager(harness.session_dir)
