"""Importing Codex rollouts: per-request figures from ``last_token_usage``, deduplicated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from steiner_tui.importers.codex import import_codex_rollout
from steiner_tui.importers.discover import import_paths


def usage(input_tokens: int, cached: int, output: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": 0,
        "total_tokens": input_tokens + output,
    }


def token_count(last: dict[str, int], total: dict[str, int]) -> dict[str, Any]:
    return {"type": "token_count", "info": {"last_token_usage": last, "total_token_usage": total}}


def line(kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": "2026-12-01T10:00:00Z", "type": kind, "payload": payload})


def write_rollout(path: Path, with_records: bool) -> None:
    first, second, third = usage(9598, 0, 12), usage(9795, 9598, 20), usage(6000, 0, 300)
    total1 = usage(9598, 0, 12)
    total2 = usage(19393, 9598, 32)
    total3 = usage(25393, 9598, 332)
    lines = [
        line("session_meta", {"id": "01a2-rollout", "cwd": "/p", "cli_version": "0.169.0"}),
        line("turn_context", {"model": "gpt-5.5"}),
        line(
            "response_item",
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "cat AGENTS.md"}),
            },
        ),
        line(
            "response_item", {"type": "function_call_output", "call_id": "c1", "output": "x" * 40}
        ),
        line("event_msg", token_count(first, total1)),
        line("event_msg", token_count(first, total1)),  # Codex writes some twice
        line("event_msg", token_count(second, total2)),
        line("event_msg", token_count(third, total3)),  # the summarizer's call
        line(
            "compacted",
            {
                "message": "Another language model started… SUMMARY",
                "replacement_history": [{"type": "message"}] * 3,
            },
        ),
        line("event_msg", token_count(usage(0, 0, 0), total3)),  # zeroed after compaction
        line("mystery", {}),
        "{broken",
    ]
    if with_records:
        lines[4:4] = [
            line("token_usage_record", {"response_id": "r1", "usage": first}),
            line("token_usage_record", {"response_id": "r2", "usage": second}),
            line("token_usage_record", {"response_id": "r3", "usage": third}),
        ]
        lines[-4] = line(
            "compacted",
            {
                "message": "Another language model started… SUMMARY",
                "replacement_history": [{}] * 3,
                "compaction_response_id": "r3",
            },
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_token_count_events_deduplicated(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2026-12-01T10-00-00-01a2.jsonl"
    write_rollout(path, with_records=False)
    session = import_codex_rollout(path)
    assert [r.context_tokens for r in session.requests] == [9598, 9795, 6000]
    assert [r.cache_read_tokens for r in session.requests] == [0, 9598, 0]
    assert [r.output_tokens for r in session.requests] == [12, 20, 300]
    assert {r.model for r in session.requests} == {"gpt-5.5"}
    [generation] = session.generations
    assert generation.trigger is None and generation.pre_tokens == 9795
    assert generation.summary.endswith("SUMMARY") and generation.replacement_items == 3
    assert dict(session.unknown_records) == {"mystery": 1}
    assert [p.line for p in session.problems] == [12]
    assert session.ranking[0].tool == "exec_command"
    assert session.ranking[0].target == "cat AGENTS.md"


def test_token_usage_records_preferred(tmp_path: Path) -> None:
    path = tmp_path / "rollout-x.jsonl"
    write_rollout(path, with_records=True)
    session = import_codex_rollout(path)
    assert [r.request_id for r in session.requests] == ["r1", "r2", "r3"]
    assert [r.context_tokens for r in session.requests] == [9598, 9795, 6000]
    assert session.generations[0].pre_tokens == 9795


def test_a_folder_mixes_both_agents(tmp_path: Path) -> None:
    write_rollout(
        tmp_path / "codex" / "rollout-a.jsonl"
        if (tmp_path / "codex").mkdir() is None
        else tmp_path,
        with_records=True,
    )
    (tmp_path / "notes.jsonl").write_text('{"hello": 1}\n', encoding="utf-8")
    result = import_paths([tmp_path])
    assert [s.source for s in result.sessions] == ["codex"]
    assert [Path(p).name for p, _ in result.skipped] == ["notes.jsonl"]


REAL = Path(__file__).parent / "data" / "codex-0.169.0-compact.rollout.jsonl"
"""A rollout Codex 0.169.0 wrote (issue 21's research run: a tool call, then an automatic
compaction with ``model_auto_compact_token_limit = 5000``), against a loopback upstream."""


def test_a_real_rollout_with_a_compaction(tmp_path: Path) -> None:
    records = [json.loads(text) for text in REAL.read_text(encoding="utf-8").splitlines()]
    usage_records = [r["payload"]["usage"] for r in records if r["type"] == "token_usage_record"]
    session = import_codex_rollout(REAL)
    assert [r.context_tokens for r in session.requests] == [
        u["input_tokens"] for u in usage_records
    ]
    assert sum(r.output_tokens for r in session.requests) == sum(
        u["output_tokens"] for u in usage_records
    )
    compacted = [r["payload"] for r in records if r["type"] == "compacted"]
    assert [g.summary for g in session.generations] == [c["message"] for c in compacted]
    assert session.generations[0].replacement_items == len(compacted[0]["replacement_history"])
    assert session.generations[0].pre_tokens == usage_records[0]["input_tokens"]
    assert not session.problems and not session.unknown_records

    # Without token_usage_record lines, the deduplicated token_count events give the same.
    bare = tmp_path / "rollout-bare.jsonl"
    bare.write_text(
        "".join(json.dumps(r) + "\n" for r in records if r["type"] != "token_usage_record"),
        encoding="utf-8",
    )
    events = [
        r for r in records if r["type"] == "event_msg" and r["payload"].get("type") == "token_count"
    ]
    assert len(events) > len(usage_records)  # duplicates and the zeroed one are really there
    fallback = import_codex_rollout(bare)
    assert [r.context_tokens for r in fallback.requests] == [
        u["input_tokens"] for u in usage_records
    ]


SUBAGENT = Path(__file__).parent / "data" / "codex-0.169.0-subagent"
"""Two rollouts written by Codex 0.169.0 itself: a thread that spawned a sub-agent with the
``multi_agent_v1`` namespace's ``spawn_agent`` and waited for it, and the sub-agent's thread."""
PARENT_ID = "01a23273-f130-7140-a617-5872929dd31f"
CHILD_ID = "01a23273-f1b2-76c2-91c1-e84313561ac1"
SPAWN_CALL = "call_fake_6955c6cb52fb427086c4"


def test_a_codex_sub_agent_is_put_under_the_thread_that_spawned_it() -> None:
    [parent] = import_paths([SUBAGENT]).sessions
    assert parent.id == PARENT_ID and len(parent.requests) == 3
    [child] = parent.subagents
    assert child.id == CHILD_ID and child.parent_id == PARENT_ID
    assert len(child.requests) == 1
    assert child.link is not None
    assert (child.link.tool_use_id, child.link.tool, child.link.via) == (
        SPAWN_CALL,
        "spawn_agent",
        "function_call_output",
    )
    assert child.link.description == "Say hi from the sub-agent."
    [row] = parent.to_json()["subagents"]
    assert row["link"]["tool_use_id"] == SPAWN_CALL


def test_the_collab_event_links_a_sub_agent_when_the_call_output_is_missing(
    tmp_path: Path,
) -> None:
    for path in SUBAGENT.glob("*.jsonl"):
        kept = [
            text
            for text in path.read_text().splitlines(keepends=True)
            if '"function_call_output"' not in text
        ]
        (tmp_path / path.name).write_text("".join(kept))
    [parent] = import_paths([tmp_path]).sessions
    [child] = parent.subagents
    assert child.link is not None
    assert (child.link.tool_use_id, child.link.via) == (SPAWN_CALL, "CollabAgentToolCall")


def test_a_sub_agent_imported_alone_stays_a_session_naming_its_parent() -> None:
    [child] = import_paths([next(SUBAGENT.glob(f"*{CHILD_ID}.jsonl"))]).sessions
    assert child.parent_id == PARENT_ID and child.link is None


def test_a_missing_or_orphaned_codex_sub_agent_is_a_warning() -> None:
    parent_file, child_file = sorted(SUBAGENT.glob("*.jsonl"))
    [parent] = import_paths([parent_file]).sessions
    assert not parent.subagents
    assert parent.warnings == (
        f"sub-agent thread {CHILD_ID} (started by spawn_agent {SPAWN_CALL}) has no rollout "
        "among the files imported",
    )
    [child] = import_paths([child_file]).sessions
    assert child.warnings == (
        f"started by thread {PARENT_ID}, whose rollout is not among the files imported",
    )
    [both] = import_paths([SUBAGENT]).sessions
    assert not both.warnings and not both.subagents[0].warnings
