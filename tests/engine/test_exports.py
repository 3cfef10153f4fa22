"""The engine's public surface: every name of its API is exported and behaves as written."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone

import steiner_tui.engine as engine

ENGINE_API_NAMES = {
    "Message", "ToolCall", "Image",
    "SKILL_CONTENT_CAP_BYTES", "render_skill_activation", "render_skill_deactivation",
    "split_skill_blocks", "SkillBlock", "prepend_skill_blocks", "strip_skill_blocks",
    "effective_skills", "mode_notice", "strip_mode_notice",
    "render_session_date", "apply_budget",
    "message_hash", "short_hash", "cumulative_prefix_hashes",
    "safety_margin_tokens", "derive_summary_max_tokens", "should_compact_prompt",
    "compaction_escalation",
    "TokenCalibration", "TokenEstimate", "heuristic_tokens",
    "split_compaction_turns", "retain_recent_turns", "render_pending_sub_agents_line",
    "format_fallback_reason",
    "summarize_recent_tool_calls",
}  # fmt: skip


def test_engine_api_names_are_exported() -> None:
    missing = ENGINE_API_NAMES - set(engine.__all__)
    assert not missing
    for name in engine.__all__:
        assert hasattr(engine, name), name


def test_importing_the_engine_loads_no_ui() -> None:
    code = (
        "import sys, steiner_tui.engine;"
        "print(sorted(m for m in ('textual', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_wire_examples_through_the_public_names() -> None:
    assert engine.message_hash(engine.Message("user", "hello")) == "59cb3723"
    call = engine.ToolCall("1", "read", {"path": "a.go"})
    assert engine.message_hash(engine.Message("assistant", tool_calls=(call,))) == "39a41ab5"
    none_call = engine.ToolCall("1", "read", None)
    assert engine.message_hash(engine.Message("assistant", tool_calls=(none_call,))) == "3a7e75f7"
    assert engine.short_hash("") == "e3b0c442"
    assert engine.cumulative_prefix_hashes(["59cb3723"]) == [engine.short_hash("59cb3723")]
    assert engine.render_skill_deactivation("good") == (
        '<steiner-skill name="good" state="inactive" bytes="104">\n'
        'Skill "good" is no longer active. Stop following its workflow; its earlier '
        "instructions no longer apply.\n</steiner-skill>"
    )
    bst = timezone(timedelta(hours=1), "BST")
    assert engine.render_session_date(datetime(2026, 9, 13, 10, tzinfo=bst)) == (
        "Current date: 2026-09-13 (BST, UTC+01:00), recorded when this session started."
    )
    assert engine.render_session_date(datetime(2026, 9, 13, tzinfo=UTC)).startswith(
        "Current date: 2026-09-13 (UTC, UTC+00:00)"
    )
    assert engine.render_pending_sub_agents_line(
        [("code-3", "code", "running"), ("review-5", "review", "queued")]
    ) == (
        "<steiner-sub-agents-pending>code-3 (code, running); "
        "review-5 (review, queued)</steiner-sub-agents-pending>"
    )
    assert engine.format_fallback_reason(None, timedelta(minutes=10)) == "no recent request"
    assert (
        engine.format_fallback_reason(timedelta(minutes=10, seconds=30), timedelta(minutes=10))
        == "idle 11m > 10m"
    )
    assert engine.heuristic_tokens(0) == 8
    assert engine.safety_margin_tokens(1000) == 256
    assert engine.compaction_escalation(3, 0, 1000) == ("critical", "likely_lossy")
