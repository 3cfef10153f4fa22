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
