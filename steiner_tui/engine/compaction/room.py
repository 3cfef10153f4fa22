"""Making room: how a compaction stage fits what it keeps, and its summary request, to the window.

A stage must always leave a conversation that fits, also when one turn alone is too large (a
344 KB file read, a 30 MB paste) or when the conversation is already past the window. Two
things have to fit (docs/design.md, "8. Compaction: turns, stages and the summary"):

* **The retained tail**, on the main model, with room for the summary: its oversized tool
  results are *masked* first (replaced by a short stub naming the tool, its arguments, the size
  and where the full output is kept: observation masking), largest first; then older retained
  turns move into the summarized part, keeping at least one; as a last resort the largest
  remaining message is *cut*, its head and tail kept around a visible marker.
* **The summary request** of main's emergency stage (a fallback's plan that does not fit fails,
  main's normal stage does not apply): its input is masked and cut the same way,
  and when even that is not enough its oldest messages are left out of the request (a leading
  earlier summary stays; the history archive still receives everything), the first message
  the request keeps saying so (``OMITTED_MARKER``): a summarizer would take the first request
  it sees for the session's first.

Every decision is a ``RoomEdit`` recorded on the outcome, so the lineage browser shows what was
masked, moved, cut or left out, with bytes and tokens before and after.

Sizes are reasoned about per message (``message_tokens``) and confirmed with the real fit
(``fits``), so a tail of thousands of messages costs one pass, not one fit per decision.

Pinned messages (``pins``) are never masked, cut or moved: a turn that moves into the summary
leaves its pinned messages (with the call message a pinned result answers, and that call's
other results, masked when large) in the tail; ``take_pinned`` pulls them out of a summarized
part the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import msgspec

from steiner_tui.engine.compaction.host import CompactionHost, SummaryTarget
from steiner_tui.engine.compaction.pins import pinned_indexes
from steiner_tui.engine.compaction.turns import retention_turns
from steiner_tui.engine.events import EditKind, RoomEdit
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.utf8 import utf8, utf8_len

__all__ = [
    "MASK_PREFIX",
    "OMITTED_MARKER",
    "Sizer",
    "fit_retained_tail",
    "fit_summary_input",
    "calls_by_id",
    "mask_recorded",
    "mask_retained",
    "mask_tool_result",
    "take_pinned",
]

MASK_PREFIX = "[tool result masked by compaction: "
"""Opens the stub that replaces a masked tool result."""

CUT_MARKER = (
    "[... cut by compaction: {omitted:,} of {total:,} bytes of this message left out{where} ...]"
)
"""Marks where a cut message lost its middle (``where``: ``; the whole message is saved at
<path>`` when it was kept)."""

OMITTED_MARKER = "[... left out of this summary request: "
"""Opens the note that leads the first message a summary request keeps after its oldest turns
were left out (``omitted_note``)."""


def omitted_note(count: int, first_turn: int, last_turn: int) -> str:
    """The note before the first message a summary request keeps, ``count`` messages of turns
    ``first_turn`` to ``last_turn`` having been left out before it."""
    turns = f"turn {first_turn}" if first_turn == last_turn else f"turns {first_turn}-{last_turn}"
    noun = "message" if count == 1 else "messages"
    return (
        f"{OMITTED_MARKER}the {count:,} {noun} before this one ({turns}), to fit it; the "
        "history archive keeps every one, and this is not the session's first request ...]"
    )


_MIN_MASK_BYTES = 1024
"""Tool results smaller than this are never masked: the stub would save nothing."""
_MIN_CUT_BYTES = 2048
"""A cut keeps at least this much of a message (head and tail)."""
_CONFIRM_ROUNDS = 6
"""How many times an estimate-driven plan is tightened before giving up on a fit."""


def never_pinned(message: Message) -> bool:
    """The ``pinned`` predicate of a conversation without pins."""
    return False


class Sizer(msgspec.Struct, frozen=True):
    """How a stage measures and keeps what it removes.

    Attributes:
        message_tokens: estimated tokens of one message as part of a request.
        save_full_output: keeps a tool result's full content, returns where ("" when it
            cannot: the stub then says so).
    """

    message_tokens: Callable[[Message], int]
    save_full_output: Callable[[Message], str]

    @classmethod
    def of(cls, host: CompactionHost, target: SummaryTarget) -> Sizer:
        """Tokens of a message on ``target``, and full outputs kept, through ``host``."""
        return cls(lambda message: host.message_tokens(message, target), host.save_full_output)


def calls_by_id(context: Sequence[Message]) -> dict[str, ToolCall]:
    """The calls of ``context`` by id, the latest of a repeated id: built once per pass, as
    searching the context for each result held the loop 1.1 s masking 5,000 results."""
    return {call.id: call for message in context for call in message.tool_calls}


def _tool_label(message: Message, calls: Mapping[str, ToolCall]) -> str:
    call = calls.get(message.tool_call_id)
    if call is not None:
        return summarize_tool_call(call)
    return message.name or "tool"


def mask_tool_result(message: Message, label: str, saved_at: str, tokens: int) -> Message:
    """``message`` with its content replaced by the masking stub.

    Args:
        message: a tool result.
        label: the call as ``name key=value`` (its arguments, summarized).
        saved_at: where the full output is kept ("" when nowhere).
        tokens: the content's estimated tokens.

    Returns:
        The same message (role, call id, turn) with the stub as content and no images.
    """
    size = utf8_len(message.content)
    where = (
        f"the full output is saved at {saved_at} (read it there with offset/limit)"
        if saved_at
        else "the full output was not kept"
    )
    stub = f"{MASK_PREFIX}{label} returned {size:,} bytes (~{tokens:,} tokens); {where}]"
    return Message(
        message.role,
        stub,
        name=message.name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        turn=message.turn,
    )


def mask_recorded(
    message: Message,
    calls: Mapping[str, ToolCall],
    where: Literal["retained", "summary_request"],
    sizer: Sizer,
    tokens: int,
) -> tuple[Message, RoomEdit]:
    """The tool result ``message`` (``tokens`` tokens, labelled from ``calls_by_id``'s ``calls``)
    masked in ``where``, its whole output kept through ``sizer``, and the edit saying so."""
    saved_at = sizer.save_full_output(message)
    label = _tool_label(message, calls)
    stub = mask_tool_result(message, label, saved_at, tokens)
    edit = RoomEdit(
        "masked",
        where,
        message.role,
        label,
        message.turn,
        utf8_len(message.content),
        utf8_len(stub.content),
        tokens,
        sizer.message_tokens(stub),
        saved_at,
    )
    return stub, edit


def cut_message(message: Message, keep_bytes: int, saved_at: str = "") -> Message:
    """``message`` keeping about ``keep_bytes`` of its content: two thirds of head, one third
    of tail, around ``CUT_MARKER`` (cut on character boundaries); ``saved_at`` says where the
    whole message is kept."""
    data = utf8(message.content)
    total = len(data)
    keep = max(_MIN_CUT_BYTES, keep_bytes)
    if total <= keep:
        return message
    head_bytes = keep * 2 // 3
    tail_bytes = keep - head_bytes
    head = data[:head_bytes].decode("utf-8", "ignore")
    tail = data[total - tail_bytes :].decode("utf-8", "ignore")
    omitted = total - len(head.encode()) - len(tail.encode())
    where = f"; the whole message is saved at {saved_at}" if saved_at else ""
    marker = CUT_MARKER.format(omitted=omitted, total=total, where=where)
    return Message(
        message.role,
        f"{head}\n\n{marker}\n\n{tail}",
        reasoning="",
        tool_calls=message.tool_calls,
        images=message.images,
        name=message.name,
        tool_call_id=message.tool_call_id,
        source=message.source,
        turn=message.turn,
        incomplete=message.incomplete,
    )


def _is_maskable(message: Message) -> bool:
    return (
        message.role == "tool"
        and not message.content.startswith(MASK_PREFIX)
        and len(message.content) >= _MIN_MASK_BYTES // 4
        and utf8_len(message.content) >= _MIN_MASK_BYTES
    )


class _Plan:
    """A working copy of messages with their estimated tokens, and the edits made to it.

    ``sources`` holds, per position, the input message it came from (masked and cut copies
    keep their source), and ``front`` counts the leading messages that stay whatever happens
    (pinned messages left behind by moved turns).
    """

    def __init__(
        self,
        messages: Sequence[Message],
        sizer: Sizer,
        where: Literal["retained", "summary_request"],
        pinned: Callable[[Message], bool] = never_pinned,
    ) -> None:
        self.messages = list(messages)
        self.sources = list(messages)
        self.tokens = [sizer.message_tokens(m) for m in self.messages]
        self.sizer = sizer
        self.where = where
        self.pinned = pinned
        self.front = 0
        self.edits: list[RoomEdit] = []
        self.originals: dict[int, tuple[Message, RoomEdit]] = {}
        """A cut message's id -> (its whole original, its edit)."""

    @property
    def total(self) -> int:
        return sum(self.tokens)

    def mask(self, index: int, calls: Mapping[str, ToolCall]) -> None:
        stub, edit = mask_recorded(
            self.messages[index], calls, self.where, self.sizer, self.tokens[index]
        )
        self.edits.append(edit)
        self.messages[index], self.tokens[index] = stub, edit.tokens_after

    def cut(self, index: int, keep_bytes: int) -> bool:
        message = self.messages[index]
        # A message cut again is cut from its whole text, and keeps one edit.
        whole, earlier = self.originals.get(id(message), (message, None))
        if utf8_len(whole.content) <= max(keep_bytes, _MIN_CUT_BYTES):
            return False
        saved_at = earlier.saved_at if earlier is not None else self.sizer.save_full_output(whole)
        cut = cut_message(whole, keep_bytes, saved_at)
        if cut is whole or utf8_len(cut.content) >= utf8_len(message.content):
            return False
        after = self.sizer.message_tokens(cut)
        edit = RoomEdit(
            "cut",
            self.where,
            whole.role,
            f"{whole.role} message",
            whole.turn,
            utf8_len(whole.content),
            utf8_len(cut.content),
            earlier.tokens_before if earlier is not None else self.tokens[index],
            after,
            saved_at,
        )
        if earlier is not None:
            self.edits[self.edits.index(earlier)] = edit
        else:
            self.edits.append(edit)
        self.originals[id(cut)] = (whole, edit)
        self.messages[index], self.tokens[index] = cut, after
        return True

    def move_turn(self, count: int, context: Sequence[Message]) -> list[Message]:
        """Move the ``count`` messages after ``front`` into the summarized part, except the
        pinned ones and their companions (kept, at the new front; large companions masked).

        Returns:
            The source messages that moved, in order.
        """
        start = self.front
        segment = self.messages[start : start + count]
        pinned, companions = pinned_indexes(segment, self.pinned)
        maskable = [offset for offset in sorted(companions) if _is_maskable(segment[offset])]
        calls = calls_by_id(context) if maskable else {}
        for offset in maskable:
            self.mask(start + offset, calls)
        kept = sorted(pinned | companions)
        gone = [i for i in range(count) if i not in pinned and i not in companions]
        moved = [self.sources[start + i] for i in gone]
        if moved:
            tokens = [self.tokens[start + i] for i in gone]
            self.edits.append(_moved_edit("summarized", self.where, moved, tokens))
        for name in ("messages", "sources", "tokens"):
            items: list[object] = getattr(self, name)
            block = items[start : start + count]
            items[start : start + count] = [block[i] for i in kept]
        self.front = start + len(kept)
        return moved

    def mask_until(
        self,
        budget: int,
        context: Sequence[Message],
        spare: Callable[[Message], bool] = never_pinned,
    ) -> None:
        """Mask tool results, largest first, until the estimate is within ``budget``
        (``spare``: results never masked here, besides the pinned ones)."""
        # Results of the latest turn go last: the model has not acted on them yet.
        latest = max((m.turn for m in self.messages), default=0)
        order = sorted(
            (
                i
                for i, m in enumerate(self.messages)
                if _is_maskable(m) and not self.pinned(m) and not spare(m)
            ),
            key=lambda i: (0 < latest == self.messages[i].turn, -self.tokens[i]),
        )
        total = self.total
        calls = calls_by_id(context) if total > budget else {}
        for index in order:
            if total <= budget:
                return
            before = self.tokens[index]
            self.mask(index, calls)
            total += self.tokens[index] - before

    def cut_until(self, budget: int, candidates: Sequence[int]) -> None:
        """Cut the largest candidate messages until the estimate is within ``budget``."""
        order = sorted(candidates, key=lambda i: self.tokens[i], reverse=True)
        total = self.total
        for index in order:
            excess = total - budget
            if excess <= 0:
                return
            tokens = self.tokens[index]
            if tokens <= 0:
                continue
            size = utf8_len(self.messages[index].content)
            keep = int(size * max(0, tokens - excess) / tokens)
            if self.cut(index, keep):
                total += self.tokens[index] - tokens


def _moved_edit(
    kind: EditKind,
    where: Literal["retained", "summary_request"],
    messages: Sequence[Message],
    tokens: Sequence[int],
) -> RoomEdit:
    count = len(messages)
    return RoomEdit(
        kind,
        where,
        messages[0].role,
        f"{count} message" + ("s" if count != 1 else ""),
        messages[0].turn,
        sum(utf8_len(m.content) for m in messages),
        0,
        sum(tokens),
        0,
        count=count,
    )


def _cut_candidates(
    messages: Sequence[Message], pinned: Callable[[Message], bool] = never_pinned
) -> list[int]:
    # A summary is never cut: it is capped already, and it carries the artifact ledger.
    return [
        i
        for i, m in enumerate(messages)
        if m.content
        and m.role != "summary"
        and not m.content.startswith(MASK_PREFIX)
        and not pinned(m)
    ]


def take_pinned(
    messages: Sequence[Message],
    pinned: Callable[[Message], bool],
    sizer: Sizer,
) -> tuple[tuple[Message, ...], tuple[Message, ...], tuple[Message, ...], tuple[RoomEdit, ...]]:
    """Pull the pinned messages (and their companions) out of a part to be summarized.

    Args:
        messages: the summarized part.
        pinned: whether a message is pinned.
        sizer: masks large companions (results of a pinned call message kept with it).

    Returns:
        ``(rest, kept, kept_sources, edits)``: what is still summarized; the kept messages in
        order (companions masked when large); the input message each kept one came from; and
        the masks made.
    """
    items = tuple(messages)
    chosen, companions = pinned_indexes(items, pinned)
    if not chosen:
        return items, (), (), ()
    keep = sorted(chosen | companions)
    plan = _Plan([items[i] for i in keep], sizer, "retained", pinned)
    calls = calls_by_id(items)
    for position, index in enumerate(keep):
        if index in companions and _is_maskable(items[index]):
            plan.mask(position, calls)
    rest = tuple(m for i, m in enumerate(items) if i not in chosen and i not in companions)
    return rest, tuple(plan.messages), tuple(plan.sources), tuple(plan.edits)


def fit_retained_tail(
    summarized: Sequence[Message],
    retained: Sequence[Message],
    *,
    fits: Callable[[Sequence[Message]], bool],
    budget_tokens: int,
    sizer: Sizer,
    move_turns: bool = True,
    pinned: Callable[[Message], bool] = never_pinned,
) -> tuple[tuple[Message, ...], tuple[Message, ...], tuple[RoomEdit, ...], tuple[Message, ...]]:
    """Make the retained tail fit the main model.

    Args:
        summarized: the part the stage summarizes.
        retained: the tail it keeps.
        fits: whether a tail fits (the main model's hard fit).
        budget_tokens: the estimated tokens a tail's messages may take (a first guess that
            ``fits`` confirms).
        sizer: per-message tokens and where full outputs are kept.
        move_turns: whether older turns may move into the summarized part (not once the
            summary is written).
        pinned: whether a message is pinned (never masked, cut or moved).

    Returns:
        ``(summarized, retained, edits, sources)``: turns moved out of the tail join the
        summarized part as they were (their pinned messages stay in the tail, first); the
        tail's messages, masked or cut where needed; what was done; and the input message each
        tail message came from. When nothing was needed, the inputs come back.
    """
    tail = tuple(retained)
    if not tail or fits(tail):
        return tuple(summarized), tail, (), tail
    context = (*summarized, *tail)
    plan = _Plan(tail, sizer, "retained", pinned)
    moved: list[Message] = []
    budget = budget_tokens
    for _ in range(_CONFIRM_ROUNDS):
        plan.mask_until(budget, context)
        if fits(tuple(plan.messages)):
            break
        # Older retained turns go into the summary; the last turn always stays.
        turns = retention_turns(plan.messages[plan.front :]) if move_turns else []
        while len(turns) > 1 and plan.total > budget:
            moved += plan.move_turn(len(turns[0]), context)
            turns = turns[1:]
        if fits(tuple(plan.messages)):
            break
        # The last resort: cut the largest messages of what is left.
        plan.cut_until(budget, _cut_candidates(plan.messages, pinned))
        if fits(tuple(plan.messages)):
            break
        budget = budget * 3 // 4
    return (*summarized, *moved), tuple(plan.messages), tuple(plan.edits), tuple(plan.sources)


def mask_retained(
    messages: Sequence[Message],
    budget_tokens: int,
    *,
    sizer: Sizer,
    pinned: Callable[[Message], bool] = never_pinned,
) -> tuple[tuple[Message, ...], tuple[RoomEdit, ...]]:
    """Mask the largest tool results of a compacted conversation until its messages take at
    most ``budget_tokens``, so the compaction leaves real room (issue 31: a prompt left just
    under the trigger compacts again at the next read). A result of the latest turn is never
    masked: the model has not acted on it yet.

    Returns:
        The messages (masked copies in place) and one ``masked`` edit per result.
    """
    items = tuple(messages)
    current = max((m.turn for m in items), default=0)
    plan = _Plan(items, sizer, "retained", pinned)
    if plan.total <= budget_tokens:
        return items, ()
    plan.mask_until(budget_tokens, items, lambda m: m.turn == current)
    return tuple(plan.messages), tuple(plan.edits)


def _noted(plan: _Plan, keep: int, turns: Sequence[int]) -> tuple[Message, ...]:
    """``plan``'s messages, the first one after ``keep`` led by the note of the messages left
    out before it (of turns ``turns[0]`` to ``turns[1]``; none: nothing was): in its content
    when it is a user message (no two user messages in a row), else as a user message."""
    messages = tuple(plan.messages)
    if not turns:
        return messages
    count = sum(e.count for e in plan.edits if e.kind == "omitted")
    note = omitted_note(count, turns[0], turns[1])
    at = messages[keep] if keep < len(messages) else None
    if at is not None and at.role == "user":
        return (*messages[:keep], at.with_content(f"{note}\n\n{at.content}"), *messages[keep + 1 :])
    return (*messages[:keep], Message("user", note, turn=turns[0]), *messages[keep:])


def fit_summary_input(
    messages: Sequence[Message],
    *,
    fits: Callable[[Sequence[Message]], bool],
    budget_tokens: int,
    sizer: Sizer,
) -> tuple[tuple[Message, ...], tuple[RoomEdit, ...]]:
    """Make the summarized part fit the summary request on its target.

    Args:
        messages: the summarized part.
        fits: whether a summary request over these messages fits the target (plan fit).
        budget_tokens: the estimated tokens the messages may take (confirmed by ``fits``).
        sizer: per-message tokens and where full outputs are kept.

    Returns:
        The messages the request carries (masked, cut, the oldest turns left out as needed)
        and the edits. When nothing was needed, the input comes back.
    """
    items = tuple(messages)
    if not items or fits(items):
        return items, ()
    plan = _Plan(items, sizer, "summary_request")
    budget = budget_tokens
    omitted: list[int] = []  # the first and the last turn left out
    keep = 0
    # The note the request leads with once turns are left out, at its longest.
    note_tokens = sizer.message_tokens(Message("user", omitted_note(len(items), 10**9, 10**9)))
    for _ in range(_CONFIRM_ROUNDS):
        plan.mask_until(budget, items)
        if fits(_noted(plan, keep, omitted)):
            break
        # A message larger than a quarter of the budget is cut to about that quarter.
        share = max(1, budget // 4)
        plan.cut_until(budget, [i for i, t in enumerate(plan.tokens) if t > share])
        if fits(_noted(plan, keep, omitted)):
            break
        # The oldest turns are left out whole (an earlier summary at the start stays).
        keep = 1 if plan.messages and plan.messages[0].role == "summary" else 0
        dropped = 0
        dropped_tokens: list[int] = []
        remaining = plan.total  # kept as it goes: summed again per turn, it was quadratic
        for turn in retention_turns(plan.messages[keep:])[:-1]:  # the latest turn stays
            if remaining + (note_tokens if dropped or omitted else 0) <= budget:
                break
            tokens = plan.tokens[keep + dropped : keep + dropped + len(turn)]
            dropped_tokens += tokens
            remaining -= sum(tokens)
            dropped += len(turn)
        if dropped:
            gone = plan.messages[keep : keep + dropped]
            plan.edits.append(_moved_edit("omitted", "summary_request", gone, dropped_tokens))
            del plan.messages[keep : keep + dropped], plan.tokens[keep : keep + dropped]
            omitted[:] = [omitted[0] if omitted else gone[0].turn, gone[-1].turn]
        if fits(_noted(plan, keep, omitted)):
            break
        budget = budget * 3 // 4
    return _noted(plan, keep, omitted), tuple(plan.edits)
