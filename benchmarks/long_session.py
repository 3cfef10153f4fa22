"""A long conversation, in memory or saved as a session log that ``--resume`` opens.

``conversation(count)`` is a realistic mix, one turn of four messages repeated: a question, a
tool call, its result and an answer in Markdown. ``save_session`` records it as a session of the
sample project under a configuration folder, as the app would have written it.

Run ``uv run python benchmarks/long_session.py CONFIG COUNT [PROJECT]`` to save one and print its
id; then ``XDG_CONFIG_HOME=CONFIG/.. steiner-tui --resume ID`` opens it (CONFIG ends in
``steiner``).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message, ToolCall

PROJECT = Path(__file__).resolve().parent.parent / "tests" / "app" / "fixtures" / "sample_project"


def conversation(count: int) -> list[Message]:
    """``count`` messages: question, tool call, tool result, Markdown answer, again and again."""
    messages: list[Message] = []
    turn = 0
    while len(messages) < count:
        turn += 1
        call = ToolCall(f"c{turn}", "read", {"path": f"src/module_{turn}.py"}, "")
        messages += [
            Message("user", f"Question {turn}: what does module {turn} do?", turn=turn),
            Message("assistant", "Reading it.", tool_calls=(call,), turn=turn),
            Message("tool", f"def f{turn}():\n    return {turn}\n", tool_call_id=call.id),
            Message(
                "assistant",
                f"## Module {turn}\n\n- defines `f{turn}`\n- returns **{turn}**\n",
                turn=turn,
            ),
        ]
    return messages[:count]


def save_session(config_dir: Path, count: int, project: Path = PROJECT) -> str:
    """Record a session of ``count`` messages under ``config_dir``; returns its id."""
    date = datetime(2026, 1, 1, tzinfo=UTC)
    session_id = f"long-{count}"
    request = SessionRequest(
        project,
        config_dir=config_dir,
        clock=ManualClock(date),
        session_id=session_id,
        session_date=date,
    )
    session = build_session(request)
    session.driver.replace_lineage(ConversationLineage.start(conversation(count)))
    assert session.log is not None
    session.log.sync()  # a new session's log is written from its first message
    session.close()
    return session_id


if __name__ == "__main__":
    folder, size = Path(sys.argv[1]), int(sys.argv[2])
    root = Path(sys.argv[3]).resolve() if len(sys.argv) > 3 else PROJECT
    folder.mkdir(parents=True, exist_ok=True)
    print(save_session(folder, size, root))
