"""The log format: records that leave out what the records before them say.

* request records leave out fields equal to the previous request's, derive hashes and prompt
  bytes from the messages logged since, fold in their usage and imply the last main request;
  every request still rebuilds byte-for-byte (a property test over arbitrary sequences);
* message records carry the role as their type and the engine's own tool calls; every message
  still round-trips exactly;
* a damaged line before a request record is reported on that record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.snapshots import build_request_snapshot, hash_messages
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.record_values import message_line, message_of_line
from steiner_tui.sessions.records import (
    LastMainRequestRecord,
    MessageLine,
    RequestEntry,
    decode_record,
    encode_record,
)
from steiner_tui.sessions.request_values import RequestRecord, read_request, request_delta
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession
from tests.sessions.test_log_format import _long_session

MESSAGE_TYPES = (b'{"type":"user"', b'{"type":"assistant"', b'{"type":"tool"')


def _lines(directory: Path) -> list[bytes]:
    return (directory / "session.jsonl").read_bytes().splitlines()


async def test_requests_write_only_what_changed(open_session: OpenSession) -> None:
    calls = iter(range(100))

    def reply(request: ChatRequest) -> Reply:
        tokens = len(request.messages) * 100
        if request.messages[-1].role == "user" and next(calls) % 2 == 0:
            call = ToolCall(f"c{len(request.messages)}", "read", {"path": "README.md"})
            return Reply(["looking"], [call], prompt_tokens=tokens)
        return Reply([f"answer {len(request.messages)}"], prompt_tokens=tokens)

    harness = open_session(on_request=reply)
    for turn in range(8):
        assert (await harness.driver.submit(f"question {turn}")).status == "done"
    harness.log.close()
    lines = _lines(harness.session_dir)
    requests = [json.loads(line) for line in lines if line.startswith(b'{"type":"request"')]
    assert "model" in requests[0] and "hashes" in requests[0]
    later = requests[1:]
    assert not any("model" in r or "provider" in r or "max_tokens" in r for r in later)
    assert sum("hashes" in r for r in later) <= len(later) // 4  # derived from the messages
    assert all("usage" in r for r in later if not r.get("compaction"))  # folded in
    assert not any(line.startswith(b'{"type":"usage"') for line in lines)
    assert sum(line.startswith(b'{"type":"last_main_request"') for line in lines) <= 1
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.last_main_request == harness.runner.last_main_request


async def test_a_damaged_line_before_a_request_is_reported_on_it(
    open_session: OpenSession, tmp_path: Path
) -> None:
    harness = await _long_session(open_session, 6)
    lines = _lines(harness.session_dir)
    victim = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant"'))
    request = next(
        i for i in range(victim, len(lines)) if lines[i].startswith(b'{"type":"request"')
    )
    lines[victim] = b"\xff" + lines[victim]
    state = parse_log_bytes(b"\n".join(lines) + b"\n")
    reported = {p.line_number: p.message for p in state.problems}
    assert victim + 1 in reported
    assert "may be inexact" in reported[request + 1]
    assert not state.requests[[r.index for r in state.requests].index(2)].exact


# -- the encoding, property tested ---------------------------------------------------------


@dataclass
class _Estimate:
    tokens: int
    raw_tokens: int
    strategy: str = "heuristic"
    confidence: str = "low"


_ZONES = (UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30)))
_step = st.fixed_dictionaries(
    {
        "new": st.integers(0, 3),
        "drop": st.integers(0, 2),
        "seconds": st.sampled_from([0, 0, 30, 1.5, 0.000001, 86_400, -3]),
        "zone": st.integers(0, len(_ZONES) - 1),
        "compaction": st.booleans(),
        "id": st.sampled_from(["derived", "derived", "other", ""]),
        "model": st.sampled_from(["m1", "m1", "m2", ""]),
        "blocks": st.integers(0, 2),
        "tokens": st.integers(0, 50_000),
        "raw_equal": st.booleans(),
        "bytes_off": st.sampled_from([0, 0, 0, 7]),
        "generation": st.sampled_from(["0", "0", "1", ""]),
    }
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_step, min_size=1, max_size=12))
def test_every_request_sequence_rebuilds_exactly(steps: list[dict[str, Any]]) -> None:
    conversation: list[Message] = []
    time = datetime(2026, 9, 13, 9, 0, tzinfo=UTC)
    written: RequestRecord | None = None
    read: RequestRecord | None = None
    hashes: tuple[str, ...] = ()
    for index, step in enumerate(steps, start=1):
        since = [Message("user", f"m{len(conversation)}-{i}") for i in range(step["new"])]
        if step["drop"] and len(conversation) > step["drop"]:
            del conversation[-step["drop"] :]  # a request that does not extend the one before
        conversation.extend(since)
        time = (time + timedelta(seconds=step["seconds"])).astimezone(_ZONES[step["zone"]])
        tokens = step["tokens"]
        snapshot = build_request_snapshot(
            request_id={"derived": f"s-{index}", "other": f"x{index}", "": ""}[step["id"]],
            index=index,
            model=step["model"],
            provider="p",
            time=time,
            messages=conversation,
            blocks=(),
            block_message_count=step["blocks"],
            tools=(),
            max_tokens=4096,
            estimate=_Estimate(tokens, tokens if step["raw_equal"] else tokens + 1),
            compaction=step["compaction"],
            generation_id=step["generation"],
            prompt_bytes=sum(m.prompt_bytes for m in conversation) + step["bytes_off"],
        )
        entry, written = request_delta(snapshot, written, hashes, since)
        hashes = snapshot.message_hashes
        decoded = decode_record(encode_record(entry).rstrip(b"\n"))
        assert isinstance(decoded, RequestEntry)
        read = read_request(decoded, read, since)
        assert read == written
        assert json.dumps(read.time.isoformat() if read.time else None) == json.dumps(
            snapshot.time.isoformat()
        )  # the same text, offset included
        assert read.hashes == snapshot.message_hashes[read.shared :]


_CONTENTS = (
    '{"path":"a.py","output":"   1\\tx = \\"y\\"\\n"}',
    '{\n  "pretty": true\n}',
    "{not json}",
    '{"a":1} trailing',
    '{"é":"ü","n":[1,2.5,null]}',
    "plain text\nwith lines",
    '{"lone":"\\ud800"}',
    "x\ud800y",
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", "tool", "summary", "system"]),
            st.sampled_from(_CONTENTS) | st.text(max_size=20),
            st.integers(0, 3),
            st.booleans(),
        ),
        max_size=10,
    )
)
def test_every_message_line_round_trips(items: list[tuple[str, str, int, bool]]) -> None:
    messages: list[Message] = []
    read: list[Message] = []
    calls: list[ToolCall] = []
    for role, content, turn, answer in items:
        if role == "assistant":
            calls = [ToolCall(f"c{len(messages)}", "read", {"path": content[:5]})]
            message = Message(role, content, tool_calls=tuple(calls), turn=turn)
        elif role == "tool":
            call = calls[0] if calls and answer else ToolCall("lost", "grep", {})
            message = Message(role, content, name=call.name, tool_call_id=call.id, turn=turn)
        else:
            message = Message(role, content, turn=turn)
        messages.append(message)
        line = encode_record(message_line(messages, len(messages) - 1))
        assert line.count(b"\n") == 1
        decoded = decode_record(line.rstrip(b"\n"))
        assert isinstance(decoded, MessageLine)
        back, _ = message_of_line(decoded, read)
        assert back == message
        assert back.content == message.content
        read.append(back)
    assert hash_messages(read) == hash_messages(messages)


def test_the_last_main_request_is_the_last_logged_or_implied_by_a_main_usage() -> None:
    header = b'{"type":"header","version":8,"prompt_cache_key":"k"}\n'
    main = b'{"type":"request","time":"2026-09-13T09:00:00Z","model":"m1","provider":"p1"}\n'
    usage = b'{"type":"usage","at":"2026-09-13T09:00:05Z","model":"m1","usage":[10,1]}\n'
    summary = b'{"type":"request","model":"m2","provider":"p2","compaction":true,"usage":[5,1]}\n'
    logged = LastMainRequest("x", "y", "z")
    record = encode_record(LastMainRequestRecord(request=logged))
    implied = LastMainRequest("p1", "m1", "k", datetime(2026, 9, 13, 9, 0, 5, tzinfo=UTC))
    for lines, last in (
        ((header, main, usage, summary), implied),  # a compaction's usage implies none
        ((header, main, usage, record, summary), logged),
        ((header, record, main, usage), implied),
        ((header, main, summary), LastMainRequest()),
    ):
        state = parse_log_bytes(b"".join(lines))
        assert (state.problems, state.last_main_request) == ([], last)
