"""The fidelity session used by the benchmark, and the benchmark's target as a regression test."""

from __future__ import annotations

from benchmarks.bench_summary_fidelity import run_fidelity
from benchmarks.fidelity_session import FACTS, build_session, fact_share
from steiner_tui.engine.compaction.turns import split_compaction_turns


def test_session_plants_thirty_facts_in_sixty_plus_turns() -> None:
    session = build_session()
    assert len(FACTS) == 30
    assert {f.kind for f in FACTS} == {"path", "command", "number", "decision", "preference"}
    assert sum(m.role == "user" for m in session) >= 60
    assert len(split_compaction_turns(session)) >= 60
    assert fact_share(session) == 1.0
    assert fact_share(session[-40:]) == 0.0


async def test_offline_summaries_keep_most_facts_through_three_compactions() -> None:
    rows, _ = await run_fidelity("normal")
    assert len(rows) == 3
    assert all(row.share >= 0.8 for row in rows)
    assert all(row.summary_tokens <= row.cap for row in rows)
