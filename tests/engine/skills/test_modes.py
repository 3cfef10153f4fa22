"""Mode notices: exact strings, detection only at the start and only before a blank line."""

from __future__ import annotations

import pytest

from steiner_tui.engine.skills.modes import (
    BUILD_MODE_NOTICE,
    PLAN_MODE_NOTICE,
    detect_mode_notice,
    mode_notice,
    strip_mode_notice,
)

PLAN = (
    "[execution mode: plan] Plan mode. Project edits are restricted; plan artifacts may be "
    "written under .steiner/plans/. Discuss proposals in conversation, do not edit while "
    "requirements are moving, and write a handoff plan only when ready."
)
BUILD = "[execution mode: build] Build mode. Normal workspace editing."


def test_exact_notices() -> None:
    assert PLAN_MODE_NOTICE == PLAN
    assert BUILD_MODE_NOTICE == BUILD
    assert mode_notice("plan") == PLAN
    assert mode_notice("build") == BUILD


@pytest.mark.parametrize("mode", ["", "Plan", "BUILD", "review", " plan"])
def test_unknown_mode_has_no_notice(mode: str) -> None:
    assert mode_notice(mode) == ""


@pytest.mark.parametrize("notice", [PLAN, BUILD])
def test_detect_and_strip(notice: str) -> None:
    assert detect_mode_notice(f"{notice}\n\nhello") == notice + "\n\n"
    assert strip_mode_notice(f"{notice}\n\nhello") == "hello"
    assert strip_mode_notice(f"{notice}\n\n") == ""


@pytest.mark.parametrize(
    "content",
    [
        PLAN,
        PLAN + "\nhello",
        PLAN + " \n\nhello",
        " " + PLAN + "\n\nhello",
        "hello\n\n" + BUILD + "\n\n",
        BUILD[:-1] + "\n\nhello",
        "",
    ],
)
def test_notice_counts_only_at_start_before_blank_line(content: str) -> None:
    assert detect_mode_notice(content) == ""
    assert strip_mode_notice(content) == content
