"""The log format: typed records, linear size, exact request rebuilds, old logs.

* every request record holds only what it added to the one before, and rebuilds
  byte-for-byte into the full record (the delta rules are in ``test_log_deltas``);
* each message is stored once, retained messages of a compaction included;
* a log of an older development version (the fixtures) is refused with a clear message.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest

from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest, ProviderError
from steiner_tui.sessions.errors import SessionLoadError
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.record_values import message_line, message_of_line
from steiner_tui.sessions.records import (
    LOG_VERSION,
    HeaderRecord,
    MessageLine,
    decode_record,
    encode_record,
)
from steiner_tui.sessions.request_values import shared_prefix
from tests.agent.fakes import Reply
from tests.sessions.conftest import SUMMARY, OpenSession

FIXTURES = Path(__file__).parent / "fixtures"


def _full_request(snapshot: RequestSnapshot) -> dict[str, Any]:
    """Every field of ``snapshot``'s request record (every hash, no ``shared``)."""
    return {
        "type": "request",
        "index": snapshot.index,
        "request_id": snapshot.request_id,
        "model": snapshot.model,
        "provider": snapshot.provider,
        "time": msgspec.to_builtins(snapshot.time),
        "hashes": list(snapshot.message_hashes),
        "block_message_count": snapshot.block_message_count,
        "prompt_bytes": snapshot.prompt_bytes,
        "blocks_bytes": snapshot.blocks_bytes,
        "tools_bytes": snapshot.tools_bytes,
        "max_tokens": snapshot.max_tokens,
        "estimated_prompt_tokens": snapshot.estimated_prompt_tokens,
        "raw_prompt_tokens": snapshot.raw_prompt_tokens,
        "estimate_strategy": snapshot.estimate_strategy,
        "compaction": snapshot.compaction,
        "generation": snapshot.generation_id,
    }


def _canonical(record: dict[str, Any]) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":")).encode()


def _lines(directory: Path) -> list[bytes]:
    return (directory / "session.jsonl").read_bytes().splitlines()


async def _long_session(open_session: OpenSession, turns: int) -> Any:
    calls = iter(range(turns))

    def reply(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([SUMMARY])
        last = request.messages[-1]
        if last.role == "user" and (n := next(calls, None)) is not None and n % 3 == 0:
            return Reply(["looking"], [ToolCall(f"c{n}", "read", {"path": "README.md"})])
        return Reply([f"answer {len(request.messages)}"])

    harness = open_session(window=6000, on_request=reply)
    for turn in range(turns):
        result = await harness.driver.submit(f"request {turn}: " + "lorem ipsum dolor " * 30)
        assert result.status == "done", result.error
    harness.log.close()
    return harness


async def test_every_request_rebuilds_byte_for_byte(open_session: OpenSession) -> None:
    harness = await _long_session(open_session, 40)
    live = [e for e in harness.sink.events if isinstance(e, RequestSnapshot)]
    assert len(harness.runner.lineage.generations) >= 3  # compactions happened
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert len(loaded.requests) == len(live)
    for rebuilt, snapshot in zip(loaded.requests, live, strict=True):
        assert rebuilt.exact
        fields = {f: getattr(rebuilt, f, None) for f in _full_request(snapshot)}
        fields.update(type="request", generation=rebuilt.generation_id)
        fields["hashes"] = rebuilt.message_hashes
        assert _canonical(msgspec.to_builtins(fields)) == _canonical(_full_request(snapshot))


async def test_request_records_do_not_grow_with_the_conversation(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 40)
    lines = _lines(harness.session_dir)
    requests = [line for line in lines if line.startswith(b'{"type":"request"')]
    counts = [len(r.hashes) for r in load_session(harness.session_dir).requests]
    assert len(counts) == len(requests)
    assert sorted(counts)[len(counts) // 2] <= 3  # most add a user message and a reply or two
    half = len(requests) // 2
    # Compactions start over with a summary, so the size never follows the conversation.
    assert max(len(line) for line in requests[half:]) <= max(len(line) for line in requests[:half])


async def test_each_message_is_stored_once(open_session: OpenSession) -> None:
    harness = await _long_session(open_session, 40)
    data = (harness.session_dir / "session.jsonl").read_bytes()
    lineage = harness.runner.lineage
    retained = [
        m for g in lineage.generations[1:] for m in g.messages if m.content.startswith("request")
    ]
    assert retained  # compaction kept turns, which the log refers to by index
    for turn in range(40):
        assert data.count(f'"request {turn}: '.encode()) == 1, turn
    loaded = load_session(harness.session_dir)
    assert loaded.lineage == lineage


@pytest.mark.parametrize("name", ["v1_session", "v3_session", "v5_session"])
def test_a_log_of_an_older_version_is_refused_with_a_clear_message(
    name: str, open_session: OpenSession, sessions_base: Path
) -> None:
    sessions_base.mkdir(parents=True)
    if name == "v5_session":  # the last version before this one, with a version 5 tool call
        (sessions_base / name).mkdir()
        (sessions_base / name / "session.jsonl").write_bytes(
            b'{"type":"header","version":5,"session_id":"v5_session"}\n'
            b'{"type":"assistant","tool_calls":[["c1","read",{"path":"a"},""]],"turn":1}\n'
        )
    else:
        shutil.copytree(FIXTURES / name, sessions_base / name)
    version = json.loads(_lines(sessions_base / name)[0])["version"]
    message = (
        f"session '{name}' was written by an older development version of steiner-tui "
        f"(log version {version}; this one reads version {LOG_VERSION}) and cannot be loaded"
    )
    with pytest.raises(SessionLoadError) as raised:
        load_session(sessions_base / name)
    assert str(raised.value) == message
    with pytest.raises(SessionLoadError, match="older development version"):
        open_session(resume=name)


def test_records_round_trip_and_defaults_are_left_out() -> None:
    header = HeaderRecord(version=LOG_VERSION, session_id="s1", alias="a")
    line = encode_record(header)
    assert line == b'{"type":"header","version":%d,"session_id":"s1","alias":"a"}\n' % LOG_VERSION
    assert decode_record(line.rstrip(b"\n")) == header


def test_lone_surrogates_round_trip_through_ascii_escapes() -> None:
    record = message_line([Message("assistant", "x\ud800y")], 0)
    line = encode_record(record)
    assert b"\\ud800" in line
    decoded = decode_record(line.rstrip(b"\n"))
    assert isinstance(decoded, MessageLine)
    assert message_of_line(decoded, ())[0].content == "x\ud800y"


def test_shared_prefix() -> None:
    assert shared_prefix((), ("a",)) == 0
    assert shared_prefix(("a", "b"), ("a", "b", "c")) == 2
    assert shared_prefix(("a", "b", "c"), ("a", "x", "c")) == 1
    assert shared_prefix(("a", "b", "c"), ("a", "b")) == 2
    assert shared_prefix(tuple("abcdefgh"), tuple("abcdefgX")) == 7


async def test_the_log_stays_resumable_after_a_provider_fault(open_session: OpenSession) -> None:
    failure = ProviderError("overloaded", "server overloaded", status=529)
    harness = open_session([Reply(["ok"]), Reply(["half a rep"], error=failure)])
    assert (await harness.driver.submit("first")).status == "done"
    result = await harness.driver.submit("second")
    assert result.status != "done"
    # no close: the app may be killed right after the fault
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert [m.content for m in loaded.lineage.active.messages][:3] == ["first", "ok", "second"]
    harness.log.close()
    resumed = open_session([Reply(["better now"])], resume=harness.session_id)
    assert (await resumed.driver.submit("third")).status == "done"
    resumed.log.close()
    again = load_session(harness.session_dir)
    assert again.problems == ()
    assert again.lineage.active.messages[-1].content == "better now"


def test_a_log_from_a_newer_version_says_so() -> None:
    newer = LOG_VERSION + 1
    header = HeaderRecord(version=newer, session_id="s1", project_root="/p", created=None)
    data = encode_record(header) + b'{"type":"user","content":"hi","turn":1}\n'
    data += b'{"type":"resumed","version":%d}\n' % (newer + 1)
    state = parse_log_bytes(data)
    assert [str(p) for p in state.problems] == [
        f"line 1: written by a newer steiner-tui (log version {newer}; this one reads up to "
        f"{LOG_VERSION}): what it added may be missing or read wrongly",
        f"line 3: written by a newer steiner-tui (log version {newer + 1}; this one reads up "
        f"to {LOG_VERSION}): what it added may be missing or read wrongly",
    ]
    assert [m.content for m in state.active.messages] == ["hi"]


def test_json_errors_name_the_column_once() -> None:
    state = parse_log_bytes(b'{"type":"user","content":"cut')
    assert [str(p) for p in state.problems][-1] == (
        "line 1: not valid JSON (Unterminated string starting at column 26)"
    )
