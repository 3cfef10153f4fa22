"""Against a real llama.cpp server (SmolLM2-135M from the wheels): exec, the app, usage, errors.

Every request asks for a small reply (``max_tokens``), except the one Esc cancels, which asks
for 400 tokens with ``ignore_eos`` so that only the cancel can end it early. The server's own
chat template drops tool definitions (``/props`` says so): the runner learns that and its window
(8,192) before the first request. Synchronisation is by events and by the server itself: with
one slot, a request sent after a cancelled one waits until the server has stopped it.
"""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

from steiner_tui.agent.from_config import (
    main_model_from_config,
)
from steiner_tui.agent.headless import run_exec
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.app.app import make_app
from steiner_tui.app.messages import EngineUpdate
from steiner_tui.app.transcript import ErrorEntry
from steiner_tui.commands.headless_io import HeadlessPermission, ReplyPrinter
from steiner_tui.config import parse_config
from steiner_tui.engine.events import FanoutSink, ListSink, TextDelta, UsageReported, WarningEvent
from steiner_tui.providers.server_limits import served_models
from tests.app.conftest import FIXTURE_PROJECT, SIZE, request_for
from tests.app.helpers import finish, send, static_text
from tests.llamacpp.conftest import REPO, LlamaServer

SHORT = 24
"""The max output of every request but the cancelled one."""
LONG = 400


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "sample_project"
    shutil.copytree(FIXTURE_PROJECT, root)
    return root


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    folder = home / "steiner"
    folder.mkdir(parents=True)
    return folder


def main_model(server: LlamaServer, project: Path, **model: object) -> MainModel:
    config = parse_config([("test", server.config_tables(**model))])
    return main_model_from_config(config, project, session_id="real", ref=server.ref, env={})


class Writes(io.StringIO):
    """A text stream that keeps each write apart."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return super().write(text)


def test_the_server_serves_smollm2_with_an_8k_window(llama_server: LlamaServer) -> None:
    props = llama_server.get("/props")
    assert props["default_generation_settings"]["n_ctx"] == 8192
    assert props["chat_template_caps"]["supports_tools"] is False
    assert served_models(llama_server.base_url) == (llama_server.model,)  # /model offers it


async def test_exec_streams_each_piece_to_stdout_and_records_usage(
    llama_server: LlamaServer, project: Path
) -> None:
    config = parse_config([("test", llama_server.config_tables(max_tokens=SHORT))])
    out, events = Writes(), ListSink()
    printer = ReplyPrinter(out=out, err=io.StringIO())
    request = SessionRequest(
        project,
        config,
        env={},
        session_id="exec-real",
        record=False,
        delegation=None,
        sink=FanoutSink((printer, events)),
        permission=HeadlessPermission(),
    )
    session = build_session(request)
    try:
        result = await run_exec(session, "Say hello to the user.")
    finally:
        session.close()
    assert result.status == "done", result.error
    # Written as streamed; its line ended when the usage came (before the cost line).
    assert result.reply and "".join(out.parts) in (result.reply, result.reply + "\n")
    assert len(out.parts) > 1  # written piece by piece, as the server streamed them
    (usage,) = [e for e in events.events if isinstance(e, UsageReported)]
    assert usage.prompt_tokens > 0 and 0 < usage.completion_tokens <= SHORT
    assert usage.estimated_prompt_tokens > 0
    warnings = [e.code for e in events.events if isinstance(e, WarningEvent)]
    assert "tools_ignored" in warnings


def test_exec_command_against_the_real_server(llama_server: LlamaServer, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / "AGENTS.md").write_text("Answer in one short sentence.\n", encoding="utf-8")
    xdg = tmp_path / "xdg"
    (xdg / "steiner").mkdir(parents=True)
    (xdg / "steiner" / "config.toml").write_text(
        llama_server.config_toml(max_tokens=SHORT), encoding="utf-8"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(xdg), "XDG_CACHE_HOME": str(tmp_path / "c")}
    out = subprocess.run(
        [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec", "Say hi."],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() and out.stdout.endswith("\n")
    assert f"… {llama_server.ref}: request 1, " in out.stderr
    assert "ignores tool definitions" in out.stderr
    assert "error" not in out.stderr
    assert sorted(p.name for p in project.iterdir()) == ["AGENTS.md"]  # nothing written


async def test_the_app_streams_and_esc_cancels_on_the_server(
    llama_server: LlamaServer, project: Path, config_dir: Path
) -> None:
    main = main_model(llama_server, project, max_tokens=LONG, extra_params={"ignore_eos": True})
    first_delta = asyncio.Event()

    def hook(message: object) -> None:
        if isinstance(message, EngineUpdate) and isinstance(message.event, TextDelta):
            first_delta.set()

    app = make_app(request_for(project, config_dir, main))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await pilot.pause()
        predicted_before = llama_server.metric("tokens_predicted_total")
        await send(pilot, "Tell me a long story about a dragon and a lighthouse.")
        await asyncio.wait_for(first_delta.wait(), timeout=240)
        await pilot.press("escape")
        await finish(pilot)
        screen = app.workbench
        stored = app.session.driver.runner.conversation[-1]
        assert stored.role == "assistant" and stored.incomplete and stored.content
        replies = list(screen.conversation.query(".reply"))
        assert replies and replies[-1].has_class("-interrupted")
        assert not screen.status.busy
    # One slot: this request waits until the server has stopped the cancelled one. Had the
    # server not seen the cancel (its log says "cancel task"), it would have predicted all LONG
    # tokens first (ignore_eos: the model cannot end the reply itself).
    llama_server.complete("Hi", max_tokens=1)
    predicted = llama_server.metric("tokens_predicted_total") - predicted_before
    assert 2 <= predicted < LONG  # what streamed before Esc, plus the one token here


async def test_usage_and_drift_show_in_the_panel(
    llama_server: LlamaServer, project: Path, config_dir: Path
) -> None:
    main = main_model(llama_server, project, max_tokens=SHORT)
    app = make_app(request_for(project, config_dir, main))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "What is this project?")
        await finish(pilot)
        await send(pilot, "Say it in three words.")
        await finish(pilot)
        screen = app.workbench
        view = screen.hold.controller.budget_view()
        assert view.drift is not None and view.drift.reported > 0
        assert view.window.context_size == 8192 and view.window_origin == "llama.cpp server"
        assert view.tools_ignored and view.row("tool definitions") is None
        assert view.calibration_samples == 2
        notes = static_text(screen.budget.query_one("#budget-notes", Static))
        assert f"vs reported {view.drift.reported:,} (request #2)" in notes
        assert "window 8,192 from llama.cpp server ·" in notes  # the window doctor


async def test_the_servers_context_error_is_clear_and_the_session_goes_on(
    llama_server: LlamaServer, project: Path, config_dir: Path
) -> None:
    # The configured window (wrong on purpose) wins over the server's 8,192, so the runner
    # sends a prompt the server must refuse.
    main = main_model(llama_server, project, context_window=65536, max_tokens=SHORT)
    messages: list[object] = []
    app = make_app(request_for(project, config_dir, main))
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.pause()
        await send(pilot, "Count these words: " + "lighthouse " * 9000)
        await finish(pilot)
        # The error stays in the conversation as an entry (not a toast), with its remedies.
        entries = app.workbench.conversation.entries
        errors = [e for e in entries if isinstance(e, ErrorEntry) and "HTTP 400" in e.text]
        # (failed once in CI under load, not since: the conversation says what came instead)
        assert len(errors) == 1, [(type(e).__name__, getattr(e, "text", "")[:200]) for e in entries]
        (entry,) = errors
        error = entry.text
        assert {r.action for r in entry.remedies} >= {"compact", "switch_model"}
        assert error.startswith(f"{llama_server.ref}: the request is larger than the model's")
        assert "exceeds the available context size (8192 tokens)" in error
        assert error.count(llama_server.ref) == 1
        runner = app.session.driver.runner
        assert runner.conversation[-1].role == "user"  # the prompt is kept
        assert not app.workbench.status.busy
        await send(pilot, "/clear")
        await send(pilot, "Say hi.")
        await finish(pilot)
        last = runner.conversation[-1]
        assert last.role == "assistant" and last.content and not last.incomplete
