"""Escalation health per run, and the replacement guard."""

from __future__ import annotations

import pytest

from steiner_tui.engine.compaction.escalation import (
    CompactionCounter,
    compaction_health,
    replacement_refusal,
)

STABLE = "continue, but watch for another compaction"
FRAGILE = "restart soon in a fresh session; repeated compaction is making retention fragile"
LOSSY = "restart now in a new session; retained context is likely to be lossy"


@pytest.mark.parametrize(
    ("stages", "prompt", "expected"),
    [
        (1, 50_000, ("info", "stable", STABLE)),
        (1, 120_000, ("warning", "fragile", FRAGILE)),
        (1, 119_999, ("info", "stable", STABLE)),
        (2, 50_000, ("warning", "fragile", FRAGILE)),
        (2, 120_000, ("critical", "likely_lossy", LOSSY)),
        (3, 10, ("critical", "likely_lossy", LOSSY)),
    ],
)
def test_health_via_budget_escalation(stages: int, prompt: int, expected: tuple[str, ...]) -> None:
    health = compaction_health(stages, prompt, 100_000)
    assert (health.severity, health.state, health.guidance) == expected
    assert health.stage_count == stages


def test_counter_adds_stage_counts() -> None:
    counter = CompactionCounter()
    assert counter.add(2) == 2
    assert counter.add(1) == 3
    assert counter.add(0) == 3


def test_replacement_guard() -> None:
    assert replacement_refusal(False, 0) is None
    busy = replacement_refusal(True, 0)
    assert busy is not None and "generating" in busy
    assert replacement_refusal(False, 1) == "1 sub-agent is still running; wait for it to finish"
    assert (
        replacement_refusal(False, 3) == "3 sub-agents are still running; wait for them to finish"
    )
