"""Run the tool calls of one assistant reply and turn their results into tool messages.

Read results pass through read dedup (a fresh read identical to an earlier full read becomes a
short note pointing at that read's turn); other tools' output passes as given. Calls that never
ran because the run was cancelled still get a result message, so the next request is valid for
every provider (each tool call needs its result).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from steiner_tui.engine.events import EventSink, ToolCallFinished, ToolCallStarted
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.file_tracker import FileTracker, observe_tool_result
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.tooldefs import ToolDefinition
from steiner_tui.tools.base import ToolContext, ToolResult, result_message

__all__ = ["CANCELLED_RESULT", "ToolRunner", "cancelled_results", "run_tool_calls"]

CANCELLED_RESULT = "Cancelled by the user before this tool call ran."


class ToolRunner(Protocol):
    """Executes tool calls (``steiner_tui.tools.registry.ToolExecutor`` implements it)."""

    def definitions(self) -> tuple[ToolDefinition, ...]: ...

    async def execute(self, call: ToolCall, ctx: ToolContext) -> ToolResult: ...


async def run_tool_calls(
    calls: Sequence[ToolCall],
    runner: ToolRunner,
    ctx: ToolContext,
    tracker: FileTracker,
    sink: EventSink,
    on_message: MessageCallback,
) -> FileTracker:
    """Run ``calls`` in order, appending each result message through ``on_message``.

    Returns the file tracker updated with this round's reads. Cancellation propagates after the
    remaining calls got their cancelled results.
    """
    done: set[str] = set()
    try:
        for call in calls:
            sink.emit(ToolCallStarted(call, summarize_tool_call(call, str(ctx.project_root))))
            result = await runner.execute(call, ctx)
            content = observe_tool_result(call.name, result.content, tracker)
            message = result_message(call, result, ctx.turn)
            if content != result.content:
                message = message.with_content(content)
            if call.name == "read" and result.status == "done" and content == result.content:
                tracker = tracker.record(result.data, ctx.turn)
            done.add(call.id)
            on_message(message)
            sink.emit(ToolCallFinished(call, result.status, result.display or content))
    except BaseException:
        for message in cancelled_results([c for c in calls if c.id not in done], ctx.turn):
            on_message(message)
        raise
    return tracker


def cancelled_results(calls: Sequence[ToolCall], turn: int) -> list[Message]:
    """Result messages for calls that never ran."""
    return [
        Message("tool", CANCELLED_RESULT, name=c.name, tool_call_id=c.id, turn=turn) for c in calls
    ]


class MessageCallback(Protocol):
    def __call__(self, message: Message) -> None: ...
