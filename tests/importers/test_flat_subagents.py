"""Claude Code 2.0.x writes each sub-agent's transcript as ``agent-<id>.jsonl`` beside the
session (not in a ``subagents`` folder), its cache warmups too. Read from files the real
Claude Code 2.0.28 wrote (``data/README.md``)."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.discover import import_paths

FOLDER = Path(__file__).parent / "data" / "claude-code-2.0.28"
[SESSION] = [p for p in FOLDER.glob("*.jsonl") if not p.name.startswith("agent-")]


def _first_prompt(path: Path) -> str:
    return str(json.loads(path.read_text(encoding="utf-8").splitlines()[0])["message"]["content"])


def test_flat_sub_agents_are_read_with_their_session() -> None:
    agents = sorted(FOLDER.glob("agent-*.jsonl"))
    warmups = {
        f"agent-{p.stem.removeprefix('agent-')}" for p in agents if _first_prompt(p) == "Warmup"
    }
    [task] = [p for p in agents if _first_prompt(p) != "Warmup"]
    session = import_claude_session(SESSION)
    assert not session.warnings  # the Task's agent has its transcript: beside the session
    [agent] = session.subagents
    assert agent.id == task.stem and agent.link is not None
    assert agent.link.tool == "Task" and agent.link.via == "toolUseResult"
    assert {a.id for a in session.own_calls} == warmups and len(warmups) == 2
    assert {a.link.tool for a in session.own_calls if a.link} == {"warmup"}


def test_a_folder_import_reads_them_once() -> None:
    result = import_paths([FOLDER])
    [session] = result.sessions
    assert session.id == SESSION.stem and not result.skipped
    assert len(session.subagents) == 1 and len(session.own_calls) == 2
