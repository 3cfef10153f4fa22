"""Skill delta, user-message composition and the interactive toggles."""

from __future__ import annotations

from pathlib import Path

import pytest

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.delta import (
    InteractiveSkills,
    SkillStatus,
    activation_envelope,
    compose_user_message,
    skill_delta_blocks,
)
from steiner_tui.engine.skills.effective import effective_skills, effective_skills_of_messages
from steiner_tui.engine.skills.envelopes import (
    SKILL_CONTENT_CAP_BYTES,
    TRUNCATION_MARKER,
    SkillBlock,
    cap_skill_body,
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
    split_skill_blocks,
)
from steiner_tui.engine.skills.model import Skill
from steiner_tui.engine.skills.modes import BUILD_MODE_NOTICE, PLAN_MODE_NOTICE


def make_skill(name: str, body: str = "", description: str = "") -> Skill:
    capped, truncated = cap_skill_body(body or f"{name} instructions")
    return Skill(
        name=name,
        description=description or f"about {name}",
        body=capped,
        path=Path("/skills") / name / "SKILL.md",
        root=Path("/skills"),
        original_bytes=len((body or f"{name} instructions").encode()),
        truncated=truncated,
    )


SKILLS = {name: make_skill(name) for name in ("a", "b", "c", "d")}


def on(name: str) -> str:
    return activation_envelope(SKILLS[name])


def off(name: str) -> str:
    return render_skill_deactivation(name)


def effective(*contents: str) -> list[SkillBlock]:
    return effective_skills(contents)


def test_nothing_enabled_nothing_active() -> None:
    assert skill_delta_blocks([], [], SKILLS) == []


def test_deactivations_first_in_effective_order_then_activations_in_enabled_order() -> None:
    eff = effective(prepend_skill_blocks([on("b"), on("a"), on("c")], "x"))
    delta = skill_delta_blocks(["d", "c", "b"], eff, SKILLS)
    assert delta == [off("a"), on("d")]
    delta = skill_delta_blocks(["d", "a"], eff, SKILLS)
    assert delta == [off("b"), off("c"), on("d")]
    assert skill_delta_blocks(["d", "b", "a"][::-1], [], SKILLS) == [on("a"), on("b"), on("d")]


def test_already_active_enabled_skill_is_not_resent() -> None:
    eff = effective(prepend_skill_blocks([on("a")], "x"))
    assert skill_delta_blocks(["a"], eff, SKILLS) == []


def test_unknown_enabled_name_cannot_be_activated() -> None:
    assert skill_delta_blocks(["ghost", "a"], [], SKILLS) == [on("a")]


def test_truncated_skill_is_not_capped_twice() -> None:
    big = make_skill("big", "q" * (SKILL_CONTENT_CAP_BYTES + 5))
    assert big.truncated
    envelope = skill_delta_blocks(["big"], [], {"big": big})[0]
    assert envelope == render_skill_activation("big", "q" * (SKILL_CONTENT_CAP_BYTES + 5))[0]
    assert envelope.count(TRUNCATION_MARKER) == 1


def test_compose_user_message() -> None:
    delta = [off("a"), on("b")]
    assert compose_user_message("hi", [], None) == "hi"
    assert compose_user_message("hi", [], "nonsense") == "hi"
    assert compose_user_message("hi", delta) == f"{off('a')}\n\n{on('b')}\n\nhi"
    composed = compose_user_message("hi", delta, "plan")
    assert composed == f"{PLAN_MODE_NOTICE}\n\n{off('a')}\n\n{on('b')}\n\nhi"
    prefix, blocks, rest = split_skill_blocks(composed)
    assert (prefix, [b.text for b in blocks], rest) == (PLAN_MODE_NOTICE + "\n\n", delta, "hi")
    assert compose_user_message("hi", [], "build") == f"{BUILD_MODE_NOTICE}\n\nhi"


def send(skills: InteractiveSkills, conversation: list[Message], text: str = "go") -> str:
    content = compose_user_message(text, skills.take_delta(conversation), None)
    conversation.append(Message("user", content))
    conversation.append(Message("assistant", "ok"))
    return content


def test_enable_then_disable_before_send_yields_nothing() -> None:
    skills = InteractiveSkills(SKILLS.values())
    conversation: list[Message] = []
    skills.enable("a")
    skills.disable("a")
    assert skills.take_delta(conversation) == []
    assert skills.toggle("b") is True
    assert skills.toggle("b") is False
    assert send(skills, conversation) == "go"


def test_interactive_flow_and_states() -> None:
    skills = InteractiveSkills(SKILLS, enabled=["b"])
    conversation: list[Message] = []

    def state_map() -> dict[str, tuple[str, bool]]:
        return {s.name: (s.state, s.leftover_inactive) for s in skills.states(conversation)}

    assert state_map()["b"] == ("pending_activation", False)
    assert send(skills, conversation) == f"{on('b')}\n\ngo"
    assert state_map()["b"] == ("active", False)

    skills.enable("a")
    skills.toggle("b")
    assert state_map()["a"] == ("pending_activation", False)
    assert state_map()["b"] == ("pending_deactivation", False)
    assert send(skills, conversation) == f"{off('b')}\n\n{on('a')}\n\ngo"
    assert state_map() == {
        "a": ("active", False),
        "b": ("inactive", True),
        "c": ("inactive", False),
        "d": ("inactive", False),
    }
    assert [b.name for b in effective_skills_of_messages(conversation)] == ["a"]
    assert send(skills, conversation) == "go"


def test_status_rows_carry_skill_details() -> None:
    big = make_skill("big", "q" * (SKILL_CONTENT_CAP_BYTES + 5), "large one")
    skills = InteractiveSkills([big])
    [row] = skills.states([])
    size = len(activation_envelope(big).encode())  # what it costs: the envelope it would send
    assert row == SkillStatus("big", "large one", size, True, "inactive", leftover_inactive=False)


def test_in_force_skill_without_discovery_is_listed_and_deactivated() -> None:
    ghost = render_skill_activation("ghost", "gone from disk")[0]
    conversation = [Message("user", prepend_skill_blocks([ghost], "x"))]
    skills = InteractiveSkills(SKILLS)
    row = next(s for s in skills.states(conversation) if s.name == "ghost")
    assert (row.state, row.description, row.size_bytes) == (
        "pending_deactivation",
        "",
        len(ghost.encode()),  # the envelope in force
    )
    assert skills.take_delta(conversation) == [off("ghost")]


def test_seeded_unknown_names_are_kept() -> None:
    skills = InteractiveSkills(SKILLS, enabled=["a", "ghost"])
    assert skills.enabled == ("a", "ghost")


def test_enabling_unknown_skill_raises_and_order_is_kept() -> None:
    skills = InteractiveSkills(SKILLS)
    with pytest.raises(KeyError):
        skills.enable("ghost")
    with pytest.raises(KeyError):
        skills.toggle("ghost")
    skills.enable("c")
    skills.enable("a")
    skills.enable("c")
    assert skills.enabled == ("c", "a")
    assert skills.take_delta([]) == [on("c"), on("a")]


def test_replace_skills_keeps_enabled_set() -> None:
    skills = InteractiveSkills(SKILLS, enabled=["a"])
    skills.replace_skills({"a": make_skill("a", "new body")})
    assert skills.enabled == ("a",)
    assert list(skills.skills) == ["a"]
    assert "new body" in skills.take_delta([])[0]


def test_states_fold_only_the_messages_added_since_the_last_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With 5,000 messages every keystroke re-read every user message for its envelopes (the
    sidebar and the completion list ask for the states on each key): 11% of the UI thread."""
    import steiner_tui.engine.skills.effective as effective_module

    read: list[str] = []
    split = effective_module.split_skill_blocks

    def counting(content: str) -> tuple[str, list[SkillBlock], str]:
        read.append(content)
        return split(content)

    monkeypatch.setattr(effective_module, "split_skill_blocks", counting)
    skills = InteractiveSkills(SKILLS, enabled=["a"])
    conversation = tuple(Message("user", f"question {n}") for n in range(100))
    conversation = (Message("user", on("b") + "\n\nhello"), *conversation)
    skills.states(conversation)
    assert len(read) == 101
    assert [row.state for row in skills.states(conversation)][:2] == [
        "pending_activation",
        "pending_deactivation",
    ]
    assert skills.take_delta(conversation) and len(read) == 101  # nothing new: nothing read
    longer = (*conversation, Message("assistant", "ok"), Message("user", off("b")))
    assert [row.state for row in skills.states(longer)][1] == "inactive"
    assert len(read) == 102
    # Another conversation (a compaction replaced it): folded from its start.
    assert [row.state for row in skills.states(conversation[1:])][1] == "inactive"
    assert len(read) == 202


def test_a_fold_given_is_gone_on_from_only_for_the_messages_it_folded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A resume hands its fold over: the next request does not fold the conversation again;
    messages that differ from the ones folded (a driver prefix escaped) are folded afresh."""
    from steiner_tui.engine.skills import delta
    from steiner_tui.engine.skills.effective import fold_skills, user_contents

    conversation = (Message("user", f"{on('a')}\n\ngo"), Message("assistant", "ok"))
    folded = (conversation, fold_skills(user_contents(conversation)))
    other = (Message("user", "go"), Message("assistant", "ok"))
    calls: list[int] = []

    def counted(*args: object) -> object:
        calls.append(1)
        return fold_skills(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(delta, "fold_skills", counted)
    skills = InteractiveSkills(SKILLS, ["a"], folded)
    assert skills.take_delta((*conversation,)) == [] and calls == []
    assert [r.name for r in skills.states(conversation) if r.state == "active"] == ["a"]
    assert calls == []
    fresh = InteractiveSkills(SKILLS, ["a"], folded)
    assert fresh.take_delta(other) == [on("a")] and calls == [1]
