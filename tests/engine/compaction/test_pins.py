"""Pins: kept verbatim through the normal and the emergency stage, with their calls, and a
clear failure when they alone cannot fit (docs/design.md, "8. Compaction: turns, stages and
the summary")."""

from __future__ import annotations

import pytest

from steiner_tui.engine.compaction.failures import CompactionFailed
from steiner_tui.engine.compaction.host import SummaryResponse
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import compact_with_lineage
from steiner_tui.engine.compaction.pins import (
    PinsTooLarge,
    is_pinned_by,
    pin_key,
    pin_label,
    pinned_indexes,
)
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.skills.envelopes import render_skill_activation
from tests.engine.compaction.fakes import (
    FakeHost,
    conversation,
    main_target,
    make_env,
    said,
    text,
)


def _read_turn(turn: int, tokens: int, path: str, extra: int = 0) -> list[Message]:
    calls = [ToolCall(f"c{turn}", "read", {"path": path})]
    if extra:
        calls.append(ToolCall(f"d{turn}", "read", {"path": f"other{turn}.md"}))
    out = [
        Message("user", f"read {path}", turn=turn),
        Message("assistant", "", tool_calls=tuple(calls), turn=turn),
        Message("tool", text(tokens, f"r{turn}"), name="read", tool_call_id=f"c{turn}", turn=turn),
    ]
    if extra:
        other = text(extra, f"o{turn}")
        out.append(Message("tool", other, name="read", tool_call_id=f"d{turn}", turn=turn))
    out.append(Message("assistant", f"read {path}: done", turn=turn))
    return out


def test_a_pin_key_names_a_message_in_every_generation_that_keeps_it() -> None:
    envelope, _ = render_skill_activation("tdd", "write the test first")
    sent = Message("user", f"{envelope}\n\nkeep the API stable", turn=2)
    retained = Message("user", "keep the API stable", turn=2)  # envelopes stripped on retention
    assert pin_key(sent) == pin_key(retained)
    assert pin_key(retained) != pin_key(Message("user", "keep the API stable", turn=3))
    result = Message("tool", "out", tool_call_id="c7", turn=4)
    masked = Message("tool", f"{MASK_PREFIX}...", tool_call_id="c7", turn=4)
    assert pin_key(result) == pin_key(masked) == "4:tool:c7"


def test_a_pinned_result_keeps_its_call_and_the_calls_other_results() -> None:
    messages = _read_turn(1, 10, "a.md", extra=10)
    pinned, companions = pinned_indexes(messages, is_pinned_by([pin_key(messages[2])]))
    assert pinned == {1, 2} and companions == {3}
    reply = Message("assistant", "", tool_calls=messages[1].tool_calls, turn=1)
    pinned, companions = pinned_indexes(
        [messages[0], reply, *messages[2:]], is_pinned_by([pin_key(reply)])
    )
    assert pinned == {1} and companions == {2, 3}
    assert pin_label(messages[2], messages) == "read path=a.md (turn 1)"
    assert pin_label(messages[0]) == 'user (turn 1): "read a.md"'


async def test_the_normal_stage_keeps_pins_verbatim_in_order_before_the_tail() -> None:
    messages = conversation(8, tokens=50)
    rule, decision = messages[0], messages[5]  # turn 1's instruction, turn 3's reply
    lineage = ConversationLineage.start(messages, pins=[pin_key(decision), pin_key(rule)])
    host = FakeHost([SummaryResponse(said("S1"))])
    result = await compact_with_lineage(lineage, make_env(host))
    active = result.lineage.active
    assert result.outcome.applied
    assert [m.role for m in active.messages[:3]] == ["summary", "user", "assistant"]
    assert active.messages[1] is rule and active.messages[2] is decision
    assert active.messages[3:] == tuple(messages[-6:])  # the three retained turns
    summarized = host.builds[0][0]
    assert rule not in summarized and decision not in summarized
    assert result.lineage.pins == lineage.pins  # pins travel with the lineage


async def test_pins_survive_the_emergency_stage_and_a_second_compaction() -> None:
    # A heavy tail keeps the prompt over the trigger after the normal stage.
    messages = conversation(2, tokens=10)
    for turn in range(3, 6):
        messages += [
            Message("user", text(24_000, f"u{turn}"), turn=turn),
            Message("assistant", text(10, f"a{turn}"), turn=turn),
        ]
    pinned = messages[0]
    lineage = ConversationLineage.start(messages, pins=[pin_key(pinned)])
    host = FakeHost(
        [SummaryResponse(said("S1")), SummaryResponse(said("S2")), SummaryResponse("S3")]
    )
    result = await compact_with_lineage(lineage, make_env(host))
    assert result.outcome.modes == ("normal", "emergency")
    assert pinned in result.lineage.active.messages
    again = await compact_with_lineage(result.lineage, make_env(host))
    assert pinned in again.lineage.active.messages


async def test_room_making_never_masks_or_moves_a_pinned_result() -> None:
    # On a 40k window, a pinned 14k read and a run still reading 25k: the tail must shrink,
    # the pinned read stays whole and the other is masked.
    messages = (
        conversation(1)
        + _read_turn(2, 14_000, "f2.md")
        + _read_turn(3, 14_000, "f3.md")
        + _read_turn(4, 25_000, "f4.md")[:3]
    )
    keep = next(m for m in messages if m.tool_call_id == "c3")
    lineage = ConversationLineage.start(messages, pins=[pin_key(keep)])
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    result = await compact_with_lineage(lineage, make_env(host, main=main_target(40_000)))
    active = result.lineage.active.messages
    assert keep in active
    masked = [m for m in active if m.content.startswith(MASK_PREFIX)]
    assert masked and all(m.tool_call_id != "c3" for m in masked)
    labels = [e.label for e in result.outcome.edits if e.kind == "masked"]
    assert "read path=f3.md" not in labels


async def test_pins_too_large_to_fit_fail_naming_each_pin_and_its_size() -> None:
    messages = conversation(1) + _read_turn(2, 30_000, "huge.md") + conversation(4)[2:]
    huge = next(m for m in messages if m.tool_call_id == "c2")
    lineage = ConversationLineage.start(messages, pins=[pin_key(huge)])
    host = FakeHost([])
    with pytest.raises(CompactionFailed) as failed:
        await compact_with_lineage(lineage, make_env(host, main=main_target(32_000)))
    error = failed.value.error
    assert isinstance(error, PinsTooLarge)
    assert [(p.label, p.tokens) for p in error.pins] == [("read path=huge.md (turn 2)", 30_000)]
    assert "unpin some: read path=huge.md (turn 2) ~30,000 tokens" in str(error)
    assert not host.calls  # no summary was asked for


def test_lineage_pins_are_ordered_and_unique() -> None:
    lineage = ConversationLineage.start([Message("user", "a", turn=1)])
    pinned = lineage.pin("k1").pin("k2").pin("k1")
    assert pinned.pins == ("k1", "k2")
    assert pinned.unpin("k1").pins == ("k2",)
    assert pinned.append(Message("assistant", "b", turn=1)).pins == ("k1", "k2")
    assert pinned.clear_backend_state().pins == ("k1", "k2")
