"""The window doctor: budgets that can be met, and the one warning when they cannot."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from steiner_tui.agent.from_config import main_model_from_config
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import parse_config
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.window_doctor import window_doctor


def _offline(window: int, **model: Any) -> Any:
    table = {"models": {"offline/offline": {"context_window": window, **model}}}
    return parse_config([("config.toml", table)])


def test_an_unreachable_soft_trigger_is_named_with_the_fix() -> None:
    doctor = window_doctor(ModelTokenBudget(8192, 4096), ref="offline/offline", source="config")
    assert (doctor.reserve, doctor.margin, doctor.soft, doctor.hard) == (4096, 256, 5735, 3840)
    assert "soft trigger (5,735) cannot be reached" in doctor.problem
    assert "max_output = 2,048" in doctor.problem
    assert 'compaction_threshold_tokens = 3,840 (or less) under [models."offline/offline"]' in (
        doctor.problem
    )
    fine = window_doctor(ModelTokenBudget(8192, 2048), ref="offline/offline", source="config")
    assert fine.problem == "" and fine.hard == 8192 - 2048 - 256 >= fine.soft


def test_a_window_the_fixed_part_alone_overflows_is_named_not_the_trigger() -> None:
    """llama.cpp run with -c 1024: the preamble alone (1,063 tokens) is past the 512-token
    prompt room. A smaller max output or threshold cannot help; the doctor says what can."""
    budget = ModelTokenBudget(1024, 256)
    doctor = window_doctor(budget, ref="local/m", source="llama.cpp server", fixed_tokens=1134)
    assert doctor.problem == (
        "a request with no conversation takes ~1,134 tokens (preamble, instructions, tool "
        "definitions), more than the 512 the 1,024-token window leaves for the prompt: no "
        "compaction can make room; give the model a larger window"
    )


def test_the_warning_names_the_fixed_part_past_a_small_window(tmp_path: Path) -> None:
    sink = ListSink()
    request = SessionRequest(
        tmp_path, _offline(1024), env={}, session_id="s1", record=False, delegation=None, sink=sink
    )
    session = build_session(request)
    try:
        asyncio.run(session.runner.run())
    finally:
        session.close()
    [warning] = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert warning.code == "window_unreachable"
    assert warning.message.startswith("offline/offline: a request with no conversation takes ~")


def test_a_configured_window_keeps_an_unset_max_output_to_a_quarter() -> None:
    main = main_model_from_config(_offline(8192), Path(), session_id="s", ref="offline/offline")
    assert (main.info.context_window, main.info.max_output) == (8192, 2048)
    doctor = main.window_doctor()
    assert doctor.problem == ""
    assert (doctor.configured, doctor.effective, doctor.source, doctor.known) == (
        8192,
        8192,
        "config",
        True,
    )
    assert doctor.registry == 32768
    assert "window 8,192 from config (registry 32,768) · reserve 2,048" in doctor.line()
    explicit = _offline(8192, max_output=4096)
    main = main_model_from_config(explicit, Path(), session_id="s", ref="offline/offline")
    assert main.info.max_output == 4096  # set explicitly: kept, and the doctor says so
    assert "cannot be reached" in main.window_doctor().problem


def test_the_warning_comes_once(tmp_path: Path) -> None:
    sink = ListSink()
    config = _offline(8192, max_output=4096)
    request = SessionRequest(
        tmp_path, config, env={}, session_id="s1", record=False, delegation=None, sink=sink
    )
    session = build_session(request)
    try:
        asyncio.run(session.runner.run())
        asyncio.run(session.runner.run())
    finally:
        session.close()
    warnings = [e for e in sink.events if isinstance(e, WarningEvent)]
    unreachable = [w for w in warnings if w.code == "window_unreachable"]
    assert len(unreachable) == 1
    assert unreachable[0].message.startswith("offline/offline: the soft trigger")


def test_the_doctor_names_the_largest_tool_result_the_fixed_part_leaves_room_for(
    tmp_path: Path,
) -> None:
    request = SessionRequest(
        tmp_path, _offline(8192), env={}, session_id="s1", record=False, delegation=None
    )
    session = build_session(request)
    try:
        doctor = session.runner.window_doctor()
    finally:
        session.close()
    # About 2,100 tokens of preamble and tool definitions under a 5,735 trigger: a quarter of
    # the rest per result, so four reads fit before compaction is due.
    assert 1_500 < doctor.fixed < doctor.soft
    assert doctor.result == (doctor.soft - doctor.fixed) // 4 < 8192 // 4
    assert doctor.line().endswith(f" · tool result ≤ {doctor.result:,}")
    assert doctor.as_json()["tool_result_max"] == doctor.result
