"""Delegation in the app: the sub-agent panel, bounded results, the replacement guard, exit.

The offline model never delegates, so a fake provider plays both sides: the parent (prompt
cache key ``key-1``) calls ``delegate`` with type ``explore`` on its first request, and the
child (key ``key-1-explore-1``) reads the README, then reports.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from steiner_tui.agent.delegation import SubAgentInfo, SubAgentUpdated, render_sub_agent_result
from steiner_tui.agent.model import MainModel
from steiner_tui.app.adapter import UiEventSink
from steiner_tui.app.app import make_app
from steiner_tui.app.commands import SubAgentCommands
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.screens.subagent_transcript import SubAgentTranscriptScreen
from steiner_tui.app.subagent_view import panel_title, result_notice
from steiner_tui.app.transcript import NoticeEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.subagents import SubAgentPanel
from steiner_tui.engine.events import ToolCallStarted
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from tests.app.conftest import SIZE, AppFactory, request_for
from tests.app.helpers import finish, notices, send

PARENT_KEY = "key-1"
CHILD_KEY = "key-1-explore-1"
REPORT = "FINDINGS: the README describes the sample project."
INFO = ModelInfo(context_window=32768, max_output=4096, tokenizer="heuristic")


@dataclass
class DelegatingProvider:
    """Parent: delegate once, then answer. Child: read README.md, then report.

    With ``gate`` set the child's report waits on it (a child that is still running).
    """

    wait: bool = True
    gate: asyncio.Event | None = None
    alias: str = "fake"
    stateful: bool = False
    requests: dict[str, list[ChatRequest]] = field(default_factory=lambda: defaultdict(list))
    child_waiting: asyncio.Event = field(default_factory=asyncio.Event)

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        key = request.prompt_cache_key
        child = key.endswith("-explore-1")  # a recorded session has its own parent key
        self.requests[CHILD_KEY if child else PARENT_KEY].append(request)
        count = len(self.requests[CHILD_KEY if child else PARENT_KEY])
        if child and count == 1:
            yield StreamText("Reading the README.")
            yield StreamToolCall(ToolCall("c1", "read", {"path": "README.md"}, ""))
        elif child:
            if self.gate is not None:
                self.child_waiting.set()
                await self.gate.wait()
            yield StreamText(REPORT)
        elif count == 1:
            arguments = {"type": "explore", "task": "Summarize README.md", "wait": self.wait}
            yield StreamText("Delegating.")
            yield StreamToolCall(ToolCall("d1", "delegate", arguments, ""))
        else:
            yield StreamText(f"Parent reply {count}.")
        yield StreamUsage(2000, 40, cache_read_tokens=1000 if count > 1 else 0)
        yield StreamDone()


def delegating_model(provider: DelegatingProvider) -> MainModel:
    return MainModel("fake", "offline", provider, INFO, prompt_cache_key=PARENT_KEY)


async def test_sub_agent_updates_reach_the_workbench_and_delegate_calls_read_well(
    app_for: AppFactory,
) -> None:
    """A ``SubAgentUpdated`` arrives as one ``EngineUpdate`` (no mirror class) and mounts the
    panel; a delegate call's block names its type and the task's first line."""
    info = SubAgentInfo("explore-1", "explore", "look")
    sink = UiEventSink()
    sink.emit(SubAgentUpdated(info))
    app = app_for()
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.workbench
        sink.attach(screen)
        call = ToolCall(
            "d1", "delegate", {"type": "code", "task": "Fix it\nin detail", "wait": False}
        )
        screen.post_message(EngineUpdate(ToolCallStarted(call, "delegate")))
        await pilot.pause()
        assert screen.slot.has_sub_agents
        tool = [e for e in screen.conversation.entries if isinstance(e, ToolEntry)][-1]
        assert tool.summary == "delegate code (background) · Fix it"


def test_panel_title_and_result_notice() -> None:
    infos = [
        SubAgentInfo("explore-1", "explore", "t", "done"),
        SubAgentInfo("code-2", "code", "t", "running"),
        SubAgentInfo("explore-3", "explore", "t", "running"),
    ]
    assert panel_title(infos) == "Sub-agents · 2 running · 1 done"
    envelope = render_sub_agent_result("code-2", "code", "failed", "", "boom")
    assert result_notice(envelope) == "result of sub-agent code-2 (failed) handed to the model"
    assert result_notice("something else") == "sub-agent note for the model"


def test_the_workbench_does_not_import_the_sub_agent_screen_at_start() -> None:
    module = "steiner_tui.app.screens.subagent_transcript"
    code = f"import sys, steiner_tui.app.app; print({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


async def test_waited_child_shows_in_the_panel_and_returns_only_its_envelope(
    app_for: AppFactory,
) -> None:
    provider = DelegatingProvider()
    app = app_for(delegating_model(provider))
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        assert not screen.query(SubAgentPanel)  # nothing delegated: the layout is unchanged
        await pilot.press("f3")  # none yet: F3 says so
        await pilot.pause()
        assert any("No sub-agents in this session yet" in text for text in notices(messages))
        await send(pilot, "what is in the README?")
        await finish(pilot)

        panel = screen.query_one("#subagents", SubAgentPanel)
        assert panel.parent is screen.query_one("#budget-slot")
        assert list(panel.row("explore-1")) == [
            "explore-1",
            "✓ done",
            "2",
            "4.1k",
            "25%",
        ]
        assert panel.border_title == "Sub-agents · 1 done"

        # The parent offered delegate and documented it; it got back the envelope alone.
        first = provider.requests[PARENT_KEY][0]
        assert "delegate" in [tool.name for tool in first.tools]
        assert "## Delegation" in first.messages[0].content
        conversation = app.session.driver.runner.conversation
        envelope = next(m.content for m in conversation if m.tool_call_id == "d1")
        assert envelope == (
            '<steiner-sub-agent-result id="explore-1" type="explore" status="done">\n'
            f"{REPORT}\n</steiner-sub-agent-result>"
        )
        child_only = ("Reading the README.", "Summarize README.md")
        assert not any(text in m.content for m in conversation for text in child_only)
        second = provider.requests[PARENT_KEY][1]
        assert [m.content for m in second.messages if m.role == "tool"] == [envelope]
        # The child's own transcript holds what the parent never saw.
        child = screen.hold.controller.sub_agent_transcript("explore-1")
        assert [m.role for m in child] == ["user", "assistant", "tool", "assistant"]
        assert "Sample" in child[2].content

        await pilot.press("f3")
        await pilot.pause()
        assert app.focused is panel
        await pilot.press("enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SubAgentTranscriptScreen) and dialog.agent_id == "explore-1"
        body = str(dialog.query_one("#transcript-text", Static).render())
        assert "── user ──\nSummarize README.md" in body and REPORT in body
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_background_child_blocks_clear_until_done_then_reaches_the_parent(
    app_for: AppFactory,
) -> None:
    gate = asyncio.Event()
    provider = DelegatingProvider(wait=False, gate=gate)
    app = app_for(delegating_model(provider))
    messages: list[object] = []
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        screen = app.workbench
        await send(pilot, "look at the README in the background")
        await finish(pilot)
        await provider.child_waiting.wait()
        await pilot.pause()

        driver = app.session.driver
        assert not driver.busy and driver.pending_sub_agents == 1
        panel = screen.query_one("#subagents", SubAgentPanel)
        assert panel.row("explore-1")[1] == "▶ running"
        pending_line = driver.runner.compactor.settings.pending_sub_agents
        assert tuple(pending_line()) == (("explore-1", "explore", "running"),)
        started = next(m.content for m in driver.runner.conversation if m.tool_call_id == "d1")
        assert "started in the background" in started
        before = driver.runner.conversation

        await send(pilot, "/clear")
        await pilot.pause()
        refused = "/clear replaces the conversation: 1 sub-agent is still running"
        assert any(refused in text for text in notices(messages))
        assert screen.prompt.text == "/clear"  # stays in the prompt, to send once it is done
        assert driver.runner.conversation == before

        # Its transcript, opened while it runs, follows it to the end.
        await pilot.press("f3", "enter")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, SubAgentTranscriptScreen)
        box = dialog.query_one("#transcript-box")
        assert box.border_title == "Sub-agent explore-1 · explore · running · 2 turns"
        assert REPORT not in str(dialog.query_one("#transcript-text", Static).render())

        manager = app.session.sub_agents
        assert manager is not None
        gate.set()
        await manager.wait_all()
        await pilot.pause()
        assert box.border_title == "Sub-agent explore-1 · explore · done · 2 turns"
        assert REPORT in str(dialog.query_one("#transcript-text", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert driver.pending_sub_agents == 0
        assert panel.row("explore-1")[1] == "✓ done"
        assert any("explore-1 done" in text for text in notices(messages))
        assert not any(m.source == SUB_AGENT_RESULT_SOURCE for m in driver.runner.conversation)

        # The result goes out ahead of the next message, shown as a notice, not as user text.
        await send(pilot, "carry on")
        await finish(pilot)
        delivered = [m for m in driver.runner.conversation if m.source == SUB_AGENT_RESULT_SOURCE]
        assert [m.content.splitlines()[1] for m in delivered] == [REPORT]
        last_request = provider.requests[PARENT_KEY][-1]
        assert any(REPORT in m.content for m in last_request.messages)
        entries = screen.conversation.entries
        notice = "result of sub-agent explore-1 (done) handed to the model"
        assert any(isinstance(e, NoticeEntry) and e.text == notice for e in entries)
        assert not any(isinstance(e, UserEntry) and REPORT in e.text for e in entries)

        await send(pilot, "/clear")
        await pilot.pause()
        assert driver.runner.conversation == ()


async def test_exit_cancels_a_running_child(app_for: AppFactory) -> None:
    provider = DelegatingProvider(wait=False, gate=asyncio.Event())  # never released
    app = app_for(delegating_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "start something long")
        await finish(pilot)
        await provider.child_waiting.wait()
        manager = app.session.sub_agents
        assert manager is not None and manager.pending_count == 1
    assert manager.info("explore-1").state == "cancelled"
    assert manager.pending_count == 0


async def test_palette_lists_sub_agent_commands(app_for: AppFactory) -> None:
    provider = DelegatingProvider()
    app = app_for(delegating_model(provider))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.workbench
        commands = SubAgentCommands(screen)
        titles = [str(hit.text) async for hit in commands.discover()]
        assert titles == ["Sub-agents"]
        await send(pilot, "delegate please")
        await finish(pilot)
        titles = [str(hit.text) async for hit in commands.discover()]
        assert titles == ["Sub-agents", "Sub-agent transcript: explore-1"]
        hits = [hit async for hit in commands.search("transcript explore")]
        assert len(hits) == 1
        hits[0].command()
        await pilot.pause()
        assert isinstance(app.screen, SubAgentTranscriptScreen)


async def test_without_delegation_there_is_no_delegate_tool(app_for: AppFactory) -> None:
    provider = DelegatingProvider()
    app = app_for(delegating_model(provider), delegation=None)
    assert app.session.sub_agents is None
    names = [tool.name for tool in app.session.driver.runner.tool_definitions]
    assert "delegate" not in names
    assert "## Delegation" not in app.session.driver.preview().messages[0].content


async def test_the_log_keeps_the_envelope_and_a_resume_the_childs_own_conversation(
    project: Path, config_dir: Path
) -> None:
    provider = DelegatingProvider()
    model = delegating_model(provider)
    app = make_app(request_for(project, config_dir, model, record=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "what is in the README?")
        await finish(pilot)
        sent = app.session.driver.runner.conversation
    assert app.session.log is not None
    records = app.session.log.path.read_text(encoding="utf-8")
    assert REPORT in records and "steiner-sub-agent-result" in records
    assert "Reading the README." not in records and '"sub_agent"' not in records

    # The child's own conversation is kept beside the log, in its folder: after the resume
    # the panel lists it and Enter opens it (the panel said "No sub-agents in this session
    # yet" over a conversation holding its result).
    resumed = make_app(request_for(project, config_dir, model, record=True, resume="latest"))
    async with resumed.run_test(size=SIZE) as pilot:
        await finish(pilot)
        assert resumed.session.driver.runner.conversation == sent
        assert resumed.session.sub_agents is not None
        assert [i.id for i in resumed.session.sub_agents.infos()] == ["explore-1"]
        names = [tool.name for tool in resumed.session.driver.runner.tool_definitions]
        assert "delegate" in names
        panel = resumed.workbench.query_one("#subagents", SubAgentPanel)
        assert list(panel.row("explore-1"))[:2] == ["explore-1", "✓ done"]
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        dialog = resumed.screen
        assert isinstance(dialog, SubAgentTranscriptScreen)
        body = str(dialog.query_one("#transcript-text", Static).render())
        assert "── user ──\nSummarize README.md" in body and REPORT in body


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=lambda size: f"{size[0]}x{size[1]}")
def test_the_sub_agent_panel_snapshot(
    snap_compare: Callable[..., bool], app_for: AppFactory, size: tuple[int, int]
) -> None:
    """A finished child's row under the header, in the panel under the context panel (F3 shows
    it where the context panel is not docked)."""

    async def delegate(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await send(pilot, "what is in the README?")
        await finish(pilot)
        await pilot.press("f3")
        await finish(pilot)

    app = app_for(delegating_model(DelegatingProvider()))
    assert snap_compare(app, terminal_size=size, run_before=delegate)
