"""A reply's tool calls run up to a cap; the rest are answered, not run (issue 29, item 5).

A reply of 10,000 tool calls ran every one. The first ``MAX_CALLS_PER_REPLY`` run; each of the
others gets a result saying why it did not run (every call needs its result for the next
request to be valid), and the person is told once.
"""

from __future__ import annotations

from pathlib import Path

from steiner_tui.agent.tool_calls import MAX_CALLS_PER_REPLY
from steiner_tui.engine.events import ToolCallStarted, WarningEvent
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.engine.tool_results import default_tool_status
from tests.agent.conftest import RunnerFactory
from tests.agent.fakes import Reply


async def test_a_reply_of_10000_calls_runs_only_the_cap(
    make_runner: RunnerFactory, project: Path
) -> None:
    (project / "a.txt").write_text("hello\n")
    calls = [ToolCall(f"c{n}", "glob", {"pattern": "*.txt"}) for n in range(10_000)]
    # A window the reply itself fits in (its 10,000 calls are some 420,000 tokens).
    runner, provider, sink = make_runner(
        [Reply(["Looking."], calls), Reply(["Done."])], info=ModelInfo(2_000_000, 4_096)
    )
    result = await runner.run(Message("user", "look"))
    assert result.status == "done", result.error
    assert len(sink.of(ToolCallStarted)) == MAX_CALLS_PER_REPLY
    results = [m for m in runner.conversation if m.role == "tool"]
    assert [m.tool_call_id for m in results] == [c.id for c in calls]
    assert all(m.content == "a.txt" for m in results[:MAX_CALLS_PER_REPLY])
    skipped = results[MAX_CALLS_PER_REPLY:]
    assert {m.content for m in skipped} == {
        f"error: not run: this reply asked for 10,000 tool calls and at most "
        f"{MAX_CALLS_PER_REPLY} run per reply; ask for fewer at a time"
    }
    assert {default_tool_status(m) for m in skipped} == {"failed"}
    [warning] = [w for w in sink.of(WarningEvent) if w.code == "tool_calls_capped"]  # type: ignore[attr-defined]
    assert warning.message == (  # type: ignore[attr-defined]
        f"the model asked for 10,000 tool calls in one reply: the first {MAX_CALLS_PER_REPLY} "
        f"ran, the other {10_000 - MAX_CALLS_PER_REPLY:,} were answered as not run"
    )
    assert len(provider.requests) == 2
