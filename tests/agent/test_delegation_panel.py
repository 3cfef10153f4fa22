"""The sub-agent panel renders snapshots and opens a child's transcript on Enter."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from steiner_tui.agent.delegation import SubAgentInfo, SubAgentUpdated
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen
from steiner_tui.app.subagent_view import format_row, format_transcript
from steiner_tui.app.widgets.subagents import SubAgentPanel
from steiner_tui.engine.messages import Message, ToolCall

TRANSCRIPTS = {
    "explore-1": (
        Message("user", "Find the config loader"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "grep", {"pattern": "load"}),)),
        Message("tool", "config.py:12", name="grep", tool_call_id="c1"),
        Message("assistant", "It is in config.py."),
    )
}


class _Host(App[None]):
    def compose(self) -> ComposeResult:
        yield SubAgentPanel(lambda agent_id: TRANSCRIPTS[agent_id], id="agents")


def test_format_row() -> None:
    info = SubAgentInfo(
        "code-3",
        "code",
        "t",
        "running",
        turns=4,
        prompt_tokens=12_000,
        completion_tokens=500,
        cache_read_tokens=6_000,
    )
    assert format_row(info) == ("code-3", "code", "▶ running", "4", "12.5k", "50%")
    assert format_row(SubAgentInfo("explore-1", "explore", "t"))[-1] == "—"


def test_format_transcript() -> None:
    text = format_transcript(TRANSCRIPTS["explore-1"])
    assert "── user ──\nFind the config loader" in text
    assert "→ grep" in text and "── tool grep c1 ──\nconfig.py:12" in text
    assert format_transcript(()) == "(the sub-agent has not started yet)"
    content = "".join(f"def f{i}(x):\n    return x * {i}\n\n" for i in range(60))
    write = ToolCall("c2", "write", {"path": "generated2.py", "content": content})
    text = format_transcript((Message("assistant", "Writing.", tool_calls=(write,)),))
    assert text.endswith("\n→ write path=generated2.py · 2,057 B of arguments")
    assert '→ grep {"pattern":"load"}' in format_transcript(TRANSCRIPTS["explore-1"])


async def test_panel_rows_follow_updates_and_enter_opens_transcript() -> None:
    app = _Host()
    async with app.run_test() as pilot:
        panel = app.query_one(SubAgentPanel)
        panel.post_message(EngineUpdate(SubAgentUpdated(SubAgentInfo("explore-1", "explore", "t"))))
        await pilot.pause()
        assert len(panel.agents) == 1
        assert panel.row("explore-1")[2] == "… queued"
        panel.update_agent(SubAgentInfo("explore-1", "explore", "t", "done", turns=2))
        panel.update_agent(SubAgentInfo("code-2", "code", "t", "running"))
        await pilot.pause()
        assert len(panel.agents) == 2
        assert list(panel.row("explore-1")[2:4]) == ["✓ done", "2"]
        panel.focus()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SubAgentTranscriptScreen)
        body = str(screen.query_one("#transcript-text", Static).render())
        assert "It is in config.py." in body
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SubAgentTranscriptScreen)
