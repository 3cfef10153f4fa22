"""The session date line (docs/design.md, "4. The session date") and its one capture."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from steiner_tui.engine.prompt.session_date import (
    render_session_date,
    session_date_text,
)


def test_bst() -> None:
    moment = datetime(2026, 9, 13, 9, 30, tzinfo=ZoneInfo("Europe/London"))
    assert render_session_date(moment) == (
        "Current date: 2026-09-13 (BST, UTC+01:00), recorded when this session started."
    )


def test_utc() -> None:
    moment = datetime(2026, 1, 2, 23, 59, tzinfo=UTC)
    assert render_session_date(moment) == (
        "Current date: 2026-01-02 (UTC, UTC+00:00), recorded when this session started."
    )


def test_negative_offset_with_abbreviation() -> None:
    moment = datetime(2026, 1, 2, 8, 0, tzinfo=ZoneInfo("America/New_York"))
    assert render_session_date(moment) == (
        "Current date: 2026-01-02 (EST, UTC-05:00), recorded when this session started."
    )


def test_zone_without_abbreviation_is_written_as_offset() -> None:
    moment = datetime(2026, 9, 13, 12, 0, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    assert render_session_date(moment) == (
        "Current date: 2026-09-13 (+0530, UTC+05:30), recorded when this session started."
    )


def test_tzdata_numeric_abbreviation_is_written_as_offset() -> None:
    # tzdata names zones without a real abbreviation "+04"; the line uses +0400 instead.
    moment = datetime(2026, 9, 13, 12, 0, tzinfo=ZoneInfo("Asia/Dubai"))
    assert render_session_date(moment) == (
        "Current date: 2026-09-13 (+0400, UTC+04:00), recorded when this session started."
    )


def test_negative_half_hour_offset() -> None:
    moment = datetime(2026, 3, 1, tzinfo=timezone(timedelta(hours=-3, minutes=-30)))
    assert render_session_date(moment).startswith("Current date: 2026-03-01 (-0330, UTC-03:30)")


def test_the_date_is_the_local_date() -> None:
    moment = datetime(2026, 9, 14, 0, 30, tzinfo=ZoneInfo("Europe/London"))
    assert "2026-09-14 (BST" in render_session_date(moment)
    assert "2026-09-13 (UTC" in render_session_date(moment.astimezone(UTC))


def test_naive_datetime_is_rejected() -> None:
    with pytest.raises(ValueError):
        render_session_date(datetime(2026, 9, 13))


def test_zero_date_adds_nothing() -> None:
    assert session_date_text(None) == ""
    assert session_date_text(datetime.min.replace(tzinfo=UTC)) == ""
