"""Importing the real Claude Code transcripts: the figures equal sums of the raw usage fields.

The fixtures (``/work/shared/fixtures/claude-code``, or ``$STEINER_CLAUDE_FIXTURES``) are read in
place, never written; the tests that edit one copy it to a temporary folder first. The expected
figures are computed here from the JSONL directly, independently of the importer.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.cli import main
from steiner_tui.importers.claude import import_claude_session

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
SESSIONS = sorted(FIXTURES.glob("*.jsonl"))


def raw_figures(path: Path) -> dict[str, Any]:
    """Per request id: the input side once (first line), output from the last line."""
    first: dict[str, dict[str, Any]] = {}
    last_output: dict[str, int] = {}
    boundaries: list[dict[str, Any]] = []
    summaries: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "assistant" and "usage" in record.get("message", {}):
            message = record["message"]
            if message.get("model") == "<synthetic>":
                continue
            key = record.get("requestId") or message["id"]
            first.setdefault(key, dict(message["usage"], model=message["model"]))
            last_output[key] = message["usage"]["output_tokens"]
        elif record.get("subtype") == "compact_boundary":
            boundaries.append(record["compactMetadata"])
        elif record.get("isCompactSummary"):
            content = record["message"]["content"]
            summaries.append(content if isinstance(content, str) else content[0]["text"])
    context = [
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        for u in first.values()
    ]
    return {
        "requests": len(first),
        "context": sum(context),
        "context_list": context,
        "cache_read": sum(u["cache_read_input_tokens"] for u in first.values()),
        "output": sum(last_output.values()),
        "models": [u["model"] for u in first.values()],
        "boundaries": boundaries,
        "summaries": summaries,
    }


def test_the_fixtures_are_there() -> None:
    assert len(SESSIONS) == 3, f"expected the three fixture sessions in {FIXTURES}"


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem[:8])
def test_import_equals_the_raw_sums(path: Path) -> None:
    expected = raw_figures(path)
    session = import_claude_session(path)
    assert len(session.requests) == expected["requests"]
    assert [r.context_tokens for r in session.requests] == expected["context_list"]
    assert sum(r.context_tokens for r in session.requests) == expected["context"]
    assert sum(r.cache_read_tokens for r in session.requests) == expected["cache_read"]
    assert sum(r.output_tokens for r in session.requests) == expected["output"]
    assert [r.model for r in session.requests] == expected["models"]
    assert [(g.trigger, g.pre_tokens) for g in session.generations] == [
        (b["trigger"], b["preTokens"]) for b in expected["boundaries"]
    ]
    assert [g.summary for g in session.generations] == expected["summaries"]
    assert session.generations[0].summary.startswith("This session is being continued")
    assert not session.problems and not session.unknown_records


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem[:8])
def test_subagents_linked_to_their_task_call(path: Path) -> None:
    session = import_claude_session(path)
    folder = path.with_suffix("") / "subagents"
    files = {p.stem for p in folder.glob("agent-*.jsonl")}
    assert {a.id for a in session.subagents} == {f for f in files if "acompact" not in f}
    assert {a.id for a in session.own_calls} == {f for f in files if "acompact" in f}
    assert not session.warnings
    for agent in (*session.subagents, *session.own_calls):
        expected = raw_figures(Path(agent.path))
        assert sum(r.context_tokens for r in agent.requests) == expected["context"]
        assert agent.link is not None
        if agent.id.startswith("agent-acompact"):
            assert agent.link.tool == "compaction"
            continue
        assert agent.link.tool == "Task" and agent.link.tool_use_id.startswith("toolu_")
        parent_lines = path.read_text(encoding="utf-8")
        assert f'"id":"{agent.link.tool_use_id}"' in parent_lines.replace(" ", "")


def test_missing_and_orphaned_subagent_files_are_reported(tmp_path: Path) -> None:
    """A sub-agent the session started whose file is gone, and a file nobody started."""
    source = SESSIONS[0]
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    shutil.copytree(source.with_suffix(""), copy.with_suffix(""))
    folder = copy.with_suffix("") / "subagents"
    started = next(p for p in folder.glob("agent-*.jsonl") if "acompact" not in p.name)
    started.rename(folder / "agent-orphan1.jsonl")
    session = import_claude_session(copy)
    agent = started.stem.removeprefix("agent-")
    assert len(session.warnings) == 2
    assert session.warnings[0].startswith("sub-agent transcript agent-orphan1.jsonl: no tool call")
    assert session.warnings[1].startswith(f"sub-agent {agent} (started by Task toolu_")
    assert session.warnings[1].endswith(f"{started} is missing")


def test_ranking_groups_tool_results_by_file_and_command() -> None:
    session = import_claude_session(SESSIONS[0])
    assert session.ranking
    sizes = [row.bytes for row in session.ranking]
    assert sizes == sorted(sizes, reverse=True)
    assert any(row.tool == "Read" and row.target.startswith("/") for row in session.ranking)


def test_unknown_records_and_malformed_lines_are_reported(tmp_path: Path) -> None:
    copy = tmp_path / SESSIONS[0].name
    shutil.copy(SESSIONS[0], copy)
    lines = copy.read_text(encoding="utf-8").splitlines()
    lines.insert(3, "{not json")
    lines.insert(5, json.dumps({"type": "brand-new-record", "sessionId": "x"}))
    copy.write_text("\n".join(lines) + "\n", encoding="utf-8")
    session = import_claude_session(copy)
    assert [(p.line, p.message.split(":")[0]) for p in session.problems] == [(4, "not JSON")]
    assert dict(session.unknown_records) == {"brand-new-record": 1}
    assert len(session.requests) == raw_figures(SESSIONS[0])["requests"]


def test_import_command_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert main(["import", str(FIXTURES), "--json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert [s["id"] for s in sessions] == [p.stem for p in SESSIONS]
    for data, path in zip(sessions, SESSIONS, strict=True):
        expected = raw_figures(path)
        assert sum(r["context_tokens"] for r in data["requests"]) == expected["context"]
        assert sum(r["cache_read_tokens"] for r in data["requests"]) == expected["cache_read"]
        assert sum(r["output_tokens"] for r in data["requests"]) == expected["output"]
        assert set(data["requests"][0]) >= {
            "context_tokens",
            "cache_read_tokens",
            "output_tokens",
            "model",
            "time",
        }
        assert [(g["trigger"], g["pre_tokens"]) for g in data["generations"]] == [
            (b["trigger"], b["preTokens"]) for b in expected["boundaries"]
        ]
        assert data["generations"][0]["summary"] == expected["summaries"][0]
    saved = tmp_path / "config" / "steiner" / "sessions" / ".imports"
    assert sorted(p.stem for p in saved.glob("*.json")) == [p.stem for p in SESSIONS]
    assert main(["import", str(FIXTURES)]) == 0
    text = capsys.readouterr().out
    assert "compaction after request" in text and "What costs the most" in text
    assert " 1 request · " in text and " 1 requests" not in text  # a compaction's summarizer


def test_a_sub_agent_imported_alone_keeps_its_parents_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sub-agent's transcript carries its parent's sessionId; imported alone it gets an id
    of its own, and the parent's saved import is left as it was."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    parent = SESSIONS[0]
    folder = parent.with_suffix("") / "subagents"
    agent = next(p for p in folder.glob("agent-*.jsonl") if "acompact" not in p.name)
    assert main(["import", str(parent), "--json"]) == 0
    [saved_parent] = json.loads(capsys.readouterr().out)["sessions"]
    assert main(["import", str(agent), "--json"]) == 0
    [saved_agent] = json.loads(capsys.readouterr().out)["sessions"]
    assert saved_agent["id"] == f"{parent.stem}.{agent.stem}"
    assert len(saved_agent["requests"]) == raw_figures(agent)["requests"]
    store = tmp_path / "steiner" / "sessions" / ".imports"
    assert sorted(p.stem for p in store.glob("*.json")) == sorted([parent.stem, saved_agent["id"]])
    kept = json.loads((store / f"{parent.stem}.json").read_text(encoding="utf-8"))
    assert len(kept["requests"]) == len(saved_parent["requests"]) == raw_figures(parent)["requests"]
