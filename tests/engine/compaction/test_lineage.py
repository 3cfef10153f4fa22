"""Generations and the lineage: immutable, every generation kept, the latest active."""

from __future__ import annotations

import pytest

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message
from tests.engine.compaction.fakes import T0

HELLO = Message("user", "hello")


def test_start_and_append() -> None:
    lineage = ConversationLineage.start([HELLO], backend_state="r1", at=T0)
    assert lineage.active.id == 0
    grown = lineage.append(Message("assistant", "hi"))
    assert grown.active.messages == (HELLO, Message("assistant", "hi"))
    assert lineage.active.messages == (HELLO,)
    assert ConversationLineage().active.messages == ()


def test_advance_keeps_every_generation() -> None:
    lineage = ConversationLineage.start([HELLO], backend_state="r1")
    outcome = CompactionOutcome(applied=True, stage_count=1, modes=("normal",))
    second = lineage.advance([Message("summary", "S")], "S", outcome, T0)
    third = second.advance([Message("summary", "S2")], "S2", outcome, T0)
    assert [g.id for g in third.generations] == [0, 1, 2]
    assert third.generations[0].messages == (HELLO,)
    assert third.generations[0].backend_state == "r1"
    assert third.active.summary == "S2"
    assert third.active.outcome == outcome
    assert third.active.backend_state is None
    assert third.active.created_at == T0


def test_backend_state_changes_only_the_latest_generation() -> None:
    lineage = ConversationLineage.start([HELLO], backend_state="r1")
    lineage = lineage.advance([], "S", None, None).with_backend_state("r2")
    cleared = lineage.clear_backend_state()
    assert [g.backend_state for g in cleared.generations] == ["r1", None]
    assert [g.id for g in cleared.generations] == [0, 1]
    assert cleared.clear_backend_state() is cleared


def test_with_active_messages_and_immutability() -> None:
    lineage = ConversationLineage.start([HELLO])
    replaced = lineage.with_active_messages([Message("user", "other")])
    assert replaced.active.messages == (Message("user", "other"),)
    assert lineage.active.messages == (HELLO,)
    with pytest.raises(AttributeError):
        lineage.generations = ()  # type: ignore[misc]
    with pytest.raises(ValueError, match="at least one generation"):
        ConversationLineage(())


def test_outcome_mode() -> None:
    assert CompactionOutcome(applied=False).mode == ""
    assert CompactionOutcome(applied=True, modes=("normal", "emergency")).mode == "emergency"
