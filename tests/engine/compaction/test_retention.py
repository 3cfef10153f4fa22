"""Retention: the anchor, skill envelopes, the pending line and the new conversation layout."""

from __future__ import annotations

from collections.abc import Sequence

from steiner_tui.engine.compaction.retention import (
    anchor_real_user_retention,
    compose_compacted_conversation,
    pending_sub_agents_message,
    render_pending_sub_agents_line,
    replayed_skill_message,
    strip_retained_skill_blocks,
)
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Image, Message
from steiner_tui.engine.skills.envelopes import (
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
)
from steiner_tui.engine.skills.modes import mode_notice

ALPHA = render_skill_activation("alpha", "Alpha body.")[0]
BETA = render_skill_activation("beta", "Beta body.")[0]
GAMMA = render_skill_activation("gamma", "Gamma body.")[0]


def always(_: Sequence[Message]) -> bool:
    return True


def never(_: Sequence[Message]) -> bool:
    return False


# -- pending line -------------------------------------------------------------------------------


def test_pending_line_exact() -> None:
    line = render_pending_sub_agents_line(
        [("code-3", "code", "running"), ("review-5", "review", "queued")]
    )
    assert line == (
        "<steiner-sub-agents-pending>code-3 (code, running); review-5 (review, queued)"
        "</steiner-sub-agents-pending>"
    )


def test_pending_line_none_is_empty_and_no_message() -> None:
    assert render_pending_sub_agents_line([]) == ""
    assert pending_sub_agents_message([]) is None


def test_pending_message_is_a_sub_agent_result() -> None:
    message = pending_sub_agents_message([("code-3", "code", "running")])
    assert message is not None
    assert message.role == "user"
    assert message.source == SUB_AGENT_RESULT_SOURCE


# -- anchor -------------------------------------------------------------------------------------


def _agentic() -> tuple[list[Message], list[Message]]:
    old_user = Message("user", "old question")
    old_answer = Message("assistant", "old answer")
    user = Message("user", "latest question")
    steps = [
        Message("assistant", "step 1"),
        Message("assistant", "step 2"),
        Message("assistant", "step 3"),
    ]
    return [old_user, old_answer, user], steps


def test_anchor_moves_tail_back_to_latest_real_user_message() -> None:
    summarized, retained = _agentic()
    before, after = anchor_real_user_retention(summarized, retained, always)
    assert before == tuple(summarized[:2])
    assert after[0].content == "latest question"
    assert len(after) == 4


def test_anchor_not_kept_when_the_extended_tail_does_not_fit() -> None:
    summarized, retained = _agentic()
    assert anchor_real_user_retention(summarized, retained, never) == (
        tuple(summarized),
        tuple(retained),
    )


def test_anchor_not_kept_when_nothing_would_remain_to_summarize() -> None:
    _, retained = _agentic()
    summarized = [Message("user", "the only question")]
    assert anchor_real_user_retention(summarized, retained, always) == (
        tuple(summarized),
        tuple(retained),
    )


def test_anchor_ignores_sub_agent_results_and_tails_with_a_real_user() -> None:
    summarized, retained = _agentic()
    sub = Message("user", "result", source=SUB_AGENT_RESULT_SOURCE)
    _, after = anchor_real_user_retention([*summarized, sub], retained, always)
    assert after[0].content == "latest question"
    assert after[1] == sub
    with_user = [Message("user", "follow-up"), *retained]
    assert anchor_real_user_retention(summarized, with_user, always)[1] == tuple(with_user)


# -- skills -------------------------------------------------------------------------------------


def test_strip_keeps_text_and_drops_envelope_only_messages() -> None:
    message = Message("user", prepend_skill_blocks([ALPHA], "do it"))
    assert strip_retained_skill_blocks(message) == Message("user", "do it")
    assert strip_retained_skill_blocks(Message("user", ALPHA)) is None
    image = Message("user", ALPHA, images=(Image("image/png", "AAAA"),))
    kept = strip_retained_skill_blocks(image)
    assert kept is not None
    assert kept.content == ""
    assert kept.images == image.images


def test_strip_keeps_the_mode_notice_and_non_user_messages() -> None:
    notice = mode_notice("build") + "\n\n"
    message = Message("user", notice + prepend_skill_blocks([ALPHA], "go"))
    stripped = strip_retained_skill_blocks(message)
    assert stripped is not None
    assert stripped.content == notice + "go"
    assistant = Message("assistant", ALPHA)
    assert strip_retained_skill_blocks(assistant) is assistant
    empty = Message("assistant", "")
    assert strip_retained_skill_blocks(empty) is empty


def test_replayed_skills_fold_the_whole_generation() -> None:
    generation = [
        Message("user", prepend_skill_blocks([ALPHA, GAMMA], "start")),
        Message("assistant", "ok"),
        Message("user", prepend_skill_blocks([render_skill_deactivation("gamma"), BETA], "next")),
    ]
    replay = replayed_skill_message(generation)
    assert replay == Message("user", ALPHA + "\n\n" + BETA)
    assert replayed_skill_message([Message("user", "plain")]) is None


def test_compose_layout_summary_skills_retained_pending() -> None:
    summarized = [
        Message("user", prepend_skill_blocks([ALPHA], "first")),
        Message("assistant", "a"),
    ]
    stale = Message(
        "user",
        render_pending_sub_agents_line([("old-1", "code", "running")]),
        source=SUB_AGENT_RESULT_SOURCE,
    )
    retained = [
        Message("user", prepend_skill_blocks([BETA], "second")),
        Message("assistant", "b"),
        stale,
        Message("user", BETA),
    ]
    composed = compose_compacted_conversation(
        "SUMMARY", summarized + retained, retained, [("code-3", "code", "running")]
    )
    assert [m.role for m in composed.messages] == ["summary", "user", "user", "assistant", "user"]
    assert composed.messages[0].content == "SUMMARY"
    assert composed.messages[1].content == ALPHA + "\n\n" + BETA
    assert composed.messages[2].content == "second"
    assert composed.messages[4].content == (
        "<steiner-sub-agents-pending>code-3 (code, running)</steiner-sub-agents-pending>"
    )
    assert composed.origins == (None, None, retained[0], retained[1], None)


def test_compose_without_skills_or_pending() -> None:
    retained = [Message("user", "q"), Message("assistant", "a")]
    composed = compose_compacted_conversation("S", retained, retained)
    assert composed.messages == (Message("summary", "S"), *retained)
