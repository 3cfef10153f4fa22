"""The summary instruction, output caps and request isolation."""

from __future__ import annotations

import pytest

from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import compact_with_lineage
from steiner_tui.engine.compaction.summary_request import (
    STEERING_HEADER,
    compaction_instruction,
    finalize_summary_request,
    summary_cap,
    summary_problem,
    usable_summary,
)
from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.templates import render_template
from tests.engine.compaction.fakes import (
    FakeHost,
    budget,
    conversation,
    make_env,
    said,
)

HEADINGS = [
    "## 1. Task and Goal",
    "## 2. Current Repository / Project State",
    "## 3. Work Completed",
    "## 4. Key Findings and Decisions",
    "## 5. Problems Encountered",
    "## 6. Remaining Work",
    "## 7. Verification and Acceptance",
    "## 8. User Preferences and Interaction Context",
]


def test_normal_instruction_is_sentence_then_body_with_eight_sections() -> None:
    text = compaction_instruction("normal")
    sentence = render_template("compaction_system.md.j2").strip()
    body = render_template("compaction_default_body.md.j2").strip()
    assert text == sentence + "\n\n" + body
    lines = text.split("\n")
    positions = [lines.index(heading) for heading in HEADINGS]
    assert positions == sorted(positions)
    assert "EMERGENCY COMPACTION" not in text


def test_steering_suffix_exact() -> None:
    text = compaction_instruction("normal", "focus on the parser")
    assert STEERING_HEADER == "\n\nAdditional user steering for this compaction:\n\n"
    assert text == compaction_instruction("normal") + STEERING_HEADER + "focus on the parser"
    assert compaction_instruction("normal", "   ") == compaction_instruction("normal")


def test_emergency_appends_its_template() -> None:
    emergency = render_template("compaction_emergency.md.j2").strip()
    assert "EMERGENCY COMPACTION" in emergency
    assert (
        compaction_instruction("emergency") == compaction_instruction("normal") + "\n\n" + emergency
    )
    steered = compaction_instruction("emergency", "keep numbers")
    assert steered == compaction_instruction("normal", "keep numbers") + "\n\n" + emergency


def test_override_replaces_sentence_and_body() -> None:
    assert compaction_instruction("normal", override="Summarize briefly.") == "Summarize briefly."


@pytest.mark.parametrize(
    ("window", "max_output", "normal", "emergency"),
    [
        (100_000, 0, 8000, 4000),
        (32_768, 4096, 4096, 3072),
        (1_000_000, 0, 20480, 10240),
        (10_000, 0, 6144, 3072),
    ],
)
def test_summary_caps_by_mode(window: int, max_output: int, normal: int, emergency: int) -> None:
    target = SummaryTarget("a", "m", budget(window, max_output))
    assert summary_cap(target, "normal") == normal
    assert summary_cap(target, "emergency") == emergency


def test_finalize_isolates_fallback_requests() -> None:
    built = ChatRequest(model="m", messages=(), transport_session="main", backend_state="x")
    fallback = SummaryTarget("o", "f", budget(32_768), fallback=True, transport_session="fb-1")
    request = finalize_summary_request(built, fallback, "resp_main", 77)
    assert request.backend_state is None
    assert request.transport_session == "fb-1"
    assert request.retire_backend_state is False
    assert request.compaction is True
    assert request.max_tokens == 77


def test_finalize_main_carries_backend_state_and_retires_when_stateful() -> None:
    built = ChatRequest(model="m", messages=(), transport_session="main")
    main = SummaryTarget("a", "m", budget(32_768), stateful=True)
    request = finalize_summary_request(built, main, "resp_main", 77)
    assert request.backend_state == "resp_main"
    assert request.transport_session == "main"
    assert request.retire_backend_state is True


def test_usable_summary() -> None:
    assert usable_summary("  \n\t ") is None
    assert usable_summary("") is None
    assert usable_summary("\n text \n") == "text"


def test_unusable_summaries_are_named() -> None:
    assert summary_problem("  \n", 10) == "the summary is empty"
    assert "trivially short (13 characters: 'Your summary.')" in summary_problem(
        "Your summary.", 5000
    )
    assert summary_problem("Short.", 200) == ""  # little input, little to say
    frames = "\n".join(f'  File "app/m{i}.py", line {i}, in f{i}' for i in range(30))
    assert "mostly one repeated line (30 of 31 lines" in summary_problem(
        "## 1. Task\n" + frames, 50_000
    )
    big = "word " * 3000
    assert "larger than its input (2,000)" in summary_problem(big, 2000)
    sections = "\n".join(f"## {i}. Heading\n- a bullet about item {i} and why" for i in range(9))
    assert summary_problem(sections, 50_000) == ""


async def test_a_rejected_summary_falls_back_to_the_emergency_stage() -> None:
    messages = conversation(8, 400)
    host = FakeHost([SummaryResponse("Your summary."), SummaryResponse(said("Kept"))])
    sink = ListSink()
    result = await compact_with_lineage(
        ConversationLineage.start(messages), make_env(host, sink=sink)
    )
    outcome = result.outcome
    assert outcome.modes == ("emergency",)
    assert result.lineage.active.summary.startswith("Kept")
    assert any(
        "normal summary rejected: the summary is trivially short" in n for n in outcome.notes
    )
    assert outcome.health is not None and "rejected" in outcome.health.guidance
    warnings = [e for e in sink.events if isinstance(e, WarningEvent)]
    assert [w.code for w in warnings] == ["summary_rejected"]
