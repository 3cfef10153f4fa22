"""Claude Code 1.x and 2.0.x write a sub-agent's turns inline, in the main file, marked
``isSidechain: true``: each chain (linked by ``parentUuid`` from a root with none) is a
sub-agent of its own, tied to the Task call whose prompt is its first message.

Checked on a real 1.0.108 session (``data/README.md``); the expected figures are computed here
from the JSONL, independently of the importer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from steiner_tui.importers.claude import import_claude_session

SESSION = (
    Path(__file__).parent
    / "data"
    / "claude-code-1.0.108"
    / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
)


def _context(records: list[dict[str, Any]]) -> list[int]:
    """Each request's context (input side from its first line), in order."""
    first: dict[str, dict[str, Any]] = {}
    for record in records:
        if record["type"] == "assistant":
            first.setdefault(record["requestId"], record["message"]["usage"])
    return [
        u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
        for u in first.values()
    ]


def test_inline_sidechains_are_sub_agents_of_their_own() -> None:
    records = [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines()]
    main = [r for r in records if not r.get("isSidechain")]
    chains: dict[str, list[dict[str, Any]]] = {}
    root_of: dict[str, str] = {}
    for record in records:
        if record.get("isSidechain"):
            root = root_of.get(record["parentUuid"], record["uuid"])
            root_of[record["uuid"]] = root
            chains.setdefault(root, []).append(record)
    tasks = {
        part["input"]["prompt"]: part["id"]
        for r in main
        if r["type"] == "assistant"
        for part in r["message"]["content"]
        if part.get("type") == "tool_use" and part["name"] == "Task" and "prompt" in part["input"]
    }
    assert len(chains) == 2 and len(tasks) == 2

    session = import_claude_session(SESSION)
    assert [r.context_tokens for r in session.requests] == _context(main)
    assert len(session.requests) == 10  # the file holds 20 requests in all
    assert max(r.context_tokens for r in session.requests) == 26_080
    assert not session.warnings
    assert len(session.subagents) == len(chains)
    for agent, (root, chain) in zip(session.subagents, chains.items(), strict=True):
        assert agent.id == f"sidechain-{root[:8]}"
        assert [r.context_tokens for r in agent.requests] == _context(chain)
        assert agent.link is not None and agent.link.tool == "Task"
        assert agent.link.tool_use_id == tasks[chain[0]["message"]["content"]]
    # The main thread's ranking holds only its own tool results.
    main_results = sum(
        1
        for r in main
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for part in r["message"]["content"]
        if part.get("type") == "tool_result"
    )
    assert sum(row.count for row in session.ranking) == main_results
