"""Importing a real Gemini CLI session (``data/gemini-cli``, see ``data/README.md``): the
figures equal the file's own ``tokens``, computed here independently of the importer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest

from steiner_tui.cli import main
from steiner_tui.importers.discover import import_paths
from steiner_tui.importers.gemini import import_gemini_session
from steiner_tui.importers.model import LineProblem

GEMINI = Path(__file__).parent / "data" / "gemini-cli" / "session-01.json"


def test_a_gemini_session_by_its_tokens() -> None:
    raw = json.loads(GEMINI.read_text(encoding="utf-8"))
    replies = [m for m in raw["messages"] if m["type"] == "gemini" and "tokens" in m]
    session = import_gemini_session(GEMINI)
    assert (session.id, session.source) == (raw["sessionId"], "gemini-cli")
    assert len(session.requests) == len(replies) == 1
    [request] = session.requests
    tokens = replies[0]["tokens"]
    assert request.context_tokens == tokens["input"] + tokens["tool"] == 4_383
    assert request.cache_read_tokens == tokens["cached"]
    assert request.output_tokens == tokens["output"] + tokens["thoughts"] == 36
    assert request.context_tokens + request.output_tokens == tokens["total"]
    assert request.model == "gemini-2.5-flash"
    assert (session.window.tokens, session.window.trigger) == (1_048_576, 0)
    assert "gemini-*" in session.window.source
    assert not session.problems and not session.unknown_records


def test_gemini_sessions_found_in_their_chats_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = tmp_path / "home" / ".gemini" / "tmp" / "d30f9106" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats / "session-2026-06-05T04-59-dcbe78d3.json")
    result = import_paths([tmp_path / "home" / ".gemini" / "tmp"])
    assert [s.source for s in result.sessions] == ["gemini-cli"] and not result.skipped
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert main(["import", str(chats), "--json"]) == 0
    [saved] = json.loads(capsys.readouterr().out)["sessions"]
    assert saved["source"] == "gemini-cli" and saved["requests"][0]["context_tokens"] == 4_383


def test_bytes_that_are_not_utf8_are_said_with_their_line(tmp_path: Path) -> None:
    """A session with a byte that is not UTF-8 was read with U+FFFD and nothing said; a
    Claude Code or Codex transcript says which line had it."""
    data = GEMINI.read_bytes().replace(b"[REDACTED_ASSISTANT_TEXT]", b"caf\xe9 [REDACTED]", 1)
    damaged = tmp_path / "session.json"
    damaged.write_bytes(data)
    line = data[: data.index(b"caf\xe9")].count(b"\n") + 1
    column = data.index(b"caf\xe9") - data.rindex(b"\n", 0, data.index(b"caf\xe9")) + 3
    session = import_gemini_session(damaged)
    assert [p.said() for p in session.problems] == [
        f"line {line}: 1 byte that is not UTF-8: 0xE9 at column {column} "
        "(kept, each bad byte shown as \ufffd)"
    ]
    assert len(session.requests) == 1


def test_a_message_that_is_not_an_object_is_said_by_its_number_not_a_line(tmp_path: Path) -> None:
    """The messages of a Gemini session are items of one JSON document: the 2nd message was
    said as "line 2", a line of the file that held something else."""
    raw = json.loads(GEMINI.read_text(encoding="utf-8"))
    raw["messages"].insert(1, "not a message")
    damaged = tmp_path / "session.json"
    damaged.write_text(json.dumps(raw, indent=2), encoding="utf-8")
    session = import_gemini_session(damaged)
    assert [p.said() for p in session.problems] == ["message 2: not a JSON object (skipped)"]
    assert len(session.requests) == 1
    [saved] = session.to_json()["problems"]  # as the imported screen reads it back
    assert msgspec.convert(saved, LineProblem).said() == "message 2: not a JSON object (skipped)"
