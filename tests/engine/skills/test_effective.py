"""Effective skills: fold envelopes over user messages in order."""

from __future__ import annotations

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.effective import (
    effective_skills,
    effective_skills_of_messages,
    fold_skills,
)
from steiner_tui.engine.skills.envelopes import (
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
)
from steiner_tui.engine.skills.modes import PLAN_MODE_NOTICE


def on(name: str, body: str = "body") -> str:
    return render_skill_activation(name, body)[0]


def off(name: str) -> str:
    return render_skill_deactivation(name)


def msg(*blocks: str, text: str = "hi") -> str:
    return prepend_skill_blocks(list(blocks), text)


def names(contents: list[str]) -> list[str]:
    return [b.name for b in effective_skills(contents)]


def test_activation_order_is_kept() -> None:
    assert names([msg(on("a"), on("b")), msg(on("c"))]) == ["a", "b", "c"]


def test_reactivation_moves_to_end_and_latest_text_wins() -> None:
    blocks = effective_skills([msg(on("a", "v1"), on("b")), msg(on("a", "v2"))])
    assert [b.name for b in blocks] == ["b", "a"]
    assert blocks[1].skill_body == "v2"
    assert blocks[1].text == on("a", "v2")


def test_deactivation_removes_and_unknown_deactivation_is_noop() -> None:
    assert names([msg(on("a"), on("b")), msg(off("a"))]) == ["b"]
    assert names([msg(off("zzz")), msg(on("a"))]) == ["a"]
    assert names([msg(on("a")), msg(off("zzz"))]) == ["a"]


def test_deactivate_then_reactivate_in_one_message() -> None:
    assert names([msg(on("a"), on("b")), msg(off("a"), on("a"))]) == ["b", "a"]


def test_only_leading_envelopes_and_mode_notice() -> None:
    later = "text first\n\n" + on("late")
    noticed = PLAN_MODE_NOTICE + "\n\n" + msg(on("m"))
    assert names([later, noticed]) == ["m"]


def test_messages_only_user_role_counts() -> None:
    conversation = [
        Message("user", msg(on("a"))),
        Message("assistant", msg(on("b"))),
        Message("tool", msg(on("c")), tool_call_id="1"),
        Message("summary", msg(on("d"))),
        Message("user", msg(off("a"), on("e"))),
    ]
    assert [b.name for b in effective_skills_of_messages(conversation)] == ["e"]


def test_fold_tracks_every_activated_name() -> None:
    fold = fold_skills([msg(on("a"), on("b")), msg(off("a")), msg(off("never"))])
    assert {block.name for block in fold.effective} == {"b"}
    assert fold.ever_activated == {"a", "b"}
