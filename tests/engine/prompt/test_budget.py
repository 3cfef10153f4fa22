"""Sources, the seven-step plan, AssemblyPolicy and apply_budget.

(docs/design.md, "2. Per-source budgets")
"""

from __future__ import annotations

import pytest

from steiner_tui.engine.prompt.budget import AssemblyPolicy, apply_budget, cut_utf8
from steiner_tui.engine.prompt.sources import (
    SOURCE_PLAN,
    ContextSource,
    is_system_zone,
    role_for,
)


def test_source_plan_is_the_fixed_seven_steps() -> None:
    assert [step.step for step in SOURCE_PLAN] == [1, 2, 3, 4, 5, 6, 7]
    assert [tuple(str(s) for s in step.sources) for step in SOURCE_PLAN] == [
        ("preamble",),
        ("global_agents_md", "project_agents_md"),
        ("project_context",),
        ("skill",),
        ("phase_prompt",),
        ("session_date",),
        ("conversation",),
    ]
    assert [step.budget_bytes for step in SOURCE_PLAN] == [
        None,
        None,
        8000,
        106496,
        None,
        None,
        None,
    ]


def test_system_zone() -> None:
    system = {"preamble", "phase_prompt", "global_agents_md", "project_agents_md"}
    system.add("conversation_summary")
    for source in ContextSource:
        assert is_system_zone(source) == (str(source) in system), source
        assert role_for(source) == ("system" if str(source) in system else "user")


@pytest.mark.parametrize("source", ["global_agents_md", "project_agents_md", "session_date"])
def test_unbudgeted_sources_bypass(source: str) -> None:
    remaining: dict[str, int] = {}
    assert apply_budget(remaining, source, "x" * 50_000) == ("x" * 50_000, False, True)
    assert remaining == {}


def test_empty_content_is_kept_and_free() -> None:
    remaining = {"skill": 0}
    assert apply_budget(remaining, "skill", "") == ("", False, True)
    assert remaining == {"skill": 0}


def test_absent_source_has_nothing_left() -> None:
    remaining: dict[str, int] = {}
    assert apply_budget(remaining, "project_context", "hello") == ("", False, False)


def test_budget_is_cumulative_per_source() -> None:
    remaining = {"project_context": 10, "skill": 100}
    assert apply_budget(remaining, "project_context", "abcd") == ("abcd", False, True)
    assert remaining == {"project_context": 6, "skill": 100}
    assert apply_budget(remaining, "project_context", "efghij") == ("efghij", False, True)
    assert remaining["project_context"] == 0
    assert apply_budget(remaining, "project_context", "k") == ("", False, False)
    assert remaining["skill"] == 100


def test_partial_budget_cuts_without_marker() -> None:
    remaining = {"skill": 7}
    assert apply_budget(remaining, "skill", "hello world") == ("hello w", True, True)
    assert remaining["skill"] == 0
    remaining = {"skill": 6}
    assert apply_budget(remaining, "skill", "hello world") == ("hello", True, True)
    assert remaining["skill"] == 0


def test_cut_moves_back_to_a_character_start() -> None:
    # "é" is two bytes: a 4-byte budget would split the second one.
    remaining = {"skill": 4}
    assert apply_budget(remaining, "skill", "aéé") == ("aé", True, True)


def test_cut_strips_trailing_whitespace() -> None:
    remaining = {"project_context": 8}
    assert apply_budget(remaining, "project_context", "ab \t\r\n  cdef") == ("ab", True, True)


def test_cut_to_nothing_drops_the_block() -> None:
    remaining = {"skill": 1}
    assert apply_budget(remaining, "skill", "€uro") == ("", True, False)


def test_cut_utf8_leaves_short_text_alone() -> None:
    assert cut_utf8("ab  ", 4) == "ab  "
    assert cut_utf8("ab  c", 4) == "ab"


def test_policy_defaults_and_overrides() -> None:
    assert AssemblyPolicy().effective() == {"project_context": 8000, "skill": 106496}
    policy = AssemblyPolicy({"skill": 10})
    assert policy.effective() == {"project_context": 8000, "skill": 10}
    # 0 means unset, as in the reference: the default stays.
    assert AssemblyPolicy({"skill": 0}).effective()["skill"] == 106496
    assert policy.remaining(project_context_budget=50)["project_context"] == 50


def test_policy_is_frozen_against_the_callers_dict() -> None:
    budgets = {"skill": 10}
    policy = AssemblyPolicy(budgets)
    budgets["skill"] = 99
    assert policy.effective()["skill"] == 10


def test_negative_budget_is_rejected() -> None:
    with pytest.raises(ValueError) as info:
        AssemblyPolicy({"project_context": -1})
    assert str(info.value) == "assembly budgets must not be negative"


def test_absent_source_is_not_added_to_remaining() -> None:
    remaining = {"skill": 5}
    apply_budget(remaining, "project_context", "hello")
    assert remaining == {"skill": 5}
