"""The workbench opens captures and imports read-only; the capture commands list and show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steiner_tui.app.readonly import ReadOnlyApp
from steiner_tui.app.screens.capture_view import CaptureScreen
from steiner_tui.app.screens.imported import ImportedScreen
from steiner_tui.app.screens.lineage import LineageScreen
from steiner_tui.app.widgets.inspector_requests import RequestTable
from steiner_tui.app.widgets.token_chart import TokenChart, chart_lines
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
        assert screen.snapshot_at(1).estimate_strategy == "no usage"  # its reply has not ended
    writer.close()


async def test_an_import_shows_its_chart_and_lineage(tmp_path: Path) -> None:
    session = import_claude_session(write_sample_transcript(tmp_path))
    app = ReadOnlyApp(imported=session.to_json())
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)
        chart = app.screen.query_one(TokenChart)
        assert chart.values == tuple(r.context_tokens for r in session.requests)
        assert [after for after, _ in chart.marks] == [41]
        assert "auto" in chart.marks[0][1]
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LineageScreen)
        generations = app.screen.lineage.generations
        assert len(generations) == 2
        assert generations[1].summary.startswith("This session is being continued")
        assert generations[1].outcome is not None
        assert generations[1].outcome.before_tokens == session.generations[0].pre_tokens


def test_chart_lines_mark_the_compaction_column() -> None:
    lines, placed = chart_lines([10, 20, 30, 5, 10], [(3, "c")], width=20, height=4)
    assert len(placed) == 1
    assert all(line[placed[0]] == "┃" for line in lines)
    assert lines[-1][: placed[0]].strip() != ""


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
        assert isinstance(app.screen, CaptureScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ImportedScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
