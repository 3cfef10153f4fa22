"""Plain logic behind the app: slash parsing, history, transcript entries, budget figures."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from steiner_tui.agent.delegation import render_sub_agent_result
from steiner_tui.app.adapter import UiEventSink
from steiner_tui.app.budget_view import WindowFigures, build_budget_view, sources_label
from steiner_tui.app.help_catalog import key_label
from steiner_tui.app.history import PromptHistory
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.slash import SlashCommand, UnknownSlashCommand, parse_slash
from steiner_tui.app.transcript import (
    NoticeEntry,
    ReplyEntry,
    ToolEntry,
    UserEntry,
    entries_from_messages,
    user_entry,
)
from steiner_tui.app.widgets.skill_list import KEYS_HINT, skills_subtitle, skills_title
from steiner_tui.app.widgets.window_bar import bar_cells
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.events import (
    RequestSnapshot,
    StaticContextReloaded,
    TextDelta,
    UsageReported,
)
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.prompt.blocks import ContextBlock
from steiner_tui.engine.skills.delta import SkillStatus, compose_user_message
from steiner_tui.engine.skills.envelopes import render_skill_activation
from steiner_tui.engine.snapshots import SourceCounter, build_request_snapshot
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.units import byte_count, count, token_count

ESTIMATOR = RequestEstimator(default_encoding_loader(None))


def test_parse_slash() -> None:
    assert parse_slash("hello") == "hello"
    assert parse_slash("/compact keep the API notes") == SlashCommand(
        "compact", "keep the API notes"
    )
    assert parse_slash("  /CLEAR ") == SlashCommand("clear")
    assert parse_slash("//usr/bin") == "/usr/bin"
    assert parse_slash("/exit") == parse_slash("/Quit") == SlashCommand("quit")
    assert parse_slash("/resume ab12") == SlashCommand("sessions", "ab12")  # Claude Code's name
    assert parse_slash("/tokens") == parse_slash("/cost") == SlashCommand("context")
    assert parse_slash("/new") == parse_slash("/reset") == SlashCommand("clear")
    assert parse_slash("/status") == SlashCommand("model")
    with pytest.raises(UnknownSlashCommand, match="unknown command /nope — try /compact, "):
        parse_slash("/nope")
    # A typo names the command meant, not the fifteen (three lines at 80 columns).
    with pytest.raises(UnknownSlashCommand, match=r"/compcat — did you mean /compact\? \(/help"):
        parse_slash("/compcat")
    with pytest.raises(UnknownSlashCommand, match=r"did you mean /sessions \(/resume\)\?"):
        parse_slash("/resumee")


def test_prompt_history_keeps_the_draft() -> None:
    history = PromptHistory()
    assert history.previous("x") is None
    for text in ("a", "b", "b"):
        history.push(text)
    assert history.entries == ("a", "b")
    assert history.previous("draft") == "b"
    assert history.previous("ignored") == "a"
    assert history.previous("ignored") is None
    assert history.next() == "b"
    assert history.next() == "draft"
    assert history.next() is None


def test_a_prompt_sent_again_moves_to_the_newest_place() -> None:
    """The project's earlier prompts, then a resumed session's own: the same prompt twice."""
    history = PromptHistory()
    for text in ("a", "b", "c", "b", "c"):
        history.push(text)
    assert history.entries == ("a", "b", "c")


def test_user_entry_badges_for_notice_and_envelopes() -> None:
    envelope, _ = render_skill_activation("review", "Check everything.")
    content = compose_user_message("please review", [envelope], "plan")
    entry = user_entry(content)
    assert entry.text == "please review"
    assert entry.badges == ("plan mode", "+review")


def test_user_entry_shows_the_text_as_typed() -> None:
    typed = "[execution mode: plan] is what I typed"
    stored = compose_user_message(typed, [])
    assert stored == "\\" + typed  # escaped as sent, so it never reads as a mode notice
    assert user_entry(stored) == UserEntry(typed, ())
    envelope, _ = render_skill_activation("review", "Check everything.")
    assert user_entry(compose_user_message(typed, [envelope])).text == typed


def test_entries_from_messages_pair_tool_results() -> None:
    call = ToolCall("c1", "read", {"path": "a.py"}, "")
    messages = [
        Message("user", "hi"),
        Message("assistant", "Reading.", tool_calls=(call,)),
        Message("tool", "Error: no such file", name="read", tool_call_id="c1"),
        Message("assistant", "partial", incomplete=True),
    ]
    entries = entries_from_messages(messages)
    tool = entries[2]
    assert isinstance(tool, ToolEntry) and tool.status == "failed" and "a.py" in tool.summary
    last = entries[3]
    assert isinstance(last, ReplyEntry) and last.interrupted


def test_a_resumed_delegation_reads_as_it_did_live() -> None:
    """Resumed, a delegate call's block said "delegate" alone (live: its type and task), and a
    background child's result showed as a user message holding the raw envelope (live: one
    notice line)."""
    arguments = {"type": "code", "task": "write the module\nwith tests", "wait": False}
    call = ToolCall("d1", "delegate", arguments, "")
    result = render_sub_agent_result("code-1", "code", "done", "Wrote it.", "")
    messages = [
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", "Sub-agent code-1 (code) started in the background.", tool_call_id="d1"),
        Message("user", result, source=SUB_AGENT_RESULT_SOURCE),
    ]
    tool, notice = entries_from_messages(messages)
    assert isinstance(tool, ToolEntry)
    assert tool.summary == "delegate code (background) · write the module"
    assert notice == NoticeEntry(
        "result of sub-agent code-1 (done) handed to the model", "subagent"
    )


def _snapshot(messages: tuple[Message, ...], index: int = 1) -> RequestSnapshot:
    blocks = (
        ContextBlock.of("preamble", "You are helpful."),
        ContextBlock.of("project_context", "N" * 50, path="/p/NOTES.md", truncated=True),
    )
    sent = (Message("system", "You are helpful."), Message("user", "N" * 50), *messages)
    return build_request_snapshot(
        request_id=f"r{index}",
        index=index,
        model="offline",
        provider="offline",
        time=datetime(2026, 1, 1, tzinfo=UTC),
        messages=sent,
        blocks=blocks,
        block_message_count=2,
        tools=(),
        max_tokens=4096,
        estimate=ESTIMATOR.estimate("offline", sent, ()),
        counter=SourceCounter(ESTIMATOR),
    )


def test_a_source_reads_as_the_panel_names_it() -> None:
    """Merged sources are each named; a captured request's and unknown ones keep a name."""
    assert sources_label("preamble+project_agents_md") == "preamble + project AGENTS.md"
    assert sources_label("session_date") == "session date"
    assert sources_label("system_message") == "system message"
    assert sources_label("blocks") == "blocks"


def test_budget_view_names_the_sources_the_engine_counted() -> None:
    envelope, _ = render_skill_activation("review", "Check everything.")
    first = _snapshot((Message("user", compose_user_message("hi", [envelope])),))
    second = _snapshot((*first.messages[2:], Message("assistant", "ok")), index=2)
    usage = (1, UsageReported("offline", 400, 5, estimated_prompt_tokens=500))
    view = build_budget_view(
        second,
        budget=ModelTokenBudget(32768),
        project_root=Path("/p"),
        previous=first,
        usage=usage,
    )
    labels = [row.label for row in view.rows]
    assert labels == ["preamble", "context · NOTES.md", "skill · review", "conversation"]
    notes = view.row("context · NOTES.md")
    assert notes is not None and notes.truncated and notes.bytes == 50
    assert abs(sum(row.share for row in view.rows) - 1) < 1e-9
    assert view.prefix is not None and view.prefix.first_broken is None
    assert view.prefix.matching == 3
    assert view.drift is not None and view.drift.percent == 25
    assert view.heading == "request #2"
    assert sum(row.tokens for row in view.rows) == second.raw_prompt_tokens
    skill = view.row("skill · review")
    assert skill is not None and skill.tokens == second.sources[2].tokens


def test_skills_title_counts_what_is_in_force_and_what_is_pending() -> None:
    def row(name: str, state: str) -> SkillStatus:
        return SkillStatus(name, "", 10, False, state)  # type: ignore[arg-type]

    idle = [row("a", "inactive"), row("b", "inactive")]
    assert (skills_title(idle), skills_subtitle(idle)) == ("Skills · 0/2 on", KEYS_HINT)
    pending_on = [
        row("a", "pending_activation"),
        row("b", "pending_activation"),
        row("c", "inactive"),
    ]
    assert skills_title(pending_on) == "Skills · 0/3 on"
    assert skills_subtitle(pending_on) == "2 pending · Space/1-9"
    pending_off = [row("a", "pending_deactivation"), row("b", "active")]
    assert skills_title(pending_off) == "Skills · 2/2 on"
    assert skills_subtitle(pending_off) == "1 pending · Space/1-9"
    # Both fit the sidebar's 28 columns (a border label gets 22), with two-digit counts too.
    many = [row(str(n), "pending_activation") for n in range(12)]
    assert len(skills_title(many)) <= 22 and len(skills_subtitle(many)) <= 22


def test_one_unit_style() -> None:
    assert count(2467) == "2,467"
    assert byte_count(2467) == "2,467 B"
    assert token_count(3779) == "3,779 tok"


def test_window_bar_cells() -> None:
    figures = WindowFigures(100, used=20, reserve=10, soft_threshold=70, hard_limit=95)
    cells = bar_cells(figures, 10)
    assert " ".join(cells) == "used used reserve free free free free soft free hard"


def test_key_labels() -> None:
    assert key_label("ctrl+l") == "Ctrl+L"
    assert key_label("escape") == "Esc"
    assert key_label("A") == "Shift+A"
    assert key_label("a") == "a"
    assert key_label("f1") == "F1"
    assert key_label("shift+enter,ctrl+j") == "Shift+Enter / Ctrl+J"
    assert key_label("plus,equals_sign") == "+ / ="
    assert key_label("minus") == "-"


def test_adapter_buffers_until_attached() -> None:
    sink = UiEventSink()
    sink.emit(TextDelta("hello"))
    sink.emit(StaticContextReloaded(("agents",), "manual"))  # not shown: the log keeps it
    posted: list[object] = []

    class Target:
        def post_message(self, message: object) -> bool:
            posted.append(message)
            return True

    sink.attach(Target())  # type: ignore[arg-type]
    assert [type(m) for m in posted] == [EngineUpdate]
    assert isinstance(posted[0], EngineUpdate) and posted[0].event == TextDelta("hello")
    sink.emit(UsageReported("m", 1, 1))
    sink.emit(_snapshot(()))
    assert len(posted) == 3 and isinstance(posted[-1], EngineUpdate)
