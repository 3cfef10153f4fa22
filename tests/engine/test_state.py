"""Durable context state: the recent-tool-calls wire format, the file tracker, and read dedup."""

from __future__ import annotations

import json
from typing import Any

import pytest

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state import (
    ContextState,
    FileTracker,
    apply_read_dedup,
    build_context_state,
    dedup_read_result,
    go_sprint,
    line_cap_marker,
    observe_tool_result,
    parse_read_result,
    summarize_recent_tool_calls,
    summarize_tool_call,
)

CWD = "/home/ada/proj"


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(f"id-{name}", name, arguments)


def _one(name: str, cwd: str = CWD, **arguments: Any) -> str:
    return summarize_tool_call(_call(name, **arguments), cwd)


def _assistant(*calls: ToolCall) -> Message:
    return Message("assistant", tool_calls=calls)


# Recent tool calls -----------------------------------------------------------------------------


def test_newest_three_listed_oldest_first() -> None:
    messages = [
        _assistant(_call("glob", pattern="*.py")),
        Message("tool", "x", tool_call_id="id-glob"),
        _assistant(_call("read", path="a.py"), _call("read", path="b.py")),
        Message("user", "go on"),
        _assistant(_call("grep", pattern="TODO")),
    ]
    assert summarize_recent_tool_calls(messages) == [
        "read path=a.py",
        "read path=b.py",
        "grep pattern=TODO",
    ]
    assert summarize_recent_tool_calls(messages, limit=5)[0] == "glob pattern=*.py"
    assert summarize_recent_tool_calls(messages, limit=0) == []
    assert summarize_recent_tool_calls([Message("user", "hi")]) == []


def test_key_order_and_other_keys_ignored() -> None:
    call = _call("read", limit=5, content="zzz", offset=10, path="a.py")
    assert summarize_tool_call(call) == "read path=a.py, offset=10, limit=5"
    assert _one("x", cwd="", command="ls", pattern="p", path="q", cwd_="c") == (
        "x path=q, pattern=p, command=ls"
    )


def test_name_alone_when_no_key_applies() -> None:
    assert summarize_tool_call(ToolCall("1", " write ", {"content": "x"})) == "write"
    assert summarize_tool_call(ToolCall("1", "think", None)) == "think"
    assert _one("read", path="   ") == "read"


def test_relative_paths_are_cleaned_not_cut() -> None:
    assert _one("read", path="./src/../src/a.py") == "read path=src/a.py"
    long = "very/long/" * 8 + "file.py"
    assert _one("read", path=long) == f"read path={long}"


def test_absolute_paths_under_cwd_become_relative() -> None:
    assert _one("read", path=f"{CWD}/src/main.py") == "read path=src/main.py"
    assert _one("glob", path=CWD) == "glob path=."
    assert _one("glob", path=CWD + "/") == "glob path=."


def test_absolute_paths_outside_cwd_become_base_names() -> None:
    assert _one("read", path="/etc/hosts") == "read path=hosts"
    assert _one("read", path="/home/ada/project2/x.py") == "read path=x.py"
    assert _one("read", cwd="", path="/home/ada/proj/x.py") == "read path=x.py"


def test_call_cwd_argument_is_the_root_when_absolute() -> None:
    call = _call("bash", cwd="/srv/app", command="cat /srv/app/log.txt", path="/srv/app/a")
    assert summarize_tool_call(call, CWD) == "bash cwd=., path=a, command=cat log.txt"
    relative = _call("bash", cwd="sub/dir", path=f"{CWD}/a")
    assert summarize_tool_call(relative, CWD) == "bash cwd=sub/dir, path=a"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("  ls   -la\n\tsrc  ", "ls -la src"),
        (f"cd {CWD} && make test", "make test"),
        (f"cd {CWD} ; make test", "make test"),
        ("cd sub || exit 1", "exit 1"),
        ("CD sub && ls", "ls"),
        ("cd sub ; make && make test", "make && make test"),
        ("cd sub&&ls", "cd sub&&ls"),
        ("echo cd x && ls", "echo cd x && ls"),
        (f"pytest {CWD}/tests/test_a.py -q", "pytest tests/test_a.py -q"),
        (f"ls {CWD}", "ls"),
        (f"ls {CWD}/", "ls"),
        (CWD, "."),
        (f"cd /tmp && {CWD}", "."),
    ],
)
def test_bash_command_rules(command: str, expected: str) -> None:
    assert _one("bash", command=command) == f"bash command={expected}"


def test_bash_command_cut_at_80() -> None:
    exact = "echo " + "x" * 75
    assert _one("bash", command=exact) == f"bash command={exact}"
    long = "echo " + "y" * 100
    assert _one("bash", command=long) == f"bash command={long[:80]}..."
    assert _one("Bash", command=f"cd {CWD} && " + long) == f"Bash command={long[:80]}..."


def test_other_values_cut_at_40() -> None:
    exact = "p" * 40
    assert _one("grep", pattern=exact) == f"grep pattern={exact}"
    assert _one("grep", pattern="q" * 41) == f"grep pattern={'q' * 40}..."
    command = "z " * 30
    assert _one("task", command=command) == f"task command={command.strip()[:40]}..."


def test_values_render_like_go() -> None:
    assert _one("read", path="a", offset=10, limit=2.0) == "read path=a, offset=10, limit=2"
    assert [go_sprint(v) for v in (True, None, 1e6, 123456.0, 0.5, 1e-5, [1, "a"])] == [
        "true",
        "<nil>",
        "1e+06",
        "123456",
        "0.5",
        "1e-05",
        "[1 a]",
    ]
    assert go_sprint({"b": 1, "a": "x"}) == "map[a:x b:1]"
    # Whole numbers below 1e6 take a short cut past Decimal: the same digits.
    assert [go_sprint(v) for v in (-5, 999999.0, 120, -999999)] == [
        "-5",
        "999999",
        "120",
        "-999999",
    ]


def test_build_context_state() -> None:
    messages = [_assistant(_call("read", path=f"{CWD}/a.py"))]
    state = build_context_state(messages, 7, CWD)
    assert state == ContextState(recent_tool_calls=("read path=a.py",), turn_count=7)


# File tracker and read dedup --------------------------------------------------------------------


def _read_json(
    path: str = "a.py", start: int = 1, end: int = 3, total: int = 3, **extra: Any
) -> str:
    fields: dict[str, Any] = {
        "path": path,
        "startLine": start,
        "endLine": end,
        "totalLines": total,
        "file_hash": "abc123",
        "output": "   1\tx\n   2\ty\n   3\tz",
    }
    fields.update(extra)
    return json.dumps(fields, separators=(",", ":"))


def _read_turn(call_id: str, content: str, turn: int, *, name: str = "") -> list[Message]:
    call = ToolCall(call_id, "read", {"path": "a.py"})
    return [
        Message("assistant", tool_calls=(call,), turn=turn),
        Message("tool", content, tool_call_id=call_id, name=name, turn=turn),
    ]


def test_tracker_rebuild_records_reads_and_leaves_messages() -> None:
    messages = [
        *_read_turn("r1", _read_json(), 1),
        *_read_turn("r2", _read_json("b.py", 1, 10, 40), 2),
        *_read_turn("r0", _read_json("c.py"), 0),
        *_read_turn("r3", "cannot read d.py: no such file", 3),
        _assistant(ToolCall("g1", "grep", {"pattern": "x"})),
        Message("tool", _read_json("e.py"), tool_call_id="g1", turn=4),
        Message("tool", _read_json("f.py"), name="read", turn=5),
    ]
    before = list(messages)
    tracker = FileTracker.rebuild(messages)
    assert messages == before
    assert sorted(tracker.files()) == ["a.py", "b.py", "f.py"]
    b = next(read for read in reversed(tracker.reads) if read.path == "b.py")
    assert (b.turn, b.start_line, b.end_line, b.total_lines, b.file_hash) == (
        2,
        1,
        10,
        40,
        "abc123",
    )
    assert all(read.path != "c.py" for read in tracker.reads)


def test_dedup_note_for_identical_read() -> None:
    tracker = FileTracker.rebuild(_read_turn("r1", _read_json(), 3))
    assert dedup_read_result(_read_json(), tracker) == (
        "[file unchanged since turn 3: lines 1-3 of 3 in a.py]"
    )
    assert dedup_read_result(_read_json("./a.py"), tracker) == (
        "[file unchanged since turn 3: lines 1-3 of 3 in ./a.py]"
    )


@pytest.mark.parametrize(
    "fresh",
    [
        _read_json(path="b.py"),
        _read_json(start=2),
        _read_json(end=2),
        _read_json(total=4),
        _read_json(file_hash="def456"),
        _read_json(file_hash=""),
        _read_json(capped=True),
        _read_json(output="   1\tx\n" + line_cap_marker(1, 1, 3)),
        "not json",
        '{"error": "x"}',
    ],
)
def test_no_dedup_when_anything_differs(fresh: str) -> None:
    tracker = FileTracker.rebuild(_read_turn("r1", _read_json(), 3))
    assert dedup_read_result(fresh, tracker) is None
    assert apply_read_dedup(fresh, tracker) == fresh


def test_capped_or_hashless_or_noted_priors_are_not_copies() -> None:
    note = "[file unchanged since turn 1: lines 1-3 of 3 in a.py]"
    for prior in (_read_json(capped=True), _read_json(file_hash=""), _read_json(output=note)):
        tracker = FileTracker.rebuild(_read_turn("r1", prior, 2))
        assert dedup_read_result(_read_json(), tracker) is None


def test_dedup_points_at_most_recent_matching_read() -> None:
    messages = [
        *_read_turn("r1", _read_json(), 1),
        *_read_turn("r2", _read_json(file_hash="changed"), 2),
        *_read_turn("r3", _read_json(), 4),
        *_read_turn("r4", _read_json(start=2, end=3), 5),
    ]
    tracker = FileTracker.rebuild(messages)
    assert dedup_read_result(_read_json(), tracker) == (
        "[file unchanged since turn 4: lines 1-3 of 3 in a.py]"
    )


def test_apply_read_dedup_keeps_fields_and_replaces_output() -> None:
    tracker = FileTracker.rebuild(_read_turn("r1", _read_json(), 2))
    annotated = json.loads(apply_read_dedup(_read_json(), tracker))
    assert annotated["output"] == "[file unchanged since turn 2: lines 1-3 of 3 in a.py]"
    assert (annotated["path"], annotated["file_hash"], annotated["totalLines"]) == (
        "a.py",
        "abc123",
        3,
    )
    parsed = parse_read_result(annotated)
    assert parsed is not None and not parsed.is_full_copy


def test_observe_tool_result_passes_other_tools_through() -> None:
    tracker = FileTracker.rebuild(_read_turn("r1", _read_json(), 2))
    assert observe_tool_result("grep", _read_json(), tracker) == _read_json()
    assert observe_tool_result("read", _read_json(), tracker) != _read_json()


def test_a_read_whose_fields_match_no_tracked_read_keeps_its_text_unparsed() -> None:
    tracker = FileTracker.rebuild(_read_turn("r1", _read_json(), 2))
    other = parse_read_result(json.loads(_read_json("b.py")))
    same = parse_read_result(json.loads(_read_json()))
    assert other is not None and same is not None
    # Told by its fields that nothing matches, the text is kept as it is, JSON or not.
    assert observe_tool_result("read", "not parsed", tracker, other) == "not parsed"
    assert observe_tool_result("read", _read_json("b.py"), tracker, other) == _read_json("b.py")
    # Fields that match: the text decides, as without them.
    noted = observe_tool_result("read", _read_json(), tracker, same)
    assert noted == observe_tool_result("read", _read_json(), tracker) != _read_json()
    assert observe_tool_result("read", "not json", tracker, same) == "not json"


def test_record_is_immutable_and_skips_unturned_reads() -> None:
    empty = FileTracker()
    fields = json.loads(_read_json())
    tracked = empty.record(fields, 3)
    assert empty.reads == () and len(tracked.reads) == 1
    assert tracked.record(fields, 0) is tracked
    assert dedup_read_result(fields, tracked) == (
        "[file unchanged since turn 3: lines 1-3 of 3 in a.py]"
    )


def test_matching_reads_are_looked_up_not_scanned_and_older_trackers_stay_right() -> None:
    # 2,500 reads of other files, then the read dedup looks for: the latest match wins, and a
    # tracker extended after its index was built answers as it did before (issue 32).
    tracker = FileTracker()
    for turn in range(1, 2501):
        tracker = tracker.record(json.loads(_read_json(path=f"f{turn}.py")), turn)
    fields = json.loads(_read_json())
    assert dedup_read_result(fields, tracker) is None  # builds the index
    first = tracker.record(fields, 2600)
    second = first.record(fields, 2700)
    assert dedup_read_result(fields, second) == (
        "[file unchanged since turn 2700: lines 1-3 of 3 in a.py]"
    )
    assert dedup_read_result(fields, first) == (
        "[file unchanged since turn 2600: lines 1-3 of 3 in a.py]"
    )
    assert dedup_read_result(fields, tracker) is None
    assert dedup_read_result(json.loads(_read_json(path="f7.py")), second) == (
        "[file unchanged since turn 7: lines 1-3 of 3 in f7.py]"
    )
