"""Retention turns: where a turn starts and what each stage keeps."""

from __future__ import annotations

from steiner_tui.engine.compaction.retention import pending_sub_agents_message
from steiner_tui.engine.compaction.turns import (
    retain_recent_turns,
    split_compaction_turns,
    split_for_retention,
)
from steiner_tui.engine.messages import Message, ToolCall

U1 = Message("user", "u1")
A1 = Message("assistant", "", tool_calls=(ToolCall("c1", "read", {"path": "a"}),))
T1 = Message("tool", "result", tool_call_id="c1")
A2 = Message("assistant", "done")
U2 = Message("user", "u2")
A3 = Message("assistant", "a3")
SUMMARY = Message("summary", "earlier")


def test_turn_starts_at_user_and_at_second_assistant() -> None:
    turns = split_compaction_turns([U1, A1, T1, A2, U2, A3])
    assert turns == [[U1, A1, T1], [A2], [U2, A3]]


def test_leading_summary_is_its_own_turn_and_nothing_is_lost() -> None:
    messages = [SUMMARY, U1, A1, T1, A2]
    turns = split_compaction_turns(messages)
    assert turns[0] == [SUMMARY]
    assert [m for turn in turns for m in turn] == messages


def test_consecutive_users_are_separate_turns() -> None:
    assert split_compaction_turns([U1, U2]) == [[U1], [U2]]


def test_empty_conversation_has_no_turns() -> None:
    assert split_compaction_turns([]) == []


def test_retain_recent_turns() -> None:
    messages = [U1, A1, T1, A2, U2, A3]
    assert retain_recent_turns(messages, 1) == [U2, A3]
    assert retain_recent_turns(messages, 2) == [A2, U2, A3]
    assert retain_recent_turns(messages, 3) == messages
    assert retain_recent_turns(messages, 10) == messages
    assert retain_recent_turns(messages, 0) == []


def test_split_for_retention_partitions_the_conversation() -> None:
    messages = [SUMMARY, U1, A1, T1, A2, U2, A3]
    summarized, retained = split_for_retention(messages, 3)
    assert summarized == (SUMMARY,)
    assert retained == (U1, A1, T1, A2, U2, A3)
    summarized, retained = split_for_retention(messages, 1)
    assert summarized + retained == tuple(messages)
    assert retained == (U2, A3)


def test_a_pending_sub_agents_line_never_counts_as_a_retained_turn() -> None:
    pending = pending_sub_agents_message([("code-3", "code", "running")])
    assert pending is not None
    messages = [
        Message("user", "u1"),
        Message("assistant", "a1"),
        Message("user", "u2"),
        Message("assistant", "a2"),
        pending,
    ]
    summarized, retained = split_for_retention(messages, 1)
    assert [m.content for m in retained] == ["u2", "a2", pending.content]
    assert [m.content for m in summarized] == ["u1", "a1"]
    assert retain_recent_turns(messages, 2) == messages
