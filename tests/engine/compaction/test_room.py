"""Making room: masking first, then moving turns, then cutting; the summary request fits too.

(docs/design.md, "8. Compaction: turns, stages and the summary")
"""

from __future__ import annotations

from steiner_tui.engine.compaction.host import SummaryResponse
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.operation import compact_with_lineage
from steiner_tui.engine.compaction.room import (
    MASK_PREFIX,
    OMITTED_MARKER,
    Sizer,
    fit_retained_tail,
    fit_summary_input,
    mask_retained,
)
from steiner_tui.engine.messages import Message, ToolCall
from tests.engine.compaction.fakes import FakeHost, main_target, make_env, said, text, tokens_of


def _read_turn(turn: int, tokens: int, path: str) -> list[Message]:
    call = ToolCall(f"c{turn}", "read", {"path": path})
    return [
        Message("user", f"read {path}", turn=turn),
        Message("assistant", "", tool_calls=(call,), turn=turn),
        Message("tool", text(tokens, f"r{turn}"), name="read", tool_call_id=call.id, turn=turn),
        Message("assistant", f"read {path}: done", turn=turn),
    ]


SIZER = Sizer(lambda m: tokens_of((m,)), lambda m: f"/results/{m.tool_call_id}.txt")


def _fits_under(limit: int):  # type: ignore[no-untyped-def]
    return lambda tail: tokens_of(tail) <= limit


def test_oversized_tool_results_are_masked_first_largest_first() -> None:
    tail = [*_read_turn(1, 3000, "a.md"), *_read_turn(2, 9000, "b.md"), *_read_turn(3, 500, "c.md")]
    summarized, kept, edits, _ = fit_retained_tail(
        (), tail, fits=_fits_under(6000), budget_tokens=6000, sizer=SIZER
    )
    assert summarized == ()  # masking was enough: no turn moved
    assert [(e.kind, e.label) for e in edits] == [("masked", "read path=b.md")]
    stub = kept[6]
    assert stub.tool_call_id == "c2" and stub.role == "tool"
    assert stub.content == (
        f"{MASK_PREFIX}read path=b.md returned 36,000 bytes (~9,000 tokens); the full output "
        "is saved at /results/c2.txt (read it there with offset/limit)]"
    )
    edit = edits[0]
    assert (edit.bytes_before, edit.tokens_before, edit.saved_at) == (
        36000,
        9000,
        "/results/c2.txt",
    )
    assert edit.bytes_after == len(stub.content) and edit.tokens_after < 100


def test_then_older_turns_move_into_the_summary_then_the_last_message_is_cut() -> None:
    tail = [
        Message("user", text(2000, "u1"), turn=1),
        Message("assistant", "a1", turn=1),
        Message("user", text(3000, "u2"), turn=2),
        Message("assistant", "a2", turn=2),
    ]
    summarized, kept, edits, _ = fit_retained_tail(
        (), tail, fits=_fits_under(1000), budget_tokens=1000, sizer=SIZER
    )
    assert summarized == tuple(tail[:2])
    assert [e.kind for e in edits] == ["summarized", "cut"]
    assert kept[0].content.startswith("u2") and "[... cut by compaction: " in kept[0].content
    assert "the whole message is saved at" in kept[0].content
    assert tokens_of(kept) <= 1000
    assert kept[1] == tail[3]


def test_a_tail_that_fits_is_left_alone() -> None:
    tail = _read_turn(1, 100, "a.md")
    assert fit_retained_tail((), tail, fits=_fits_under(10**6), budget_tokens=1, sizer=SIZER) == (
        (),
        tuple(tail),
        (),
        tuple(tail),
    )


async def test_a_conversation_already_over_the_window_compacts() -> None:
    # 20k window: five turns each holding a 12k-token read. Nothing fits as it is: the
    # summary request's input and the retained tail are masked until both fit.
    messages = [m for turn in range(1, 6) for m in _read_turn(turn, 12_000, f"f{turn}.md")]
    host = FakeHost([SummaryResponse(said("S1")), SummaryResponse(said("S2"))])
    env = make_env(host, main=main_target(20_000))
    result = await compact_with_lineage(ConversationLineage.start(messages), env)
    outcome = result.outcome
    assert outcome.applied and host.calls
    # The tail (the last read and its answer) fits; the summary request's reads are masked.
    assert {(e.kind, e.where) for e in outcome.edits} == {("masked", "summary_request")}
    budget = env.main.budget
    assert budget.fit_request(tokens_of(result.lineage.active.messages)).fits
    for request, target in host.calls:
        assert target.budget.fit_compaction_request(tokens_of(request.messages)).fits
    # Every masked result named where its full output went.
    assert all(e.saved_at for e in outcome.edits)
    assert {m.tool_call_id for m in host.saved} <= {f"c{turn}" for turn in range(1, 6)}


async def test_only_masking_is_needed_when_nothing_can_be_summarized() -> None:
    # One turn with a result too large for the window: no summary, the result is masked.
    messages = _read_turn(1, 30_000, "big.md")
    host = FakeHost([])
    result = await compact_with_lineage(
        ConversationLineage.start(messages), make_env(host, main=main_target(20_000))
    )
    assert result.outcome.applied and host.calls == []
    active = result.lineage.active
    assert [m.role for m in active.messages] == ["user", "assistant", "tool", "assistant"]
    assert active.messages[2].content.startswith(MASK_PREFIX)
    assert [e.kind for e in result.outcome.edits] == ["masked"]


def test_a_summary_in_the_tail_is_never_cut() -> None:
    # It is capped already and carries the artifact ledger: the other messages give way.
    summary = Message("summary", text(1500, "s") + "\n## Artifacts (kept by the engine)")
    tail = [summary, Message("user", text(3000, "u1"), turn=1), Message("assistant", "a1", turn=1)]
    _, kept, edits, _ = fit_retained_tail(
        (), tail, fits=_fits_under(2500), budget_tokens=2500, sizer=SIZER, move_turns=False
    )
    assert kept[0] == summary
    assert [(e.kind, e.role) for e in edits] == [("cut", "user")]


def test_the_latest_turns_results_are_masked_last() -> None:
    tail = [*_read_turn(1, 1500, "old.py"), *_read_turn(2, 3000, "new.py")]
    _, kept, edits, _ = fit_retained_tail(
        (), tail, fits=_fits_under(3500), budget_tokens=3500, sizer=SIZER
    )
    assert [(e.kind, e.label) for e in edits] == [("masked", "read path=old.py")]
    assert kept[6] == tail[6]  # the read of this turn is whole


class _CountedCalls(tuple[ToolCall, ...]):
    """A message's tool calls that count how often they are looked through."""

    looked = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        _CountedCalls.looked += 1
        return super().__iter__()


def test_masking_many_results_looks_through_the_calls_once() -> None:
    """A resumed 10,000-message session held the loop 3.5 s compacting: each of 5,000 masked
    results searched the whole conversation back for its call (1.1 s of it)."""
    turns = 200
    tail = []
    for turn in range(1, turns + 1):
        user, assistant, result, done = _read_turn(turn, 400, f"f{turn}.py")
        calls = _CountedCalls(assistant.tool_calls)
        tail += [user, Message("assistant", "", tool_calls=calls, turn=turn), result, done]
    _CountedCalls.looked = 0
    _, edits = mask_retained(tail, 2000, sizer=SIZER)
    assert len(edits) == turns - 1  # all but the latest turn's result, never masked
    assert edits[0].label.startswith("read path=f")
    assert _CountedCalls.looked <= 2 * turns


class _CountedTokens(int):
    """A message's tokens that count how often they are added up."""

    added = 0

    def __radd__(self, other: int) -> int:
        _CountedTokens.added += 1
        return int(other) + int(self)


def test_the_oldest_turns_are_left_out_of_the_summary_request_in_one_pass() -> None:
    """The oldest turns are left out whole, the latest kept, with one ``omitted`` edit; the
    tokens are added up once per pass, not once per turn left out (a 10,000-message session
    summed its whole plan again for each of 2,500 turns)."""
    turns = 300
    items = [Message("user", text(100, f"q{turn}"), turn=turn) for turn in range(1, turns + 1)]
    sizer = Sizer(lambda m: _CountedTokens(tokens_of((m,))), lambda m: "")
    _CountedTokens.added = 0
    sent, edits = fit_summary_input(items, fits=_fits_under(1000), budget_tokens=1000, sizer=sizer)
    kept = items[-len(sent) :]
    assert sent[1:] == tuple(kept[1:]) and 0 < len(sent) < turns
    assert tokens_of(sent) <= 1000
    omitted = turns - len(sent)
    assert [(e.kind, e.count) for e in edits] == [("omitted", omitted)]
    assert _CountedTokens.added <= 10 * turns
    # The summarizer is told that the first request it sees is not the session's first.
    assert sent[0].content == (
        f"{OMITTED_MARKER}the {omitted} messages before this one (turns 1-{omitted}), to fit "
        "it; the history archive keeps every one, and this is not the session's first request"
        f" ...]\n\n{kept[0].content}"
    )


def test_the_note_is_a_message_of_its_own_before_a_kept_part_that_starts_with_a_reply() -> None:
    """A turn may start with an assistant message (a second reply after a tool's result): when
    the request keeps from there, the note is a user message before it, the reply unchanged."""
    items = [
        Message("user", text(300, "q1"), turn=1),
        Message("assistant", text(300, "a1"), turn=1),
        Message("assistant", text(300, "b1"), turn=1),
        Message("user", text(300, "q2"), turn=2),
        Message("assistant", text(300, "a2"), turn=2),
    ]
    sent, edits = fit_summary_input(items, fits=_fits_under(1000), budget_tokens=1000, sizer=SIZER)
    assert [(e.kind, e.count) for e in edits] == [("omitted", 2)]
    assert sent[1:] == tuple(items[2:]) and tokens_of(sent) <= 1000
    assert sent[0].role == "user" and sent[0].content.startswith(OMITTED_MARKER)
    assert "the 2 messages before this one (turn 1)" in sent[0].content
