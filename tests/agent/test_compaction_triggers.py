"""Each compaction records why it ran, through the real runner (docs/design.md, "8.
Compaction: turns, stages and the summary", "The outcome")."""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.app.widgets.lineage_view import generation_heading, generation_row
from steiner_tui.engine.compaction import triggers
from steiner_tui.engine.compaction.policy import CompactNow, MaskLargest
from steiner_tui.engine.events import WarningEvent
from steiner_tui.engine.provider import ChatRequest, ProviderError
from tests.agent.fakes import Reply
from tests.agent.test_compaction_modes import Scripted, _tool_lineage
from tests.agent.test_compaction_runner_kit import Session, build_session, padded, summary_text


def _triggers(session: Session) -> list[str]:
    return [o.trigger for o in session.outcomes()]


def _active_row(session: Session) -> tuple[str, ...]:
    return generation_row(session.lineage.active)


async def test_auto_at_the_soft_threshold(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock)
    await session.fill("turn")
    await session.say(padded("one more"))
    assert _triggers(session) == [triggers.SOFT_THRESHOLD]
    assert session.lineage.active.outcome is not None
    assert session.lineage.active.outcome.trigger == triggers.SOFT_THRESHOLD
    assert "soft threshold" in _active_row(session)
    assert "trigger: soft threshold" in generation_heading(session.lineage.active)


async def test_auto_when_the_request_fails_the_hard_fit(project: Path, clock: ManualClock) -> None:
    # 4 results of ~1,500 tokens on a 4,000 window: the next request does not fit.
    session = build_session(project, clock, lineage=_tool_lineage(4, 1500))
    await session.say("go on")
    assert _triggers(session)[0] == triggers.HARD_FIT


def _rejecting_once() -> Callable[[ChatRequest], Reply]:
    rejections = count()

    def answer(request: ChatRequest) -> Reply:
        if request.compaction:
            return Reply([summary_text("s")])
        if len(request.messages) > 8 and next(rejections) == 0:
            return Reply(error=ProviderError("context_length", "fake: prompt is too long"))
        return Reply(["fine"])

    return answer


async def test_after_the_provider_rejects_a_request_as_too_large(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(project, clock, answer=_rejecting_once())
    for turn in range(4):
        await session.say(padded(f"turn {turn}", 20))
    await session.say("and now?")
    assert _triggers(session) == [triggers.CONTEXT_LENGTH]
    assert "provider context_length" in _active_row(session)


async def test_manual_compact(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock)
    for turn in range(3):
        await session.say(padded(f"turn {turn}", 20))
    outcome = await session.driver.compact("keep the notes")
    assert outcome is not None and outcome.applied
    assert _triggers(session) == [triggers.MANUAL]
    assert "manual /compact" in _active_row(session)


async def test_ask_compact_now_names_the_answer_and_why_it_was_asked(
    project: Path, clock: ManualClock
) -> None:
    session = build_session(
        project, clock, compaction_mode="ask", policy=Scripted([CompactNow("")])
    )
    await session.fill("turn")
    await session.say(padded("one more"))
    assert _triggers(session) == ["ask: compact now (soft threshold)"]


async def test_ask_mask_largest(project: Path, clock: ManualClock) -> None:
    policy = Scripted([MaskLargest()])
    session = build_session(
        project, clock, compaction_mode="ask", policy=policy, lineage=_tool_lineage(4, 1500)
    )
    await session.say("go on")
    assert _triggers(session)[0] == "ask: mask the largest tool results (hard fit)"


def test_masking_from_the_cost_ranking(project: Path, clock: ManualClock) -> None:
    session = build_session(project, clock, lineage=_tool_lineage(2, 800))
    outcome = session.runner.mask_results(["c1"], reason="mask: read f1.md")
    assert outcome is not None and outcome.trigger == triggers.MASK_ON_REQUEST
    assert "mask on request" in _active_row(session)


def test_the_trigger_of_the_next_request() -> None:
    trigger = triggers.request_trigger
    assert trigger(reached_soft=False, fits=True, forced=False) == ""
    assert trigger(reached_soft=True, fits=True, forced=False) == triggers.SOFT_THRESHOLD
    assert trigger(reached_soft=True, fits=False, forced=False) == triggers.HARD_FIT
    assert trigger(reached_soft=True, fits=False, forced=True) == triggers.CONTEXT_LENGTH
    assert triggers.trigger_label("") == "trigger not recorded"


def _rejected_summaries(request: ChatRequest) -> Reply:
    """Every summary is one line repeated (a small local model's): each is rejected."""
    if request.compaction:
        return Reply(["the user asked a question.\n" * 30])
    return Reply([f"answer {len(request.messages)}"])


async def test_a_soft_compaction_that_applied_nothing_waits_for_the_prompt_to_grow(
    project: Path, clock: ManualClock
) -> None:
    """On llama.cpp (SmolLM2) every summary was rejected, and every turn past the soft trigger
    asked for two more (normal, emergency): 2.5 minutes a turn, none of them used."""
    session = build_session(project, clock, answer=_rejected_summaries)
    await session.fill("turn")
    await session.say(padded("one more"))
    assert len(session.summary_requests()) == 2 and session.outcomes() == []
    await session.say("and a short one")
    assert len(session.summary_requests()) == 2  # not tried again right away
    held = [e for e in session.sink.of(WarningEvent) if e.code == "compaction_held"]  # type: ignore[attr-defined]
    assert len(held) == 1 and "waits until the prompt reaches" in held[0].message  # type: ignore[attr-defined]
    for _ in range(10):  # until the request no longer fits (on this 4,000-token window)
        if session.summary_requests()[2:]:
            break
        await session.driver.submit(padded("more"))
    assert session.summary_requests()[2:]  # the hard fit still compacts


async def test_a_message_larger_than_the_window_is_cut_when_every_summary_is_rejected(
    project: Path, clock: ManualClock
) -> None:
    """A 42 KB paste sent to SmolLM2 on llama.cpp (an 8,192-token window): both summaries
    were rejected, nothing applied, and the turn ended in "request exceeds context window"
    after a minute of summary calls. The largest messages are cut instead (head and tail
    around a marker, the whole text saved), as a stage cuts its retained tail, and the turn
    is answered."""
    session = build_session(project, clock, answer=_rejected_summaries)
    await session.say(padded("first", 20))
    paste = padded("the log", 2_000)  # about 36,000 characters: far past 4,000 tokens
    result = await session.say(paste)
    assert len(session.summary_requests()) == 2
    outcome = session.outcomes()[-1]
    assert outcome.modes == ("mask",)
    cut = [edit for edit in outcome.edits if edit.kind == "cut"]
    assert len(cut) == 1 and cut[0].role == "user" and cut[0].saved_at
    assert any("cut in place of a summary" in note for note in outcome.notes)
    sent = session.main_requests()[-1]
    assert (
        sent.messages[-1].content.startswith("the log: ")
        and len(sent.messages[-1].content) < 20_000
    )
    assert result.status == "done"
