"""The fidelity sessions used by the benchmark, and the benchmark's targets as regression tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bench_summary_fidelity import KIND_TARGET, run_fidelity, run_planted
from benchmarks.fidelity_session import FACTS, build_session, fact_share
from benchmarks.planted_session import KINDS, PLANTED, build_planted_session, score
from steiner_tui.engine.budget import CompactionMode
from steiner_tui.engine.compaction.turns import split_compaction_turns
from steiner_tui.engine.messages import Message


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


def test_planted_session_plants_every_kind_among_filler(tmp_path: Path) -> None:
    session = build_planted_session(tmp_path)
    text = "\n".join(m.content for m in session)
    assert {p.kind for p in PLANTED} == set(KINDS)
    assert all(p.probe in text for p in PLANTED)
    assert "Lorem ipsum" in text and "offline model: fixed rules" in text
    # The scoring reads sections: a planted item in the wrong one is misfiled, not kept.
    misplaced = "## 8. User Preferences and Interaction Context\n- TODO: validate the currency "
    reading = score(misplaced + "code before saving.")
    assert [p.probe for p in reading.misfiled["todo"]] == [
        "validate the currency code before saving"
    ]
    assert score(Message("user", "x").content).dropped["decision"]


@pytest.mark.parametrize("mode", ["normal", "emergency"])
async def test_planted_items_stay_in_their_sections_through_compactions(
    tmp_path: Path, mode: CompactionMode
) -> None:
    generations = await run_planted(mode, tmp_path)
    assert len(generations) == 3
    for gen in generations:
        assert gen.summary_tokens <= gen.cap
        for kind in KINDS:
            total = sum(p.kind == kind for p in PLANTED)
            assert len(gen.score.kept[kind]) >= KIND_TARGET * total, (gen.number, kind)
            assert not gen.score.misfiled[kind]
        assert not any(gen.score.decoys.values()), gen.score.decoys
