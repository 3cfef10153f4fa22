"""Error records keep their remedies and where they happened; old logs without them still load."""

from __future__ import annotations

from steiner_tui.app.transcript import ErrorEntry, UserEntry, entries_from_messages
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import Remedy
from steiner_tui.sessions.log_parse import parse_log_bytes
from steiner_tui.sessions.record_values import message_line
from steiner_tui.sessions.records import ErrorRecord, decode_record, encode_record


def _log(*records: object) -> bytes:
    return b"".join(encode_record(r) for r in records)  # type: ignore[arg-type]


def test_an_error_record_round_trips_its_remedies() -> None:
    record = ErrorRecord(
        code="rate_limited", message="429", remedies=(Remedy("wait", "wait, then retry"),)
    )
    (error,) = parse_log_bytes(encode_record(record)).errors
    assert error.remedies == record.remedies


def test_an_old_error_record_loads_without_remedies() -> None:
    old = b'{"type":"error","code":"provider","message":"boom"}'
    record = decode_record(old)
    assert isinstance(record, ErrorRecord) and record.remedies == ()


def test_errors_are_placed_where_they_happened() -> None:
    data = _log(
        message_line([Message("user", "first")], 0),
        ErrorRecord(
            code="rate_limited",
            message="429 [/]",
            remedies=(Remedy("wait", "wait"), {"action": "teleport", "hint": "unknown action"}),
        ),
        message_line([Message("user", "first"), Message("assistant", "answer")], 1),
    )
    state = parse_log_bytes(data)
    assert [p.message for p in state.problems] == ["the log does not start with a header record"]
    (error,) = state.errors
    assert (error.position, error.code, error.message) == (1, "rate_limited", "429 [/]")
    assert error.remedies == (Remedy("wait", "wait"),)  # an action this version lacks is left out
    entries = entries_from_messages(state.active.messages, errors=state.errors)
    assert isinstance(entries[0], UserEntry) and isinstance(entries[1], ErrorEntry)
    assert entries[1].text == "429 [/]"
