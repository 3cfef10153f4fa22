"""Damaged transcripts: any value of any type where a field was, and the import still reads.

Copies of the real transcripts (Claude Code's from the shared fixtures, Codex's from
``data/``) have values in some lines replaced by values of other types (a number for the
content, a string for the usage, a list for the message...). The import, the sub-agent
discovery and the conversation view never raise; a line they could not use is reported by its
number, and every other line is read as before.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from steiner_tui.importers.discover import import_paths
from steiner_tui.importers.transcript import read_conversation
from tests.importers.test_claude_fixtures import SESSIONS

CODEX = Path(__file__).parent / "data" / "codex-0.169.0-compact.rollout.jsonl"
ODD_VALUES = st.sampled_from([42, -7, 1.5e308, "text", None, True, [1, "a"], {"k": [None]}, []])


def _paths(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The paths to the values inside ``value`` (keys and indexes) down to three levels, where
    the fields an importer reads are (``message.content``, ``payload.info.last_token_usage``)."""
    out: list[tuple[str | int, ...]] = []
    if isinstance(value, (dict, list)) and len(prefix) < 3:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, inner in items:
            out.append((*prefix, key))
            out.extend(_paths(inner, (*prefix, key)))
    return out


def _replace(record: dict[str, Any], path: tuple[str | int, ...], new: Any) -> None:
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new


def _damaged(source: Path, picks: list[tuple[int, int, Any]]) -> list[str]:
    """``source``'s lines, each pick replacing one value (``which`` of its paths) of a line."""
    lines = source.read_text(encoding="utf-8").splitlines()
    for line_pick, which, new in picks:
        index = line_pick % len(lines)
        record = json.loads(lines[index])
        paths = _paths(record)
        if paths:
            _replace(record, paths[which % len(paths)], new)
        lines[index] = json.dumps(record)
    return lines


PICKS = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 10_000), ODD_VALUES), min_size=1, max_size=8
)


def _sources() -> list[Path]:
    return [*SESSIONS[:1], CODEX]


@pytest.mark.parametrize("source", _sources(), ids=lambda p: p.name[:20])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(picks=PICKS)
def test_values_of_other_types_never_stop_an_import(
    source: Path, picks: list[tuple[int, int, Any]]
) -> None:
    lines = _damaged(source, picks)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / source.name
        copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = import_paths([copy])
        for session in result.sessions:
            read_conversation(Path(session.path), session.source)
            assert all(1 <= p.line <= len(lines) for p in session.problems)


def test_a_line_nested_too_deeply_is_reported_not_raised(tmp_path: Path) -> None:
    lines = SESSIONS[0].read_text(encoding="utf-8").splitlines()
    copy = tmp_path / SESSIONS[0].name
    copy.write_text("\n".join([lines[0], "[" * 100_000, *lines[1:]]) + "\n", encoding="utf-8")
    (session,) = import_paths([copy]).sessions
    assert [(p.line, p.message) for p in session.problems] == [
        (2, "JSON nested too deeply to read")
    ]
    assert read_conversation(copy, session.source)


def test_a_content_of_another_type_is_reported_by_its_line(tmp_path: Path) -> None:
    lines = SESSIONS[0].read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if '"type":"assistant"' in line)
    record = json.loads(lines[index])
    record["message"]["content"] = 42
    record["message"]["usage"] = "lots"
    lines[index] = json.dumps(record)
    copy = tmp_path / SESSIONS[0].name
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (damaged,) = import_paths([copy]).sessions
    (whole,) = import_paths([SESSIONS[0]]).sessions
    assert [(p.line, p.message) for p in damaged.problems] == [
        (index + 1, "unreadable assistant record: its content is a number, not a list")
    ]
    # That line's request is not counted; every other one is, as in the whole file.
    assert len(damaged.requests) >= len(whole.requests) - 1
    assert damaged.requests[-1] == whole.requests[-1]
