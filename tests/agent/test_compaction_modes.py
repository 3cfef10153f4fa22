"""Compaction modes ``auto | ask | off`` through the real runner, and pins that alone cannot
fit (docs/design.md, "7. The window: soft trigger, hard fit, reserves", "8. Compaction")."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.masking import MASK_MODE
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.compaction.policy import (
    AutoCompaction,
    CompactionAnswer,
    CompactionQuestion,
    CompactNow,
    HeadlessPolicy,
    MaskLargest,
    PinsAnswer,
    PinsQuestion,
    Refuse,
    SendAnyway,
    Unpin,
)
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.events import (
    CompactionAsked,
    ErrorEvent,
    RequestSnapshot,
    WarningEvent,
)
from steiner_tui.engine.messages import Message, ToolCall
from tests.agent.test_compaction_runner_kit import Session, build_session, padded


@dataclass
class Scripted:
    """A policy that answers from scripts and records what it was asked."""

    answers: list[CompactionAnswer] = field(default_factory=list)
    unpins: list[PinsAnswer] = field(default_factory=list)
    questions: list[CompactionQuestion] = field(default_factory=list)
    pin_questions: list[PinsQuestion] = field(default_factory=list)

    async def ask(self, question: CompactionQuestion) -> CompactionAnswer:
        self.questions.append(question)
        return self.answers.pop(0) if self.answers else Refuse("no more answers")

    async def ask_unpin(self, question: PinsQuestion) -> PinsAnswer:
        self.pin_questions.append(question)
        return self.unpins.pop(0) if self.unpins else Refuse(question.message)


def _session(
    project: Path, clock: ManualClock, mode: AutoCompaction, policy: object = None, **kwargs: object
) -> Session:
    return build_session(project, clock, compaction_mode=mode, policy=policy, **kwargs)  # type: ignore[arg-type]


def _main_snapshots(session: Session) -> list[RequestSnapshot]:
    return [e for e in session.sink.of(RequestSnapshot) if not e.compaction]  # type: ignore[attr-defined]


async def test_ask_compact_now_compacts_with_the_focus(project: Path, clock: ManualClock) -> None:
    policy = Scripted([CompactNow("keep the parser notes")])
    session = _session(project, clock, "ask", policy)
    await session.fill("turn")
    await session.say(padded("one more"))
    assert len(policy.questions) == 1
    question = policy.questions[0]
    assert question.reason == "soft_trigger" and question.can_send
    assert question.prompt_tokens >= question.soft_threshold
    outcomes = session.outcomes()
    assert len(outcomes) == 1 and outcomes[0].steering == "keep the parser notes"
    asked = session.sink.of(CompactionAsked)
    assert [(e.answer, e.focus) for e in asked] == [("compact", "keep the parser notes")]  # type: ignore[attr-defined]


async def test_ask_send_anyway_sends_over_the_trigger_without_compacting(
    project: Path, clock: ManualClock
) -> None:
    policy = Scripted([SendAnyway()])
    session = _session(project, clock, "ask", policy)
    await session.fill("turn")
    await session.say(padded("one more"))
    assert session.outcomes() == [] and not session.summary_requests()
    last = _main_snapshots(session)[-1]
    budget = session.runner.model.budget
    assert last.estimated_prompt_tokens >= budget.soft_threshold and last.fits


async def test_ask_refused_ends_the_run_and_headless_says_what_to_do(
    project: Path, clock: ManualClock
) -> None:
    session = _session(project, clock, "ask", HeadlessPolicy())
    await session.fill("turn")
    sent = len(session.main_requests())
    result = await session.driver.submit(padded("one more"))
    assert result.status == "error" and result.error_kind == "compaction_ask"
    assert "compaction mode is ask, and nobody can answer here" in result.error
    assert "--compaction auto" in result.error
    assert len(session.main_requests()) == sent  # nothing was sent


def _tool_lineage(results: int, size: int) -> ConversationLineage:
    messages: list[Message] = []
    for turn in range(1, results + 1):
        call = ToolCall(f"c{turn}", "read", {"path": f"f{turn}.md"})
        messages += [
            Message("user", f"read f{turn}.md", turn=turn),
            Message("assistant", "", tool_calls=(call,), turn=turn),
            Message("tool", "r " * size, name="read", tool_call_id=call.id, turn=turn),
            Message("assistant", f"f{turn}.md read", turn=turn),
        ]
    return ConversationLineage.start(messages)


async def test_ask_mask_largest_masks_in_a_new_generation(
    project: Path, clock: ManualClock
) -> None:
    policy = Scripted([MaskLargest()])
    # 4 results of ~1,500 tokens on a 4,000 window: the next request is over the trigger.
    session = _session(project, clock, "ask", policy, lineage=_tool_lineage(4, 1500))
    await session.say("go on")
    question = policy.questions[0]
    assert question.maskable and question.maskable[0].label.startswith("read path=")
    outcomes = session.outcomes()
    assert [o.modes for o in outcomes] == [(MASK_MODE,)]
    assert not session.summary_requests()
    generations = session.lineage.generations
    assert len(generations) == 2 and generations[0].messages[2].content.startswith("r r")
    masked = [m for m in generations[1].messages if m.content.startswith(MASK_PREFIX)]
    assert {m.tool_call_id for m in masked} == {c.call_id for c in question.maskable}
    assert {e.label for e in outcomes[0].edits} == {c.label for c in question.maskable}


async def test_off_never_compacts_warns_near_the_limit_and_stops_at_the_window(
    project: Path, clock: ManualClock
) -> None:
    session = _session(project, clock, "off")
    result = None
    for index in range(40):
        result = await session.driver.submit(padded(f"turn {index}", 30))
        if result.status != "done":
            break
    assert result is not None and result.status == "error"
    assert result.error_kind == "context_window"
    assert "compaction is off" in result.error
    assert session.outcomes() == [] and not session.summary_requests()
    warnings = [e for e in session.sink.of(WarningEvent) if e.code == "compaction_off"]  # type: ignore[attr-defined]
    assert len(warnings) == 1  # once per generation
    for snapshot in _main_snapshots(session):
        assert snapshot.fits  # nothing over the window was ever sent


async def test_auto_asks_which_pins_to_drop_when_they_alone_cannot_fit(
    project: Path, clock: ManualClock
) -> None:
    lineage = _tool_lineage(3, 1300)
    big = [m for m in lineage.active.messages if m.role == "tool"]
    for message in big:
        lineage = lineage.pin(pin_key(message))
    policy = Scripted(unpins=[Unpin((pin_key(big[0]), pin_key(big[1])))])
    session = _session(project, clock, "auto", policy, lineage=lineage)
    await session.say("go on")
    asked = policy.pin_questions
    assert len(asked) == 1 and len(asked[0].pins) == 3
    assert asked[0].pins[0].label.startswith("read path=")
    assert session.lineage.pins == (pin_key(big[2]),)
    assert big[2] in session.runner.conversation
    assert len(session.outcomes()) == 1


async def test_headless_pins_that_cannot_fit_fail_naming_them(
    project: Path, clock: ManualClock
) -> None:
    lineage = _tool_lineage(3, 1300)
    big = [m for m in lineage.active.messages if m.role == "tool"]
    for message in big:
        lineage = lineage.pin(pin_key(message))
    session = _session(project, clock, "auto", None, lineage=lineage)
    result = await session.driver.submit("go on")
    assert result.status == "error" and result.error_kind == "pins_too_large"
    assert "unpin some: read path=f" in result.error and "tokens" in result.error
    errors = session.sink.of(ErrorEvent)
    assert errors and errors[-1].code == "pins_too_large"  # type: ignore[attr-defined]


async def test_a_pinned_message_survives_runner_compactions(
    project: Path, clock: ManualClock
) -> None:
    session = _session(project, clock, "auto")
    await session.say("always answer in French")
    rule = session.runner.conversation[0]
    session.runner.pin(rule)
    for round_ in range(3):
        await session.fill(f"r{round_}")
        await session.say(padded(f"over {round_}"))
    assert len(session.outcomes()) >= 2
    assert rule in session.runner.conversation


_ANSWERS = st.sampled_from(["compact", "send", "mask", "refuse"])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    mode=st.sampled_from(["auto", "ask", "off"]),
    sizes=st.lists(st.integers(min_value=5, max_value=400), min_size=3, max_size=14),
    answers=st.lists(_ANSWERS, max_size=30),
)
async def test_the_hard_fit_holds_under_every_mode(
    project: Path, clock: ManualClock, mode: str, sizes: list[int], answers: list[str]
) -> None:
    """Whatever the mode and the answers, no main request that does not fit is ever sent."""
    table = {"compact": CompactNow(), "send": SendAnyway(), "mask": MaskLargest()}
    policy = Scripted([table.get(a, Refuse("no")) for a in answers])
    session = _session(project, clock, mode, policy)  # type: ignore[arg-type]
    for index, words in enumerate(sizes):
        await session.driver.submit(padded(f"message {index}", words))
    budget = session.runner.model.budget
    for snapshot in _main_snapshots(session):
        assert snapshot.fits
        assert budget.fit_request(snapshot.estimated_prompt_tokens).fits
    if mode == "off":
        assert session.outcomes() == []
