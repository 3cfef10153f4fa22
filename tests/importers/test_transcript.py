"""The conversation of an import: the latest generation of a real transcript, as items."""

from __future__ import annotations

import os
from pathlib import Path

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.screens.imported_conversation import ImportedConversation
from steiner_tui.app.transcript import NoticeEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.context_charts import RequestChart
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.discover import import_paths
from steiner_tui.importers.transcript import read_conversation

FIXTURES = Path(os.environ.get("STEINER_CLAUDE_FIXTURES", "/work/shared/fixtures/claude-code"))
CLAUDE = FIXTURES / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
CODEX = Path(__file__).parent / "data" / "codex-0.169.0-subagent"


def test_a_claude_session_starts_after_its_compaction_with_the_summary() -> None:
    items = read_conversation(CLAUDE, "claude-code")
    assert items[0].kind == "summary"
    assert items[0].text.startswith("This session is being continued")
    assert [i.kind for i in items[1:] if i.kind == "summary"] == []
    tools = [i for i in items if i.kind == "tool"]
    assert tools and all(i.done for i in tools)  # every call got its result
    assert any(i.tool == "Read" and i.target.startswith("/") for i in tools)
    users = [i for i in items if i.kind == "user"]
    assert users and not any(i.text.lstrip().startswith("<system-reminder>") for i in users)


def test_a_codex_rollout_keeps_the_persons_words_and_the_calls() -> None:
    path = next(CODEX.glob("rollout-*f130*.jsonl"))
    items = read_conversation(path, "codex")
    assert [i.kind for i in items] == ["user", "reply", "tool", "reply", "tool", "user", "reply"]
    assert items[0].text == "start a sub-agent that says hi"
    assert (items[2].tool, items[2].done) == ("spawn_agent", True)
    assert '"agent_id"' in items[2].output


async def test_v_opens_the_conversation_beside_the_chart() -> None:
    session = import_claude_session(CLAUDE)
    app = ReadOnlyApp(imported=session.to_json())
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)
        await pilot.press("v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedConversation)
        entries = screen.query_one(ConversationPane).entries
        assert isinstance(entries[0], NoticeEntry)
        assert any(isinstance(e, ToolEntry) and e.status == "done" for e in entries)
        assert any(isinstance(e, UserEntry) for e in entries)
        chart = screen.query_one(RequestChart)
        assert chart.view is not None and sum(r.compaction for r in chart.view.history) == 1
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)


async def test_a_missing_transcript_says_so() -> None:
    [session] = import_paths([next(CODEX.glob("rollout-*f130*.jsonl"))]).sessions
    data = session.to_json()
    data["path"] = "/nonexistent/rollout.jsonl"
    app = ReadOnlyApp(imported=data)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        [entry] = app.screen.query_one(ConversationPane).entries
        assert isinstance(entry, NoticeEntry) and "cannot read" in entry.text


async def test_at_80_columns_the_conversation_is_not_squeezed_beside_the_chart() -> None:
    """At 80x24 the 56-column chart beside it left the conversation 24 columns, its tool
    calls cut to "Bash echo step0; …"; under 60 + 56 columns the two are one over the other,
    as a capture's are."""
    app = ReadOnlyApp(imported=import_claude_session(CLAUDE).to_json())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("v")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ImportedConversation)
        conversation = screen.query_one(ConversationPane).region
        side = screen.query_one("#imported-side").region
        assert conversation.width == 80 and side.width == 80
        assert conversation.height >= 8 and side.height >= 8
