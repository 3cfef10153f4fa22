"""The log format: typed records, linear size, exact request rebuilds, old logs.

* every request record holds only what it added to the one before, and rebuilds
  byte-for-byte into the full record a version 1 log would have held (the version 4
  specifics are in ``test_log_version4``);
* each message is stored once, retained messages of a compaction included;
* a version 1 log (the fixture was written by the previous writer) still loads and resumes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest, ProviderError
from steiner_tui.engine.serialize import message_to_dict
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.record_values import message_of, message_record
from steiner_tui.sessions.records import (
    LOG_VERSION,
    HeaderRecord,
    MessageRecord,
    decode_record,
    encode_record,
)
from steiner_tui.sessions.request_values import shared_prefix
from tests.agent.fakes import Reply
from tests.sessions.conftest import SUMMARY, OpenSession

FIXTURE = Path(__file__).parent / "fixtures" / "v1_session"


def _version1_request(snapshot: RequestSnapshot) -> dict[str, Any]:
    """What the version 1 writer wrote for ``snapshot`` (every hash, no ``shared``)."""
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
        assert _canonical(rebuilt.full_record()) == _canonical(_version1_request(snapshot))


async def test_request_records_do_not_grow_with_the_conversation(
    open_session: OpenSession,
) -> None:
    harness = await _long_session(open_session, 40)
    lines = _lines(harness.session_dir)
    requests = [line for line in lines if line.startswith(b'{"type":"request"')]
    counts = [len(r.entry.hashes) for r in load_session(harness.session_dir).requests]
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


def test_a_version_1_log_still_loads(tmp_path: Path) -> None:
    directory = tmp_path / "v1_session"
    shutil.copytree(FIXTURE, directory)
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    loaded = load_session(directory)
    assert loaded.problems == ()
    assert json.loads(_lines(directory)[0])["version"] == 1
    generations = [
        {
            "id": g.id,
            "summary": g.summary,
            "backend_state": g.backend_state,
            "messages": [message_to_dict(m) for m in g.messages],
            "outcome_summary": g.outcome.summary if g.outcome else None,
        }
        for g in loaded.lineage.generations
    ]
    assert generations == expected["generations"]
    requests = [
        {
            "index": r.index,
            "hashes": list(r.message_hashes),
            "prompt_bytes": r.prompt_bytes,
            "compaction": r.compaction,
            "generation": r.generation,
            "max_tokens": r.max_tokens,
            "estimated_prompt_tokens": r.estimated_prompt_tokens,
        }
        for r in loaded.requests
    ]
    assert requests == expected["requests"]  # numbered from 1 as they load (logged from 0)
    last = loaded.last_main_request
    assert [last.provider_alias, last.backend_model, last.prompt_cache_key] == (
        expected["last_main_request"]
    )
    assert loaded.mode == expected["mode"]
    assert [list(t) for t in loaded.skill_toggles] == expected["skill_toggles"]


async def test_a_version_1_log_resumes_and_continues_in_the_current_version(
    open_session: OpenSession, sessions_base: Path
) -> None:
    _install_fixture(sessions_base)
    before = load_session(sessions_base / "v1_session")
    resumed = open_session(resume="v1_session", window=4000)
    result = await resumed.driver.submit("one more question")
    assert result.status == "done", result.error
    resumed.log.close()
    after = load_session(sessions_base / "v1_session")
    assert after.problems == ()
    assert after.lineage == resumed.runner.lineage
    assert (
        after.lineage.generations[: len(before.lineage.generations) - 1]
        == (before.lineage.generations[:-1])
    )
    first_new = len(before.requests)
    assert after.requests[first_new].entry.shared > 0  # relative to the version 1 record


def _install_fixture(sessions_base: Path) -> None:
    sessions_base.mkdir(parents=True)
    shutil.copytree(FIXTURE, sessions_base / "v1_session")
    (sessions_base / "v1_session" / "expected.json").unlink()


def test_records_round_trip_and_defaults_are_left_out() -> None:
    header = HeaderRecord(version=2, session_id="s1", alias="a")
    line = encode_record(header)
    assert line == b'{"type":"header","version":2,"session_id":"s1","alias":"a"}\n'
    assert decode_record(line.rstrip(b"\n")) == header


def test_lone_surrogates_round_trip_through_ascii_escapes() -> None:
    record = message_record(0, Message("assistant", "x\ud800y"))
    line = encode_record(record)
    assert b"\\ud800" in line
    decoded = decode_record(line.rstrip(b"\n"))
    assert isinstance(decoded, MessageRecord)
    assert message_of(decoded.message).content == "x\ud800y"


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
