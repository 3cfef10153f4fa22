"""Run the tool calls of one assistant reply and turn their results into tool messages.

Every result is kept within its budget (a share of what the window has left, see
``engine.tool_budget``): the tool shapes it, and what is still over is cut here with a note
saying where the whole output is kept. Read results then pass through read dedup (a fresh read
identical to an earlier full read becomes a short note pointing at that read's turn); other
tools' output passes as given. Calls that never
ran because the run was cancelled still get a result message, so the next request is valid for
every provider (each tool call needs its result). So do the calls past ``MAX_CALLS_PER_REPLY``
in one reply (a reply of 10,000 calls ran every one): they are answered as not run, with the
reason, and the person is told once.

The budget is made and each result measured (``bound_result``) in a worker thread when the text
is long for its tokenizer (``count_ahead.inline_chars``): a reply and a tool's output are new
text, and Claude's tokenizer takes about half a second for 25,000 tokens; the caller's event
loop stays free, and the counts are cached for the next request.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Protocol

import msgspec

from steiner_tui.agent.count_ahead import INLINE_CHARS, inline_chars, off_loop
from steiner_tui.agent.model import MainModel
from steiner_tui.engine.events import (
    EventSink,
    ToolCallFinished,
    ToolCallStarted,
    ToolOutputProgress,
    WarningEvent,
)
from steiner_tui.engine.frozen import FrozenDict
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.file_tracker import READ_TOOL_NAME, FileTracker, observe_tool_result
from steiner_tui.engine.state.read_results import parse_read_result
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.tokens.policy import HEURISTIC
from steiner_tui.engine.tokens.request import MESSAGE_FRAMING_TOKENS, RequestEstimator
from steiner_tui.engine.tool_budget import tool_result_budget
from steiner_tui.engine.tool_results import CANCELLED_RESULT
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, result_message
from steiner_tui.tools.results import ResultStore
from steiner_tui.tools.shaping import head_and_tail

__all__ = [
    "CANCELLED_RESULT",
    "MAX_CALLS_PER_REPLY",
    "ResultBudget",
    "ToolRunner",
    "bound_result",
    "result_budget",
    "run_tool_calls",
]


MAX_CALLS_PER_REPLY = 64
"""The most tool calls of one reply that run (models ask for a handful at once)."""


class ToolRunner(Protocol):
    """Executes tool calls (``steiner_tui.tools.registry.ToolExecutor`` implements it)."""

    def definitions(self) -> tuple[ToolDefinition, ...]: ...

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolResult: ...


class ResultBudget(msgspec.Struct, frozen=True):
    """How large each result of a tool round may be, and how that is measured.

    Attributes:
        tokens_for: the budget of the next result, given the tokens the round's results took so
            far and how many results are still to come (``engine.tool_budget``).
        count_tokens: a text's calibrated tokens on the main model.
        chars_per_token: characters per token assumed when tools shape their output.
        results: where whole outputs are kept (None: nowhere).
        inline_chars: a result this long or longer is measured in a worker thread
            (``count_ahead.inline_chars``).
    """

    tokens_for: Callable[[int, int], int]
    count_tokens: Callable[[str], int]
    chars_per_token: int = 4
    results: ResultStore | None = None
    inline_chars: int = INLINE_CHARS


def result_budget(
    model: MainModel,
    estimator: RequestEstimator,
    results: ResultStore,
    prompt_tokens: int,
    fixed_tokens: int = 0,
) -> ResultBudget:
    """Each result of a round within what the window has left after ``prompt_tokens``, and
    within its share of the room ``fixed_tokens`` (a request with no conversation) leaves
    under the soft trigger (``engine.tool_budget``), counted with the main model's calibrated
    estimate."""
    choice = estimator.choice(model.model)

    def tokens_for(used: int, pending: int) -> int:
        return tool_result_budget(
            model.budget, prompt_tokens + used, pending, model.explicit_max_tokens, fixed_tokens
        )

    def count(text: str) -> int:
        raw = estimator.count_text(model.model, text) + MESSAGE_FRAMING_TOKENS
        return estimator.calibrated(model.model, raw).tokens

    per_token = 4 if choice.encoding == HEURISTIC else 3
    return ResultBudget(tokens_for, count, per_token, results, inline_chars(choice.strategy))


async def run_tool_calls(
    calls: Sequence[ToolCall],
    runner: ToolRunner,
    ctx: ToolContext,
    tracker: FileTracker,
    sink: EventSink,
    on_message: MessageCallback,
    make_budget: Callable[[], ResultBudget] | None = None,
    reply_chars: int = 0,
) -> FileTracker:
    """Run ``calls`` in order, appending each result message through ``on_message``.

    With ``make_budget`` (it may count the reply, of ``reply_chars`` characters: in a worker
    thread when that is long, ``count_ahead.off_loop``), every result is
    kept within the tokens it may take: tools shape their output to it
    (``ToolContext.output_chars``), and what is still over is cut here (``bound_result``), the
    whole output kept in the result store.

    Returns the file tracker updated with this round's reads. Cancellation propagates after the
    remaining calls got their cancelled results.
    """
    done: set[str] = set()
    used = 0
    over = list(calls[MAX_CALLS_PER_REPLY:])
    calls = calls[:MAX_CALLS_PER_REPLY]
    if over:
        asked = len(calls) + len(over)
        sink.emit(
            WarningEvent(
                "tool_calls_capped",
                f"the model asked for {asked:,} tool calls in one reply: the first "
                f"{len(calls)} ran, the other {len(over):,} were answered as not run",
            )
        )
    try:
        budget = None if make_budget is None else await off_loop(make_budget, reply_chars)
        for position, call in enumerate(calls):
            sink.emit(ToolCallStarted(call, summarize_tool_call(call, str(ctx.project_root))))
            allowed = 0
            progress = partial(_report_progress, sink, call.id)
            call_ctx = msgspec.structs.replace(ctx, call_id=call.id, progress=progress)
            if budget is not None:
                allowed = budget.tokens_for(used, len(calls) - position)
                call_ctx = msgspec.structs.replace(
                    call_ctx,
                    output_chars=allowed * budget.chars_per_token,
                    results=budget.results,
                )
            result = await runner.execute(call, call_ctx)
            if budget is not None:
                # A large result in a thread: counting it with ctok would hold the event loop.
                result, tokens = await off_loop(
                    partial(bound_result, call, result, allowed, budget),
                    len(result.content),
                    budget.inline_chars,
                )
                used += tokens
            read = parse_read_result(result.data) if call.name == READ_TOOL_NAME else None
            content = observe_tool_result(call.name, result.content, tracker, read)
            message = result_message(call, result, ctx.turn)
            if content != result.content:
                message = message.with_content(content)
            if read is not None and result.status == "done" and content == result.content:
                tracker = tracker.record(read, ctx.turn)
            done.add(call.id)
            # The status first: the session log writes it with the result message.
            sink.emit(ToolCallFinished(call, result.status, result.display or content, result.cut))
            on_message(message)
    except BaseException:
        for message in cancelled_results([c for c in calls if c.id not in done], ctx.turn):
            on_message(message)
        for message in _not_run(over, len(calls) + len(over), ctx.turn):
            on_message(message)
        raise
    for message in _not_run(over, len(calls) + len(over), ctx.turn):
        on_message(message)
    return tracker


def _report_progress(sink: EventSink, call_id: str, size: int, lines: int, tail: str) -> None:
    sink.emit(ToolOutputProgress(call_id, size, lines, tail))


def _not_run(calls: Sequence[ToolCall], asked: int, turn: int) -> list[Message]:
    """Result messages for the calls past the cap (their status reads as ``failed``)."""
    if not calls:  # every round under the cap: its text is not made
        return []
    text = (
        f"error: not run: this reply asked for {asked:,} tool calls and at most "
        f"{MAX_CALLS_PER_REPLY} run per reply; ask for fewer at a time"
    )
    return [Message("tool", text, name=c.name, tool_call_id=c.id, turn=turn) for c in calls]


_SHRINK_ROUNDS = 5


def bound_result(
    call: ToolCall, result: ToolResult, budget_tokens: int, budget: ResultBudget
) -> tuple[ToolResult, int]:
    """``result`` within ``budget_tokens``: as it is, reshaped by its tool, or cut here; and
    its tokens (``budget.count_tokens``: the round adds them up without counting again).

    A tool's own reshaping (a smaller window of lines, fewer matches) is tried first; a result
    without one, or still over, is cut to its head and tail around a note saying where the
    whole output is kept. The returned result never counts more than ``budget_tokens``.
    """
    tokens = budget.count_tokens(result.content)
    if tokens <= budget_tokens:
        return result, tokens
    chars = max(1, len(result.content) * budget_tokens // max(tokens, 1))
    candidate = result
    for _ in range(_SHRINK_ROUNDS):
        if result.reshape is None:
            break
        candidate = result.reshape(chars)
        tokens = budget.count_tokens(candidate.content)
        if tokens <= budget_tokens:
            return candidate, tokens
        chars = max(1, chars * budget_tokens * 9 // (10 * max(tokens, 1)))
    cut = _cut_here(call, candidate, budget_tokens, budget, chars)
    return cut, budget.count_tokens(cut.content)


def _cut_here(
    call: ToolCall, result: ToolResult, budget_tokens: int, budget: ResultBudget, chars: int
) -> ToolResult:
    whole = result.content
    saved_at = result.cut.saved_at if result.cut is not None else ""
    if not saved_at and budget.results is not None:
        try:
            saved_at = budget.results.save(call.id or "result", whole)
        except OSError:
            saved_at = ""
    for _ in range(_SHRINK_ROUNDS + 3):
        shaped = head_and_tail(whole, chars, saved_at)
        if budget.count_tokens(shaped.text) <= budget_tokens:
            break
        chars = chars * 3 // 4
    else:  # nothing of the output fits: only the note
        shaped = head_and_tail(whole, 0, saved_at)
    cut = shaped.cut
    if cut is not None and result.cut is not None:
        # The whole is what the tool saw, not the part it had already shaped.
        cut = msgspec.structs.replace(
            cut,
            total_bytes=max(cut.total_bytes, result.cut.total_bytes),
            total_lines=max(cut.total_lines, result.cut.total_lines),
        )
    if cut is not None:
        cut = msgspec.structs.replace(cut, budget_tokens=budget_tokens)
    # The fields describe the whole output, which the model no longer sees whole: ``capped``,
    # as a read says of a range cut short, so this one never stands in for a later read.
    data = FrozenDict({**result.data, "capped": True}) if result.data else result.data
    return msgspec.structs.replace(result, content=shaped.text, cut=cut, data=data)


def cancelled_results(calls: Sequence[ToolCall], turn: int) -> list[Message]:
    """Result messages for calls that never ran."""
    return [
        Message("tool", CANCELLED_RESULT, name=c.name, tool_call_id=c.id, turn=turn) for c in calls
    ]


class MessageCallback(Protocol):
    def __call__(self, message: Message) -> None: ...
