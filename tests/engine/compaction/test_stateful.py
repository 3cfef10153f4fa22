"""Stateful providers: the floor after compaction, the shifted trigger and the 90% cap stop."""

from __future__ import annotations

from steiner_tui.engine.compaction.stateful import ParentUsage, stateful_cap_stop
from steiner_tui.engine.events import HealthEvent

WINDOW = 100_000


def test_soft_trigger_before_any_floor() -> None:
    usage = ParentUsage("m", WINDOW)
    assert usage.selected_threshold == 70_000
    assert usage.decision() == "continue"
    assert usage.observe(69_999).decision() == "continue"
    assert usage.observe(70_000).decision() == "compact"
    assert ParentUsage("m", WINDOW, 50_000).observe(50_000).decision() == "compact"


def test_floor_arms_from_first_response_after_compaction() -> None:
    usage = ParentUsage("m", WINDOW).observe(75_000).after_compaction()
    assert usage.decision() == "continue"
    armed = usage.observe(72_000)
    assert armed.floor == 72_000
    assert not armed.awaiting_floor
    assert armed.soft_trigger == 82_000
    assert armed.decision() == "continue"
    assert armed.observe(81_999).decision() == "continue"
    assert armed.observe(82_000).decision() == "compact"


def test_shifted_trigger_is_capped_at_ninety_percent() -> None:
    armed = ParentUsage("m", WINDOW).after_compaction().observe(85_000)
    assert armed.floor == 85_000
    assert armed.soft_trigger == 90_000


def test_floor_not_armed_below_threshold_or_at_cap() -> None:
    low = ParentUsage("m", WINDOW).after_compaction().observe(30_000)
    assert low.floor == 0
    assert not low.awaiting_floor
    assert low.observe(72_000).floor == 0  # only the first response after compaction arms it
    high = ParentUsage("m", WINDOW).after_compaction().observe(90_000)
    assert high.floor == 0
    assert high.cap_reached


def test_selected_threshold_is_the_configured_one() -> None:
    armed = ParentUsage("m", WINDOW, 40_000).after_compaction().observe(45_000)
    assert armed.floor == 45_000
    assert armed.soft_trigger == 55_000
    assert ParentUsage("m", WINDOW, 40_000).after_compaction().observe(39_000).floor == 0


def test_cap_reached_stops_at_the_next_decision() -> None:
    usage = ParentUsage("m", WINDOW).observe(90_000)
    assert usage.cap_reached
    assert usage.decision() == "cap_stop"
    assert not ParentUsage("m", WINDOW).observe(89_999).cap_reached
    text, health = stateful_cap_stop(usage)
    assert text == (
        "request exceeds context window: the provider reported 90,000 prompt tokens, at or "
        "over 90% of the 100,000-token window; /compact or /clear clears the cap"
    )
    assert health == HealthEvent(
        "critical",
        "likely_lossy",
        "restart now in a new session; retained context is likely to be lossy",
    )


def test_usage_dropped_when_model_or_window_changes() -> None:
    usage = ParentUsage("m", WINDOW).after_compaction().observe(72_000)
    assert usage.carried("m", WINDOW) is usage
    assert usage.carried("other", WINDOW) == ParentUsage("other", WINDOW)
    assert usage.carried("m", 200_000) == ParentUsage("m", 200_000)
