"""The workbench opens captures and imports read-only; the capture commands list and show."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.widgets import DataTable, Footer, Static

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.capture_view import CaptureScreen
from steiner_tui.app.screens.capture_workbench import CaptureWorkbench, load_workbench
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.transcript import ReplyEntry, ToolEntry, UserEntry
from steiner_tui.app.widgets.budget_panel import BudgetPanel
from steiner_tui.app.widgets.context_charts import RequestChart, chart_columns
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.inspector_format import clock
from steiner_tui.app.widgets.inspector_requests import RequestTable
from steiner_tui.app.widgets.whatif_view import WhatIfView
from steiner_tui.app.widgets.window_bar import WindowBar
from steiner_tui.capture.store import CaptureWriter
from steiner_tui.capture.usage import Usage
from steiner_tui.cli import main
from steiner_tui.commands.capture_screenshots import (
    sample_claude_requests,
    write_sample_transcript,
)
from steiner_tui.importers.claude import import_claude_session


def write_capture(base: Path, capture_id: str = "cap1") -> CaptureWriter:
    writer = CaptureWriter(base, "http://upstream", capture_id)
    first, _ = sample_claude_requests()
    seq = writer.request("POST", "/v1/messages?beta=true", first)
    writer.reply(seq, 200, "text/event-stream", 100, Usage(3, 0, 14_000, 12))
    return writer


async def test_a_capture_in_the_inspector_follows_new_requests(tmp_path: Path) -> None:
    writer = write_capture(tmp_path)
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CaptureWorkbench)
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaptureScreen)
        assert screen.query_one(RequestTable).row_count == 1
        snapshot = screen.snapshot_at(0)
        assert snapshot.estimated_prompt_tokens == 14_003
        assert [b.source for b in snapshot.blocks][:3] == ["system"] * 3
        _, second = sample_claude_requests()
        writer.request("POST", "/v1/messages?beta=true", second)
        screen.poll()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.query_one(RequestTable).row_count == 2
        # Its reply has not ended: estimated from its bytes at the first request's rate.
        assert screen.snapshot_at(1).estimate_strategy.startswith(
            "no usage (its reply has not ended): estimated from its bytes at request #1's"
        )
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, CaptureWorkbench)
    writer.close()


async def test_the_request_the_agent_waits_on_is_estimated_not_empty(tmp_path: Path) -> None:
    """Followed live, the latest request has no usage until its reply ends: the panel and the
    chart show its context estimated from its bytes (saying so), never 0."""
    writer = write_capture(tmp_path)
    _, second = sample_claude_requests()
    writer.request("POST", "/v1/messages?beta=true", second)  # its reply still streams
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaptureWorkbench)
        view = screen.data.view
        assert screen.data.position == 1 and view is not None
        first = view.history[0].estimated_prompt_tokens
        # The second request repeats the first and adds to it: a little more, at its rate.
        assert first < view.estimate_tokens < first * 1.2
        assert view.history[1].estimated_prompt_tokens == view.estimate_tokens
        assert sum(row.tokens for row in view.rows) == view.estimate_tokens
        assert view.strategy.startswith("no usage (its reply has not ended)")
        assert view.confidence == "low"
        assert view.window.used == view.estimate_tokens
    writer.close()
    # With no request before it that has usage, four bytes a token.
    lone = CaptureWriter(tmp_path, "http://upstream", "lone")
    lone.request("POST", "/v1/messages?beta=true", second)
    lone.close()
    _, data = load_workbench(tmp_path, "lone")
    assert data.view is not None and data.view.estimate_tokens > 10_000
    assert data.view.strategy.endswith("at 4 bytes a token")


async def test_a_capture_in_the_workbench_shows_the_latest_request_and_follows(
    tmp_path: Path,
) -> None:
    writer = write_capture(tmp_path)
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaptureWorkbench)
        data = screen.data
        assert data.position == 0 and data.view is not None
        view = data.view
        assert view.window.context_size == 200_000  # claude-*, not in the table by name
        assert view.estimate_tokens == 14_003
        labels = [row.label for row in view.rows]
        assert labels[:2] == ["system", "instructions · CLAUDE.md"]
        assert "tool definitions" in labels and "conversation" in labels
        assert sum(row.tokens for row in view.rows) == 14_003
        [user, *_] = screen.query_one(ConversationPane).entries
        assert isinstance(user, UserEntry)
        assert "CLAUDE.md" in user.badges
        assert "Contents of" not in user.text  # the file is a badge; its text is in the panel
        assert screen.query_one(RequestChart).view is view
        _, second = sample_claude_requests()
        seq = writer.request("POST", "/v1/messages?beta=true", second)
        writer.reply(seq, 200, "text/event-stream", 100, Usage(57, 14_211, 81, 30))
        screen.poll()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.data.position == 1
        assert screen.data.view is not None
        assert screen.data.view.estimate_tokens == 14_349
        assert len(screen.data.view.history) == 2
        entries = screen.query_one(ConversationPane).entries
        tools = [e for e in entries if isinstance(e, ToolEntry)]
        assert [(t.name, t.status) for t in tools] == [("Read", "done")]
        assert tools[0].summary == "Read /home/me/src/budgetkit/CLAUDE.md"
        # The reply shows its words; the tool call's input is the Read block, not reply text.
        assert [e.text for e in entries if isinstance(e, ReplyEntry)] == ["Let me read the notes."]
        screen.query_one(BudgetPanel).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CaptureScreen)
    writer.close()


async def test_an_empty_captures_panel_is_titled_as_waiting_not_as_an_error(
    tmp_path: Path,
) -> None:
    """Its title said "Context · error" above a message that only said nothing had been
    captured yet."""
    writer = CaptureWriter(tmp_path, "http://upstream", "cap1")
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = app.screen.query_one(BudgetPanel)
        assert str(panel.border_title) == "Context · nothing captured yet"
        rows = panel.query_one("#budget-rows", Static)
        assert str(rows.render()).startswith("No request captured yet")
        # None of the figures' parts, empty: a ranking heading and a chart's lone bar were.
        shown = [w for w in panel.children if w.display]
        assert [w.id for w in shown] == ["budget-rows"]
        # Not the workbench's "Type below and press Enter": a capture has no prompt.
        welcome = app.screen.query_one(ConversationPane).query_one("#welcome", Static)
        assert str(welcome.render()).startswith("Nothing captured yet")
    writer.close()


async def test_the_capture_inspector_shows_each_requests_cache_cause_and_cost(
    tmp_path: Path,
) -> None:
    writer = write_capture(tmp_path)  # 3 input, 14,000 written, 12 output
    _, second = sample_claude_requests()
    seq = writer.request("POST", "/v1/messages?beta=true", second)
    # Reads 13,000 of the 14,000 the first wrote: 1,000 written again.
    writer.reply(seq, 200, "text/event-stream", 100, Usage(57, 13_000, 1_292, 30))
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, CaptureScreen)
        table = app.screen.query_one(RequestTable)
        rows = [table.get_row_at(row) for row in range(2)]
        causes = [str(row[table.get_column_index("cause")]) for row in rows]
        costs = [str(row[table.get_column_index("cost")]) for row in rows]
    writer.close()
    # claude-opus-5-5: $4 in, $0.20 read, $5 write, $20 out.
    assert causes[0] == "first"
    assert causes[1].endswith(" $0.0050"), causes  # 1,000 rewritten at $5/M
    assert costs == ["$0.07", "$0.0099"]  # $0.070252 and $0.009888


async def test_the_capture_inspectors_cache_reuse_is_what_the_provider_read(
    tmp_path: Path,
) -> None:
    """A Claude Code capture's #2 said 50% (the share of its messages #1 had) while the
    provider read 12,418 of its 12,488 tokens from cache, and as much on a request it read
    nothing of (the cache had expired). The column is the share of the prompt read from cache,
    "—" for the request whose reply has not ended."""
    writer = CaptureWriter(tmp_path, "http://upstream", "cap1")
    first, second = sample_claude_requests()
    for body, usage in (
        (first, Usage(3, 0, 12_418, 12)),
        (second, Usage(13, 12_418, 57, 30)),
        (second, Usage(13, 0, 12_475, 30)),  # expired
    ):
        writer.reply(writer.request("POST", "/v1/messages?beta=true", body), 200, "", 1, usage)
    writer.request("POST", "/v1/messages?beta=true", second)  # its reply has not ended
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(160, 36)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        table = app.screen.query_one(RequestTable)
        column = table.get_column_index("reuse")
        cells = [str(table.get_row_at(row)[column]) for row in range(4)]
    writer.close()
    assert cells == ["·····   0%", "█████  99%", "·····   0%", "—"]


async def test_the_capture_inspector_keeps_its_cost_column_on_screen_at_80_columns(
    tmp_path: Path,
) -> None:
    """Eleven requests, each rewriting the cache ("conversation $0.07"): the list ran three
    cells past the edge at 80 columns, the Cost column off screen. It fits as the main
    inspector's does (``fit_columns``): the reuse bar gives way too, and comes back at 120."""
    writer = CaptureWriter(tmp_path, "http://upstream", "cap1")
    first, second = sample_claude_requests()
    for n in range(11):
        seq = writer.request("POST", "/v1/messages?beta=true", second if n % 2 else first)
        writer.reply(seq, 200, "text/event-stream", 100, Usage(57, 1000 if n else 0, 13_292, 30))
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        table = app.screen.query_one(RequestTable)
        assert table.max_scroll_x == 0
        assert {"index", "model", "tokens", "cause", "cost"} <= {k.value for k in table.columns}
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert "reuse" in {k.value for k in table.columns} and table.max_scroll_x == 0
    writer.close()


async def test_a_capture_at_80x24_stacks_the_conversation_over_the_panel(
    tmp_path: Path,
) -> None:
    writer = write_capture(tmp_path)
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        conversation = app.screen.query_one(ConversationPane).region
        panel = app.screen.query_one(BudgetPanel).region
        # Side by side the conversation had 24 columns; stacked, each has the width.
        assert conversation.width >= 60 and panel.width >= 60, (conversation, panel)
        assert conversation.height >= 8 and panel.height >= 8, (conversation, panel)
        await pilot.resize_terminal(140, 40)
        await pilot.pause()
        conversation = app.screen.query_one(ConversationPane).region
        panel = app.screen.query_one(BudgetPanel).region
        assert conversation.y == panel.y and conversation.right <= panel.x  # side by side
    writer.close()


CODEX_BODY = {
    "model": "my-local-model",
    "stream": True,
    "tools": [{"type": "function", "name": "exec_command", "parameters": {"type": "object"}}],
    "input": [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "Be Codex."}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": "# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
                },
                {"type": "input_text", "text": "read the notes"},
            ],
        },
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "exec_command",
            "arguments": '{"cmd": "cat AGENTS.md"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "[bold]x[/bold]"},
    ],
}


async def test_a_codex_capture_with_an_unknown_model(tmp_path: Path) -> None:
    writer = CaptureWriter(tmp_path, "http://upstream", "cap2")
    seq = writer.request("POST", "/v1/responses", json.dumps(CODEX_BODY).encode())
    writer.reply(seq, 200, "text/event-stream", 10, Usage(9_600, 0, 0, 12))
    writer.close()
    _, data = load_workbench(tmp_path, "cap2")
    assert data.view is not None
    assert data.view.heading.endswith("window unknown")
    assert data.view.window_origin.startswith("window unknown: my-local-model")
    assert data.view.window.context_size == 9_600  # drawn to the largest request's scale
    [tool] = [e for e in data.entries if isinstance(e, ToolEntry)]
    assert (tool.summary, tool.output) == ("exec_command cat AGENTS.md", "[bold]x[/bold]")
    assert not data.view.window.known
    app = ReadOnlyApp(capture=(tmp_path, "cap2"), follow=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        # No limit is claimed for a window nobody knows, and nothing offers to try thresholds.
        panel = app.screen.query_one(BudgetPanel)
        assert not panel.query(WhatIfView)
        chart = str(panel.query_one(RequestChart).render())
        bar = str(panel.query_one(WindowBar).render())
        assert "window unknown" in chart and "window unknown" in bar
        assert not re.search(r"(soft|hard) [0-9]", chart + bar)  # no limit figure drawn
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CaptureScreen)
        roles = [m.role for m in screen.snapshot_at(0).messages]
        assert roles == ["system", "user", "assistant", "tool"]


MIXED = next(iter(sorted(Path("/work/shared/fixtures/claude-code").glob("ae4a77f8*.jsonl"))), None)
"""A real Claude Code session (217 requests, a compaction, a sub-agent)."""


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
async def test_an_imports_requests_with_their_causes_and_costs_show_at_80x24() -> None:
    assert MIXED is not None
    path = MIXED
    app = ReadOnlyApp(imported=import_claude_session(path).to_json())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        assert table.has_focus
        # Its border, header row and at least four requests, above the footer.
        footer = app.screen.query_one(Footer).region
        assert table.region.height >= 7 and table.region.bottom <= footer.y, table.region
        # Each request's figures, its cost and its cache cause come first: they fit 80 columns.
        columns = list(table.columns.values())
        labels = [str(c.label) for c in columns]
        assert labels.index("cache") < labels.index("time") < labels.index("model")
        used = sum(c.get_render_width(table) for c in columns[: labels.index("cache") + 1])
        assert used <= table.content_region.width


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
async def test_an_imports_requests_stay_on_screen_when_the_terminal_is_resized() -> None:
    """Widened, then back to 80x24 (a tmux split, a window moved): the screen scrolled back to
    its top and the focused requests table stayed out of sight, Up and Down moving a cursor
    nobody could see."""
    assert MIXED is not None
    app = ReadOnlyApp(imported=import_claude_session(MIXED).to_json())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        table.move_cursor(row=table.row_count - 1)  # the newest, as a followed session's is
        await pilot.pause()
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        footer = app.screen.query_one(Footer).region
        assert table.region.height >= 7 and table.region.bottom <= footer.y, table.region
        # The cursor's row (the last request) is among the rows shown.
        assert table.cursor_row == table.row_count - 1
        assert table.scroll_y == table.max_scroll_y


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
async def test_the_costliest_cache_miss_is_named_and_found_at_80x24() -> None:
    """Which miss cost the most took reading 217 rows' cache column, five at a time at 80x24.
    The table's border names it, and ``c`` takes the cursor to it."""
    assert MIXED is not None
    app = ReadOnlyApp(imported=import_claude_session(MIXED).to_json())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        assert str(table.border_subtitle) == "costliest miss #139 compaction $0.07 · c"
        await pilot.press("c")
        await pilot.pause()
        assert str(table.get_row_at(table.cursor_row)[0]) == "139"
        footer = app.screen.query_one(Footer).region
        assert table.region.height >= 7 and table.region.bottom <= footer.y, table.region


@pytest.mark.skipif(MIXED is None, reason="the Claude Code fixtures are not there")
async def test_the_sessions_bill_shows_at_80x24() -> None:
    """At 80x24 the screen opens on the requests and no key scrolls it back up: the session's
    cost, in the summary above the chart, could not be read. The table's title carries it."""
    assert MIXED is not None
    app = ReadOnlyApp(imported=import_claude_session(MIXED).to_json())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        assert str(table.border_title) == "Requests · cost $5.32"
        summary = app.screen.query_one("#imported-summary", Static)
        assert "cost $5.32 ·" in str(summary.render())


async def test_an_import_shows_its_chart_and_lineage(tmp_path: Path) -> None:
    session = import_claude_session(write_sample_transcript(tmp_path))
    app = ReadOnlyApp(imported=session.to_json())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)
        chart = app.screen.query_one(RequestChart)
        assert chart.view is not None
        history = chart.view.history
        mains = [row for row in history if not row.compaction]
        assert [r.estimated_prompt_tokens for r in mains] == [
            r.context_tokens for r in session.requests
        ]
        assert [i for i, row in enumerate(history) if row.compaction] == [41]
        assert "auto" in str(chart.border_subtitle)
        assert chart.view.window.context_size == 200_000
        marked = [c for c in chart_columns(history, 100) if c.compaction]
        assert [c.first for c in marked] == [42]  # the mark sits before the 42nd request
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LineageScreen)
        generations = app.screen.lineage.generations
        assert len(generations) == 2
        assert generations[1].summary.startswith("This session is being continued")
        assert generations[1].outcome is not None
        assert generations[1].outcome.before_tokens == session.generations[0].pre_tokens
        assert generations[1].outcome.trigger == session.generations[0].trigger == "auto"


async def test_an_imports_summary_counts_in_words_that_agree() -> None:
    folder = Path(__file__).parents[1] / "importers" / "data" / "claude-code-2.0.28"
    session = import_claude_session(folder / "74540f63-2907-49ff-a887-c1aa26959730.jsonl")
    app = ReadOnlyApp(imported=session.to_json())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        summary = str(app.screen.query_one("#imported-summary", Static).render())
        assert "0 compactions · 1 sub-agent\n" in summary  # was "1 sub-agents"
        extra = str(app.screen.query_one("#imported-extra", Static).render())
        assert re.search(r": 1 request, ", extra), extra  # a summarizer's one request


def test_the_captures_list_counts_in_words_that_agree(tmp_path: Path) -> None:
    from steiner_tui.app.screens.captures import list_readonly

    write_capture(tmp_path).close()  # one request
    [(kind, _, _, what)] = list_readonly(tmp_path)
    assert kind == "capture" and what.startswith("1 request · "), what  # was "1 requests"


def test_capture_list_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    base = tmp_path / "steiner" / "sessions"
    write_capture(base, "older").close()
    write_capture(base, "newer").close()
    assert main(["capture", "list"]) == 0
    ids = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert set(ids) == {"older", "newer"}
    assert main(["capture", "show", "newer", "--json"]) == 0
    [request] = json.loads(capsys.readouterr().out)["requests"]
    assert {"blocks", "messages", "tools_bytes", "tools", "usage", "prefix"} <= set(request)
    assert set(request["usage"]) == {
        "input_tokens",
        "cache_read_tokens",
        "cache_creation_tokens",
        "output_tokens",
    }
    assert {"name", "bytes"} <= set(request["tools"][0])
    assert {"matching_messages", "first_diverging"} <= set(request["prefix"])
    assert main(["capture", "show", "newer"]) == 0
    assert "instructions" in capsys.readouterr().out
    assert main(["capture", "show", "missing"]) == 2


def test_the_capture_command_runs_the_proxy(tmp_path: Path) -> None:
    import subprocess
    import sys

    import httpx2

    from tests.capture.fake_upstream import FakeUpstream
    from tests.capture.test_proxy_loopback import ANTHROPIC_BODY

    upstream = FakeUpstream().start()
    env = {"PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "steiner_tui", "capture", "--port", "0", "--upstream", upstream.url],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("capture "), first + (
            process.stderr.read() if process.stderr else ""
        )
        url = first.split("listening on ", 1)[1].strip()
        reply = httpx2.post(
            f"{url}/v1/messages",
            json=ANTHROPIC_BODY,
            headers={"x-api-key": "secret-in-a-header"},
            timeout=30,
        )
        assert reply.status_code == 200
        lines: list[str] = []
        while not (lines and lines[-1].startswith("#")) and len(lines) < 10:
            lines.append(process.stdout.readline())
        assert lines[-1].startswith("#1 POST /v1/messages → 200"), lines
        assert "secret-in-a-header" not in "".join(lines)
    finally:
        process.terminate()
        process.communicate(timeout=30)
        upstream.stop()
    capture_id = first.split()[1]
    assert (tmp_path / "steiner" / "sessions" / ".captures" / capture_id).is_dir()


def test_running_the_proxy_never_loads_textual() -> None:
    import subprocess
    import sys

    code = (
        "import sys, steiner_tui.commands.capture, steiner_tui.commands.import_transcripts\n"
        "print(','.join(m for m in ('textual', 'anthropic', 'openai') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


async def test_the_sessions_screen_opens_captures_and_imports(tmp_path: Path) -> None:
    from textual.app import App

    from steiner_tui.app.screens.captures import CapturesScreen
    from steiner_tui.app.screens.sessions import SessionsScreen
    from steiner_tui.importers.store import save_import
    from steiner_tui.sessions.store import SessionStore

    write_capture(tmp_path).close()
    save_import(tmp_path, import_claude_session(write_sample_transcript(tmp_path / "claude")))

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(SessionsScreen(SessionStore(tmp_path)))

    app = Host()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CapturesScreen)
        assert [row[0] for row in screen.rows] == ["capture", "import"]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, CaptureWorkbench)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen


async def test_the_captures_list_gives_what_the_width_left(tmp_path: Path) -> None:
    """An import's 36-character id pushed "what" past the table's edge, cut without a mark;
    below 89 columns the list scrolled sideways ("what" kept 20): now the id gives way first."""
    from textual.app import App
    from textual.widgets import DataTable

    from steiner_tui.app.screens.captures import CapturesScreen
    from steiner_tui.importers.store import save_import

    write_capture(tmp_path).close()
    session = import_claude_session(write_sample_transcript(tmp_path / "claude"))
    save_import(tmp_path, session)

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(CapturesScreen(tmp_path))

    app = Host()
    async with app.run_test(size=(120, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        sizes = (((120, 24), "1 compaction"), ((90, 24), "…"), ((80, 24), "…"), ((60, 24), "…"))
        for size, end in (*sizes, ((150, 24), "n")):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            used = sum(c.get_render_width(table) for c in table.columns.values())
            assert used <= table.scrollable_content_region.width, size
            assert table.render_line(2).text.rstrip().endswith(end), size


async def test_a_one_request_capture_says_one_request(tmp_path: Path) -> None:
    write_capture(tmp_path).close()
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CaptureWorkbench)
        assert " · 1 request · " in str(app.screen.sub_title)  # was "1 requests"
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, CaptureScreen)
        assert " · 1 request · " in str(app.screen.sub_title)


def test_two_sessions_through_one_proxy_each_reuse_what_their_provider_read(
    tmp_path: Path,
) -> None:
    """Two Claude Code sessions at once through one proxy interleave in the capture: the
    inspector's cache reuse and the chart's strip are each request's own cache read."""
    from steiner_tui.app.screens.capture_view import load_capture_snapshots
    from steiner_tui.capture.figures import model_window, request_summaries
    from steiner_tui.capture.report import decode_all
    from steiner_tui.capture.store import read_capture

    first, second = sample_claude_requests()

    def other(body: bytes) -> bytes:  # the same agent in another folder: its own system prompt
        data = json.loads(body)
        data["system"][-1]["text"] += " Primary working directory: /elsewhere"
        data["messages"][0]["content"] = [{"type": "text", "text": "another question"}]
        return json.dumps(data).encode()

    writer = CaptureWriter(tmp_path, "http://upstream", "two")
    for body, read in ((first, 0), (other(first), 0), (second, 14_000), (other(second), 14_000)):
        seq = writer.request("POST", "/v1/messages?beta=true", body)
        writer.reply(seq, 200, "text/event-stream", 100, Usage(3, read, 14_000 - read, 12))
    writer.close()
    _, store = load_capture_snapshots(tmp_path, "two")
    inspected = [row.reuse for row in store.summaries()]
    requests = decode_all(read_capture(tmp_path, "two")[1])
    charted = [row.reuse for row in request_summaries(requests, model_window("x"))]
    assert inspected == charted == [0.0, 0.0, 14_000 / 14_003, 14_000 / 14_003]


def test_a_claude_code_capture_draws_claude_codes_own_compaction_point(tmp_path: Path) -> None:
    """The capture's panel said "compaction the agent's own · soft trigger 140,000" (70% of the
    window) for Claude Code, which compacts at window - min(max output, 20,000) - 13,000 =
    167,000, as ``watch`` on the same session says. Its requests name it: the system prompt's
    first block is ``x-anthropic-billing-header: cc_version=…``."""
    from steiner_tui.app.screens.readonly_figures import capture_budget_view
    from steiner_tui.capture.report import decode_all
    from steiner_tui.capture.snapshots import to_snapshots
    from steiner_tui.capture.store import read_capture
    from steiner_tui.importers.window import agent_window

    writer = write_capture(tmp_path)
    writer.close()
    requests = decode_all(read_capture(tmp_path, "cap1")[1])
    view = capture_budget_view(requests, to_snapshots(requests), 0)
    claude_code = agent_window("claude-code", "claude-opus-5-5")
    assert view.window.soft_threshold == claude_code.trigger == 167_000


def test_a_captured_request_counts_its_tool_results_apart() -> None:
    """The tool results a captured request carries get their own row, out of the
    conversation's; the rows still share out all of the request's tokens."""
    from steiner_tui.capture.decode import decode_request
    from steiner_tui.capture.figures import request_sources

    _, second = sample_claude_requests()
    decoded = decode_request("/v1/messages", second)
    results = sum(r.bytes for m in decoded.messages for r in m.tool_results)
    assert results > 0
    rows = request_sources(decoded, 10_000)
    [tool_results] = [row for row in rows if row.source == "tool_results"]
    assert tool_results.bytes == results
    assert sum(row.tokens for row in rows) == 10_000


@pytest.fixture
def new_york(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The local zone is New York (UTC-5 in March), as for a user there."""
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("new_york")
async def test_request_times_are_in_the_local_zone_as_the_lists_say_them(tmp_path: Path) -> None:
    """Claude Code writes UTC (``…Z``) and a capture records UTC: the import's requests table
    and the capture inspector showed those hours as they were written, five hours ahead of the
    user's clock, of the captures list and of the app's own requests."""
    session = import_claude_session(write_sample_transcript(tmp_path / "claude"))
    app = ReadOnlyApp(imported=session.to_json())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        assert str(table.get_row_at(0)[6]) == "2026-03-02 04:00:00"  # 09:00:00Z
    at = datetime(2026, 3, 2, 14, 5, 9, tzinfo=UTC)
    writer = CaptureWriter(tmp_path, "http://upstream", "cap1", clock=lambda: at)
    first, _ = sample_claude_requests()
    seq = writer.request("POST", "/v1/messages?beta=true", first)
    writer.reply(seq, 200, "text/event-stream", 100, Usage(3, 0, 14_000, 12))
    writer.close()
    app = ReadOnlyApp(capture=(tmp_path, "cap1"), follow=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert str(app.screen.query_one(RequestTable).get_row_at(0)[2]) == "09:05:09"


async def test_an_imports_request_times_fit_80_columns(tmp_path: Path) -> None:
    """Each row said "2026-03-02 09:20:30", of which 80 columns showed "2026-03-02 09:": the
    time of day is shown, dated on the first row and where the day changes."""
    session = import_claude_session(write_sample_transcript(tmp_path)).to_json()
    requests = session["requests"]
    requests[-1]["time"] = "2026-03-03T08:00:00Z"  # resumed the next day
    app = ReadOnlyApp(imported=session)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one("#imported-requests", DataTable)
        times = [str(table.get_row_at(n)[6]) for n in range(table.row_count)]
        stamps = [t for t in times if t]  # the compaction's row has none
        assert stamps[0] == clock(requests[0]["time"], date=True)
        assert stamps[1] == clock(requests[1]["time"]) and len(stamps[1]) == 8
        assert stamps[-1] == clock(requests[-1]["time"], date=True)
        labels = [str(c.label) for c in table.columns.values()]
        columns = list(table.columns.values())[: labels.index("time")]
        used = sum(c.get_render_width(table) for c in columns)
        assert used + 1 + len(stamps[1]) <= table.content_region.width
