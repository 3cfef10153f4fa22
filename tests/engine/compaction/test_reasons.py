"""Fallback reason strings, byte for byte, and the compact duration form."""

from __future__ import annotations

from datetime import timedelta

import pytest

from steiner_tui.engine.compaction.reasons import (
    fallback_failed_reason,
    fallback_not_fit_reason,
    format_fallback_reason,
    go_duration_string,
)


def test_no_recent_request() -> None:
    assert format_fallback_reason(None, timedelta(minutes=10)) == "no recent request"


@pytest.mark.parametrize(
    ("idle", "after", "expected"),
    [
        (timedelta(minutes=12), timedelta(minutes=10), "idle 12m > 10m"),
        (timedelta(minutes=10, seconds=30), timedelta(minutes=10), "idle 11m > 10m"),
        (timedelta(minutes=10, seconds=29), timedelta(minutes=9), "idle 10m > 9m"),
        (timedelta(hours=2), timedelta(minutes=30), "idle 120m > 30m"),
        (timedelta(minutes=5, seconds=20), timedelta(minutes=5, seconds=10), "idle 5m20s > 5m10s"),
        (timedelta(minutes=10, seconds=20), timedelta(minutes=10), "idle 10m20s > 10m0s"),
        (timedelta(seconds=40), timedelta(seconds=31), "idle 40s > 31s"),
    ],
)
def test_idle_reasons(idle: timedelta, after: timedelta, expected: str) -> None:
    assert format_fallback_reason(idle, after) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (timedelta(0), "0s"),
        (timedelta(seconds=1.5), "1.5s"),
        (timedelta(milliseconds=500), "500ms"),
        (timedelta(microseconds=1500), "1.5ms"),
        (timedelta(microseconds=7), "7µs"),
        (timedelta(minutes=5, seconds=20), "5m20s"),
        (timedelta(hours=1, minutes=2, seconds=3), "1h2m3s"),
        (timedelta(hours=1), "1h0m0s"),
        (timedelta(minutes=1, milliseconds=500), "1m0.5s"),
        (timedelta(seconds=-90), "-1m30s"),
    ],
)
def test_go_duration_string(value: timedelta, expected: str) -> None:
    assert go_duration_string(value) == expected


def test_failure_reasons() -> None:
    assert fallback_not_fit_reason("offline/tiny") == "context too large for offline/tiny"
    assert fallback_failed_reason(RuntimeError("boom")) == "fallback failed: boom"
