"""The operation on main: normal, emergency, not applied, skills, pending line, manual."""

from __future__ import annotations

from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.compaction.escalation import CompactionCounter
from steiner_tui.engine.compaction.host import SummaryResponse, SummaryTarget
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import (
    commit_compaction,
    compact_with_lineage,
    snapshot_tools,
)
from steiner_tui.engine.events import HealthEvent, ListSink
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.engine.skills.envelopes import prepend_skill_blocks, render_skill_activation
from steiner_tui.engine.tooldefs import ToolDefinition
from tests.engine.compaction.fakes import (
    T0,
    FakeHost,
    conversation,
    heavy_tail_conversation,
    main_target,
    make_env,
    said,
    text,
    tokens_of,
)

READ = ToolDefinition("read", "Read a file.", {"type": "object"})


async def test_normal_stage_applies() -> None:
    messages = conversation(6)
    host = FakeHost([SummaryResponse("The summary.")])
    lineage = ConversationLineage.start(messages)
    result = await compact_with_lineage(lineage, make_env(host), tools=(READ,))
    assert result.backend_state_retired is False
    outcome = result.outcome
    assert outcome.applied and outcome.stage_count == 1 and outcome.modes == ("normal",)
    assert outcome.summary_model == "anthropic/main-model"
    assert outcome.fallback_status == "" and outcome.fallback_reason == ""
    assert outcome.before_tokens == 120 and outcome.after_tokens == 60 + len("The summary.") // 4
    assert outcome.summarized_count == 6 and outcome.retained_count == 6
    assert outcome.at == T0
    assert outcome.health == HealthEvent(
        "info", "stable", "continue, but watch for another compaction", 1
    )
    assert [g.id for g in result.lineage.generations] == [0, 1]
    active = result.lineage.active
    assert active.summary == "The summary."
    assert active.outcome == outcome
    assert active.messages == (Message("summary", "The summary."), *messages[6:])
    summarized, instruction, _target, max_tokens, tools = host.builds[0]
    assert summarized == tuple(messages[:6])
    assert "## 1. Task and Goal" in instruction
    assert max_tokens == 8000
    assert tools == (READ,)
    request, _ = host.calls[0]
    assert request.compaction and request.max_tokens == 8000
    assert lineage.active.messages == tuple(messages)  # the input is never modified


async def test_normal_not_enough_runs_emergency_on_its_result() -> None:
    messages = heavy_tail_conversation()
    host = FakeHost(
        [SummaryResponse(said("First summary.")), SummaryResponse(said("Short summary."))]
    )
    result = await compact_with_lineage(ConversationLineage.start(messages), make_env(host))
    outcome = result.outcome
    assert outcome.stage_count == 2 and outcome.modes == ("normal", "emergency")
    assert len(host.calls) == 2
    assert "EMERGENCY COMPACTION" not in host.builds[0][1]
    assert "EMERGENCY COMPACTION" in host.builds[1][1]
    assert host.builds[1][3] == 4000
    assert host.builds[1][0][0] == Message("summary", said("First summary."))
    assert result.lineage.active.messages == (
        Message("summary", said("Short summary.")),
        *messages[-2:],
    )
    assert outcome.summarized_count == 8 and outcome.retained_count == 2
    assert outcome.health is not None and outcome.health.state == "fragile"
    assert [g.id for g in result.lineage.generations] == [0, 1]


async def test_normal_not_applied_falls_to_emergency() -> None:
    # Two turns: normal keeps three and has nothing to summarize; emergency keeps one.
    messages = conversation(2)
    host = FakeHost([SummaryResponse(said("S"))])
    result = await compact_with_lineage(ConversationLineage.start(messages), make_env(host))
    assert result.outcome.modes == ("emergency",)
    assert result.outcome.stage_count == 1
    assert "EMERGENCY COMPACTION" in host.builds[0][1]


async def test_nothing_to_summarize_is_not_applied() -> None:
    lineage = ConversationLineage.start(conversation(1))
    host = FakeHost()
    result = await compact_with_lineage(lineage, make_env(host))
    assert not result.outcome.applied
    assert result.outcome.stage_count == 0 and result.outcome.health is None
    assert result.lineage == lineage
    assert host.calls == []


async def test_empty_main_summary_is_not_applied() -> None:
    lineage = ConversationLineage.start(conversation(6))
    host = FakeHost([SummaryResponse("  \n"), SummaryResponse("")])
    result = await compact_with_lineage(lineage, make_env(host))
    assert not result.outcome.applied
    assert len(host.calls) == 2
    assert result.lineage == lineage


async def test_a_normal_plan_too_large_for_main_is_not_applied_and_emergency_runs() -> None:
    # 10k window: a 7k-token first turn plus the summary reserve does not fit. The normal
    # stage does not apply (no call); the emergency stage, the last one, makes its input fit.
    messages = [Message("user", text(3500, "u1")), Message("assistant", text(3500, "a1"))]
    messages += conversation(3)
    host = FakeHost([SummaryResponse(said("S"))])
    env = make_env(host, main=main_target(10_000))
    result = await compact_with_lineage(ConversationLineage.start(messages), env)
    assert result.outcome.applied and result.outcome.modes == ("emergency",)
    assert len(host.calls) == 1 and "EMERGENCY COMPACTION" in host.builds[-1][1]
    (request, target) = host.calls[0]
    assert target.budget.fit_compaction_request(tokens_of(request.messages), "emergency").fits
    edits = result.outcome.edits
    assert edits and {e.where for e in edits} == {"summary_request"}
    assert ("cut", "user") in {(e.kind, e.role) for e in edits}


async def test_anchor_keeps_the_latest_real_user_message() -> None:
    messages = [
        Message("user", "old question"),
        Message("assistant", "old answer"),
        Message("user", "latest question"),
        *[Message("assistant", f"step {i}") for i in range(1, 5)],
    ]
    host = FakeHost([SummaryResponse(said("S"))])
    result = await compact_with_lineage(ConversationLineage.start(messages), make_env(host))
    assert host.builds[0][0] == tuple(messages[:2])
    assert result.lineage.active.messages[1:] == tuple(messages[2:])


async def test_skills_survive_exactly_once_across_compactions() -> None:
    alpha = render_skill_activation("alpha", "Alpha body.")[0]
    beta = render_skill_activation("beta", "Beta body.")[0]
    messages = [
        Message("user", prepend_skill_blocks([alpha], "start")),
        Message("assistant", "ok"),
        *conversation(3)[2:],
        Message("user", prepend_skill_blocks([beta], "go on")),
        Message("assistant", "fine"),
    ]
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    env = make_env(host)
    first = await compact_with_lineage(ConversationLineage.start(messages), env)
    active = first.lineage.active.messages
    assert active[1] == Message("user", alpha + "\n\n" + beta)
    assert Message("user", "go on") in active
    grown = first.lineage.append(*conversation(4))
    second = await compact_with_lineage(grown, env)
    contents = [m.content for m in second.lineage.active.messages]
    assert sum(c.count('<steiner-skill name="alpha"') for c in contents) == 1
    assert sum(c.count('<steiner-skill name="beta"') for c in contents) == 1
    assert second.lineage.active.messages[1] == Message("user", alpha + "\n\n" + beta)
    assert [g.id for g in second.lineage.generations] == [0, 1, 2]


async def test_pending_line_appended_and_replaced() -> None:
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    env = make_env(host)
    pending = [("code-3", "code", "running"), ("review-5", "review", "queued")]
    first = await compact_with_lineage(
        ConversationLineage.start(conversation(6)), env, pending_sub_agents=pending
    )
    last = first.lineage.active.messages[-1]
    assert last == Message(
        "user",
        "<steiner-sub-agents-pending>code-3 (code, running); review-5 (review, queued)"
        "</steiner-sub-agents-pending>",
        source=SUB_AGENT_RESULT_SOURCE,
    )
    second = await compact_with_lineage(first.lineage.append(*conversation(1)), env)
    assert not any(m.source == SUB_AGENT_RESULT_SOURCE for m in second.lineage.active.messages)


async def test_manual_compaction_uses_steering_and_last_parent_tools() -> None:
    host = FakeHost([SummaryResponse(said("S")), SummaryResponse(said("S"))])
    env = make_env(host)
    lineage = ConversationLineage.start(conversation(6))
    last = ChatRequest(model="main-model", messages=(), tools=(READ,))
    tools = snapshot_tools(last)  # as the runner's /compact asks
    result = await compact_with_lineage(
        lineage, env, tools=tools, steering="focus on X", manual=True
    )
    assert result.outcome.manual and result.outcome.steering == "focus on X"
    assert host.builds[0][1].endswith("Additional user steering for this compaction:\n\nfocus on X")
    assert host.builds[0][4] == (READ,)
    await compact_with_lineage(lineage, env, tools=snapshot_tools(None), manual=True)
    assert host.builds[1][4] == ()
    assert snapshot_tools(None) == ()


async def test_escalation_counts_stages_per_run() -> None:
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    env = make_env(host)
    counter = CompactionCounter()
    sink = ListSink()
    first = await compact_with_lineage(
        ConversationLineage.start(conversation(6)), env, prior_stages=counter.stages
    )
    commit_compaction(first, counter=counter, archive=None, sink=sink)
    second = await compact_with_lineage(
        first.lineage.append(*conversation(3)), env, prior_stages=counter.stages
    )
    commit_compaction(second, counter=counter, archive=None, sink=sink)
    assert counter.stages == 2
    assert [(e.severity, e.state, e.stage_count) for e in sink.of(HealthEvent)] == [  # type: ignore[attr-defined]
        ("info", "stable", 1),
        ("warning", "fragile", 2),
    ]


async def test_the_emergency_stage_keeps_the_real_last_turn_with_sub_agents_pending() -> None:
    # The normal stage ends its result with a fresh pending line; the emergency stage must
    # still retain the real last turn, not just that line.
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    pending = (("code-3", "code", "running"),)
    lineage = ConversationLineage.start(heavy_tail_conversation())
    result = await compact_with_lineage(lineage, make_env(host), pending_sub_agents=pending)
    assert result.outcome.modes == ("normal", "emergency")
    contents = [m.content for m in result.lineage.active.messages]
    assert contents[0].startswith("S2")
    assert (
        contents[-1]
        == "<steiner-sub-agents-pending>code-3 (code, running)</steiner-sub-agents-pending>"
    )
    assert contents[-3].startswith("u5") and contents[-2].startswith("a5")
    assert result.outcome.retained_count == 2


async def test_a_normal_result_under_the_soft_trigger_but_over_the_hard_fit_runs_emergency() -> (
    None
):
    # 10k window with a fixed 5,000-token reserve: the hard fit allows 4,744 prompt tokens,
    # the soft trigger is 7,000. The normal result (a 2,000-token summary and three 1,000-token
    # turns) passes the trigger but not the fit, so the emergency stage runs on it.
    budget = ModelTokenBudget(context_size=10_000, max_output=5_000, completion_reserve=5_000)
    main = SummaryTarget("anthropic", "main-model", budget)
    messages = conversation(7, tokens=500)
    host = FakeHost([SummaryResponse(text(2000, "S1")), SummaryResponse(text(300, "S2"))])
    result = await compact_with_lineage(ConversationLineage.start(messages), make_env(host, main))
    assert result.outcome.modes == ("normal", "emergency")
    assert budget.fit_request(tokens_of(result.lineage.active.messages)).fits
