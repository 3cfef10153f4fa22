"""Telling a transcript's format from the shape of its records, on files real agents wrote.

A ``sessionId`` alone is no Claude Code record: Gemini CLI's session object carries one, and
written on one line (as Gemini CLI's JSONL sessions begin) it was taken for Claude Code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steiner_tui.cli import main
from steiner_tui.importers.claude import is_claude_record
from steiner_tui.importers.discover import UNKNOWN_FORMAT, import_paths, kind_of

DATA = Path(__file__).parent / "data"
GEMINI = DATA / "gemini-cli" / "session-01.json"
PI = DATA / "pi" / "session-01.jsonl"
CODEX = DATA / "codex-0.135.0" / "rollout-019e9625-802f-7e91-840a-cfe88d14117a.jsonl"
CLAUDE = DATA / "claude-code-1.0.108" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def test_a_gemini_session_object_is_no_claude_record() -> None:
    record = json.loads(GEMINI.read_text(encoding="utf-8"))
    assert "sessionId" in record
    assert not is_claude_record(record)


def test_each_format_by_its_shape(tmp_path: Path) -> None:
    one_line = tmp_path / "gemini-one-line.jsonl"  # the same object, on one line
    one_line.write_text(json.dumps(json.loads(GEMINI.read_text(encoding="utf-8"))) + "\n")
    assert kind_of(one_line) == kind_of(GEMINI) == "gemini-cli"
    assert kind_of(PI) == ""
    assert kind_of(CODEX) == "codex"
    assert kind_of(CLAUDE) == "claude-code"


def test_an_unknown_format_is_named_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    result = import_paths([PI])
    assert not result.sessions
    assert result.skipped == ((str(PI), UNKNOWN_FORMAT),)
    assert UNKNOWN_FORMAT.startswith("unknown format: not a Claude Code session")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert main(["import", str(PI)]) == 0
    assert f"skipped {PI}: unknown format" in capsys.readouterr().err


def test_a_record_type_newer_than_the_importer_does_not_hide_the_format(tmp_path: Path) -> None:
    copy = tmp_path / CLAUDE.name
    newer = json.dumps({"type": "brand-new-record", "sessionId": "x"})
    copy.write_text(newer + "\n" + CLAUDE.read_text(encoding="utf-8"), encoding="utf-8")
    assert kind_of(copy) == "claude-code"
