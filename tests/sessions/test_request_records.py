"""Request records a loaded log keeps give back exactly what was logged.

* a property test over arbitrary records: every field, and every message hash rebuilt from the
  records before (hashes written out or derived from the messages logged since);
* the ids a loaded log holds equal the ids the request records resolve to one after the other;
* a loaded log holds equal message texts once; tool call arguments equal as JSON but not as
  values (``1``, ``1.0``, ``true``) stay apart.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.record_values import message_line, message_of_line
from steiner_tui.sessions.records import (
    LOG_VERSION,
    HeaderRecord,
    MessageLine,
    RequestEntry,
    decode_record,
    encode_record,
)
from steiner_tui.sessions.request_values import RequestRecord, read_request
from tests.sessions.conftest import OpenSession
from tests.sessions.test_log_format import _long_session

FIXTURES = Path(__file__).parent / "fixtures"


class _Shifting(tzinfo):
    """A zone whose offset changes with the date (as a named zone's does)."""

    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=1 if dt is not None and dt.month < 6 else 2)

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return "shifting"


_ZONES: tuple[tzinfo | None, ...] = (
    UTC,
    None,
    timezone(timedelta(hours=2)),
    timezone(timedelta(hours=-5, minutes=-30)),
    _Shifting(),
)
_SETTINGS: tuple[dict[str, Any], ...] = (
    {"model": "m1", "provider": "p", "max_tokens": 4096},
    {"model": "m2", "provider": "p", "compaction": True, "generation_id": "1"},
    {},
)
_ANY_INT = st.one_of(st.integers(0, 10_000), st.integers(-(2**70), 2**70))

_step = st.fixed_dictionaries(
    {
        "index": _ANY_INT,
        "id": st.sampled_from(["derived", "derived", "dashes", "other", "near", ""]),
        "time": st.one_of(
            st.none(),
            st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
        ),
        "zone": st.integers(0, len(_ZONES) - 1),
        "shared": st.integers(0, 6),
        "written": st.booleans(),
        "new": st.integers(0, 3),
        "ints": st.tuples(_ANY_INT, _ANY_INT, _ANY_INT),
        "setting": st.integers(0, len(_SETTINGS) - 1),
        "exact": st.booleans(),
    }
)


def _fields(step: dict[str, Any], count: int, since: list[Message]) -> dict[str, Any]:
    index = step["index"]
    request_id = {
        "derived": f"s-{index}",
        "dashes": f"a-b--{index}",
        "other": f"x{index}",
        "near": f"s-{index}0",
        "": "",
    }[step["id"]]
    time = step["time"]
    if time is not None:
        time = time.replace(tzinfo=_ZONES[step["zone"]])
    prompt_bytes, estimated, raw = step["ints"]
    return {
        "index": index,
        "request_id": request_id,
        "time": time,
        "shared": min(step["shared"], count),
        "hashes": tuple(f"{count:04x}{i:04x}" for i in range(step["new"]))
        if step["written"]
        else None,
        "prompt_bytes": prompt_bytes,
        "estimated_prompt_tokens": estimated,
        "raw_prompt_tokens": raw,
        **_SETTINGS[step["setting"]],
    }


@settings(max_examples=200, deadline=None)
@given(st.lists(_step, min_size=1, max_size=12))
def test_records_give_back_every_hash_exactly(steps: list[dict[str, Any]]) -> None:
    previous: RequestRecord | None = None
    full: list[tuple[str, ...]] = []
    for number, step in enumerate(steps):
        since = [Message("user", f"m{number}-{i}") for i in range(step["new"])]
        count = len(full[-1]) if full else 0
        fields = _fields(step, count, since)
        if fields["hashes"] is None:
            fields["hashes"] = hash_messages(since)
        record = RequestRecord(**fields, exact=step["exact"], previous=previous)
        full.append((full[-1][: record.shared] if full else ()) + tuple(record.hashes))
        assert record.hash_count == len(full[-1])
        assert record.message_hashes == full[-1]
        assert record.exact is step["exact"]
        previous = record


def _resolved_ids(data: bytes) -> list[str]:
    """Each request record's id as the records say it, read one after the other by
    ``read_request``."""
    ids = list[str]()
    previous: RequestRecord | None = None
    for raw in data.splitlines():
        record = decode_record(raw)
        if isinstance(record, RequestEntry):
            previous = read_request(record, previous)
            ids.append(previous.request_id)
    return ids


def _check_ids(directory: Path) -> list[str]:
    loaded = load_session(directory)
    assert loaded.problems == ()
    ids = _resolved_ids((directory / "session.jsonl").read_bytes())
    assert [r.request_id for r in loaded.requests] == ids
    assert all(ids)
    return ids


async def test_ids_equal_the_logged_ones(open_session: OpenSession) -> None:
    harness = await _long_session(open_session, 12)
    ids = _check_ids(harness.session_dir)
    assert _written_ids(harness.session_dir) < len(ids) // 2  # most derived from the one before


def _written_ids(directory: Path) -> int:
    return (directory / "session.jsonl").read_bytes().count(b'"request_id"')


def _write(directory: Path, messages: list[Message]) -> None:
    lines = [encode_record(HeaderRecord(version=LOG_VERSION, session_id=directory.name))]
    lines += [encode_record(message_line(messages, p)) for p in range(len(messages))]
    directory.mkdir()
    (directory / "session.jsonl").write_bytes(b"".join(lines))


def test_a_loaded_log_holds_equal_texts_once_and_typed_arguments_apart(tmp_path: Path) -> None:
    listing = "total 8\n-rw-r--r-- 1 dev dev 120 a.py\n" * 40
    arguments: tuple[dict[str, Any], ...] = (
        {"command": "ls -la"},
        {"command": "ls -la"},
        {"n": 1},
        {"n": 1.0},
        {"n": True},
    )
    messages: list[Message] = []
    for turn, args in enumerate(arguments, start=1):
        call = ToolCall(f"c{turn}", "bash", args)
        messages += [
            Message("user", f"question {turn}", turn=turn),
            Message("assistant", "Looking.", tool_calls=(call,), turn=turn),
            Message("tool", listing, name="bash", tool_call_id=call.id, turn=turn),
        ]
    _write(tmp_path / "texts", messages)
    loaded = load_session(tmp_path / "texts")
    assert loaded.problems == ()
    active = loaded.lineage.active.messages
    assert active == tuple(messages)
    assert active[1].content is active[4].content  # equal texts held once
    assert active[2].content is active[5].content
    calls = [m.tool_calls[0] for m in active if m.tool_calls]
    # Equal as Python values, not as JSON: each keeps its own type.
    assert [type(c.arguments["n"]) for c in calls[2:]] == [int, float, bool]
    assert [m.digest() for m in active] == [m.digest() for m in messages]


def test_arguments_equal_only_as_values_are_not_shared(tmp_path: Path) -> None:
    lines = [encode_record(HeaderRecord(version=LOG_VERSION, session_id="nan")).rstrip(b"\n")]
    for turn, arguments in enumerate(("NaN", "null", "1", "1.0", "true", "NaN"), start=1):
        lines += [
            b'{"type":"user","content":"q%d","turn":%d}' % (turn, turn),
            b'{"type":"assistant","tool_calls":[["c%d","bash",{"a":%s},""]]}'
            % (turn, arguments.encode()),
            b'{"type":"tool","content":"done","tool_call_id":"c%d"}' % turn,
        ]
    directory = tmp_path / "nan"
    directory.mkdir()
    (directory / "session.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    loaded = load_session(directory)
    assert loaded.problems == ()
    alone: list[Message] = []  # each line read on its own, nothing shared
    for line in lines[1:]:
        record = decode_record(line)
        assert isinstance(record, MessageLine)
        alone.append(message_of_line(record, alone)[0])
    active = loaded.lineage.active.messages
    assert active == tuple(alone)
    calls = [m.tool_calls[0] for m in active if m.tool_calls]
    assert [c.arguments_json for c in calls] == [
        c.arguments_json for c in (m.tool_calls[0] for m in alone if m.tool_calls)
    ]
    assert calls[0].arguments is None and calls[1].arguments == {"a": None}
