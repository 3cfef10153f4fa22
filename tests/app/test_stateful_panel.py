"""The context panel of a stateful provider shows the figures that decide: reported usage
against the shifted trigger (floor + 10% of the window), the floor and the cap, not the 70%
trigger against the estimate (issue 32, rule 3)."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.app.budget_view import build_budget_view
from steiner_tui.app.widgets.budget_text import trigger_line
from steiner_tui.engine.provider import ChatRequest
from tests.agent.fakes import Reply
from tests.agent.test_compaction_runner_kit import build_session, summary_text


def _stateful(usage: list[int]) -> object:
    calls = count(1)

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("stateful")])
        n = next(calls)
        return Reply([f"ok {n}"], prompt_tokens=usage.pop(0), backend_state=f"resp-{n}")

    return answer


async def test_a_stateful_panel_shows_reported_usage_against_floor_plus_ten_percent(
    project: Path,
) -> None:
    clock = ManualClock(datetime(2026, 3, 1, 12, 0, tzinfo=UTC))
    # Window 10,000: 7,200 compacts, the first response after it (7,500) arms the floor; the
    # trigger is then 8,500, and the last reply reported 7,600.
    usage = [1000, 2000, 3000, 7200, 7500, 7600]
    session = build_session(
        project,
        clock,
        window=10_000,
        stateful=True,
        signal_retirement=True,
        answer=_stateful(usage),  # type: ignore[arg-type]
    )
    for turn in range(6):
        await session.say(f"step {turn}")
    runner = session.runner
    snapshot = runner.preview()
    view = build_budget_view(
        snapshot,
        budget=runner.model.budget,
        project_root=project,
        preview=True,
        stateful=runner.parent_usage(),
    )
    window = view.window
    assert (window.used, window.soft_threshold, window.floor, window.cap) == (
        7600,
        8500,
        7500,
        9000,
    )
    assert window.stateful and window.used != snapshot.estimated_prompt_tokens
    assert trigger_line(view) == (
        "compaction auto · reported 7,600 of trigger 8,500 (floor 7,500 + 10%) · cap 9,000"
    )
    plain = build_budget_view(snapshot, budget=runner.model.budget, project_root=project)
    assert trigger_line(plain) == "compaction auto · soft trigger 7,000"
