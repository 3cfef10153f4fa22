"""Resume replay: one SkillStateEvent per leading envelope of each user message."""

from __future__ import annotations

from steiner_tui.engine.events import ListSink, SkillStateEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import (
    prepend_skill_blocks,
    render_skill_activation,
    render_skill_deactivation,
)
from steiner_tui.engine.skills.replay import replay_skill_states


def test_replay_emits_events_in_order() -> None:
    on_a = render_skill_activation("a", "body")[0]
    off_a = render_skill_deactivation("a")
    on_b = render_skill_activation("b", "x")[0]
    conversation = [
        Message("user", prepend_skill_blocks([on_a, on_b], "first")),
        Message("assistant", prepend_skill_blocks([off_a], "not user")),
        Message("user", "plain"),
        Message("user", prepend_skill_blocks([off_a], "second")),
    ]
    sink = ListSink()
    events = replay_skill_states(conversation, sink)
    size_a = len(on_a.split("\n", 1)[1].removesuffix("\n</steiner-skill>").encode())
    size_b = len(on_b.split("\n", 1)[1].removesuffix("\n</steiner-skill>").encode())
    assert events == [
        SkillStateEvent("a", "active", size_a),
        SkillStateEvent("b", "active", size_b),
        SkillStateEvent("a", "inactive", 101),
    ]
    assert sink.events == events
    assert replay_skill_states([], sink) == []
