"""Fuzz the loader: truncated, corrupted and garbage lines never raise and are each reported."""

from __future__ import annotations

import asyncio
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.messages import ToolCall
from steiner_tui.sessions import log_parse
from steiner_tui.sessions.loader import LOST_TOOL_CALL_NOTE, load_session
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.records import LINE_OF_ROLE, decode_record, decode_records
from steiner_tui.sessions.text_file import TEXT_FILE_NAME
from tests.agent.fakes import Reply
from tests.sessions.conftest import open_test_session


def _is_record(line: bytes) -> bool:
    """Whether ``line`` parses as a JSON object (a candidate record)."""
    try:
        return isinstance(json.loads(line.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False


_corruption = st.one_of(
    st.tuples(st.just("truncate"), st.floats(0.0, 0.99)),
    st.tuples(st.just("garbage"), st.binary(max_size=80).filter(lambda b: b"\n" not in b)),
    st.tuples(st.just("invalid_utf8"), st.integers(0, 10_000)),
    st.tuples(st.just("flip_brace"), st.just(0)),
)


def _corrupt(line: bytes, how: tuple[str, object]) -> bytes:
    kind, value = how
    if kind == "truncate":
        assert isinstance(value, float)
        return line[: int(len(line) * value)] if len(line) > 1 else b"{"
    if kind == "garbage":
        assert isinstance(value, bytes)
        return value
    if kind == "invalid_utf8":
        assert isinstance(value, int)
        at = value % (len(line) + 1)
        return line[:at] + b"\xff\xfe" + line[at:]
    return b"[" + line[1:]


def _sample_log() -> tuple[bytes, bytes]:
    """A real log and its ``session.text``: a skill envelope, a tool call round and its
    answer."""

    async def build(base: Path) -> tuple[bytes, bytes]:
        project = base / "project"
        project.mkdir()
        (project / "README.md").write_text("# Demo\n", encoding="utf-8")
        clock = ManualClock(datetime(2026, 9, 13, 9, 0, tzinfo=UTC))
        call = ToolCall("c1", "read", {"path": "README.md"})
        harness = open_test_session(
            project, base / "sessions", clock, [Reply(["Reading."], [call]), Reply(["A demo."])]
        )
        harness.driver.toggle_skill("code-review")
        await harness.driver.submit("what is this?")
        harness.log.close()
        directory = harness.session_dir
        return (directory / "session.jsonl").read_bytes(), (directory / TEXT_FILE_NAME).read_bytes()

    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(build(Path(tmp)))


SAMPLE, SAMPLE_TEXTS = _sample_log()
SAMPLE_LINES = SAMPLE.split(b"\n")[:-1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.integers(0, len(SAMPLE_LINES) - 1), _corruption, min_size=1, max_size=4))
def test_corrupted_lines_are_each_reported(corruptions: dict[int, tuple[str, object]]) -> None:
    lines = list(SAMPLE_LINES)
    for index, how in corruptions.items():
        lines[index] = _corrupt(lines[index], how)
        assume(not _is_record(lines[index]))
    state = parse_log_bytes(b"\n".join(lines) + b"\n", SAMPLE_TEXTS)
    reported = {p.line_number for p in state.problems}
    assert {index + 1 for index in corruptions} <= reported
    # Problems name only corrupted lines, or the record that depended on a lost one.
    for problem in state.problems:
        assert 1 <= problem.line_number <= len(lines)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    state = parse_log_bytes(data)
    lines = data.split(b"\n")
    count = len(lines) - (1 if lines[-1] == b"" else 0)
    assert all(1 <= p.line_number <= max(count, 1) for p in state.problems)
    assert state.problems  # random bytes never form a log with a header


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.sampled_from(["type", "gen", "message", "id", "x"]), inner)
            ),
            max_leaves=12,
        ),
        max_size=8,
    )
)
def test_json_values_of_any_shape_never_raise(values: list[object]) -> None:
    data = SAMPLE_LINES[0] + b"\n" + b"".join(json.dumps(v).encode() + b"\n" for v in values)
    state = parse_log_bytes(data)
    assert all(p.line_number >= 2 for p in state.problems)


_splice = st.tuples(
    st.sampled_from(["split", "join", "blank", "space", "two"]), st.integers(0, 10**6)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_splice, max_size=4))
def test_a_log_decoded_at_once_reads_as_each_line_on_its_own(
    splices: list[tuple[str, int]],
) -> None:
    """``decode_records`` (one call for the whole log) gives the records a call a line gives,
    or None: a record cut over two lines, two on one line or two lines joined, a blank line,
    spaces after a record never shift a record to another line number."""
    lines = list(SAMPLE_LINES)
    for kind, at in splices:
        index = at % len(lines)
        line = lines[index]
        if kind == "split":
            cut = at % (len(line) + 1)
            lines[index : index + 1] = [line[:cut], line[cut:]]
        elif kind == "join" and index + 1 < len(lines):
            lines[index : index + 2] = [line + lines[index + 1]]
        elif kind == "blank":
            lines.insert(index, b"")
        elif kind == "space":
            lines[index] = line + b" "
        elif kind == "two":
            lines[index] = line + b" " + line
    records = decode_records(b"\n".join(lines) + b"\n")
    if records is not None:
        assert records == [decode_record(line) for line in lines]


def test_a_log_decoded_at_once_keeps_each_record_on_its_line() -> None:
    """As many values as lines is not enough: one line holding two records and one record
    over two lines make the count, and the log is read a line at a time."""
    header, message = SAMPLE_LINES[0], SAMPLE_LINES[1]
    assert decode_records(header + b"\n" + message + b"\n") == [
        decode_record(header),
        decode_record(message),
    ]
    cut = message.index(b",") + 1
    shifted = [header + b" " + message, message[:cut], message[cut:]]
    assert decode_records(b"\n".join(shifted) + b"\n") is None
    state = parse_log_bytes(b"\n".join(shifted) + b"\n")
    assert {p.line_number for p in state.problems} >= {1, 2, 3}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.integers(0, len(SAMPLE_LINES) - 1), _corruption, max_size=3),
    st.integers(1, 400),
)
def test_a_log_read_in_blocks_reads_as_one_block(
    corruptions: dict[int, tuple[str, object]], block: int
) -> None:
    """Blocks of whole lines, each decoded at once or (one with a bad line) a line at a time,
    number the lines and apply the records as the whole log in one block does."""
    lines = list(SAMPLE_LINES)
    for index, how in corruptions.items():
        lines[index] = _corrupt(lines[index], how)
    data = b"\n".join(lines) + b"\n"
    whole = parse_log_bytes(data, SAMPLE_TEXTS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(log_parse, "_BLOCK", block)
        blocks = parse_log_bytes(data, SAMPLE_TEXTS)
    assert blocks.problems == whole.problems
    assert blocks.active.messages == whole.active.messages
    assert blocks.message_lines == whole.message_lines
    assert blocks.records == whole.records


def test_deeply_nested_json_is_a_problem_not_a_crash() -> None:
    data = SAMPLE_LINES[0] + b"\n" + b"[" * 100_000 + b"\n"
    state = parse_log_bytes(data)
    assert [p.line_number for p in state.problems] == [2]


def _is_message_line(line: bytes) -> bool:
    return line.startswith(tuple(b'{"type":"%s"' % role.encode() for role in LINE_OF_ROLE))


def test_intact_lines_still_load_around_corruption(tmp_path: Path) -> None:
    directory = tmp_path / "s1"
    directory.mkdir()
    lines = list(SAMPLE_LINES)
    messages = [i for i, line in enumerate(lines) if _is_message_line(line)]
    victim = messages[1]
    lines[victim] = lines[victim][:10]
    (directory / "session.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    (directory / TEXT_FILE_NAME).write_bytes(SAMPLE_TEXTS)
    loaded = load_session(directory)
    # The lost line is the assistant's tool call: its result would be an orphan, so the call is
    # restored as lost right before it, and both are reported.
    orphan = messages[2]
    assert [p.line_number for p in loaded.problems] == [victim + 1, orphan + 1]
    assert "restored as lost" in loaded.problems[1].message
    active = loaded.lineage.active.messages
    assert len(active) == len(messages)
    assert active[1].role == "assistant" and active[1].content == LOST_TOOL_CALL_NOTE
    assert [c.id for c in active[1].tool_calls] == [active[2].tool_call_id]
    assert loaded.rewritten
