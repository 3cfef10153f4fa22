"""Claude Code and Codex, the real clients, through the capture proxy to a loopback upstream.

Each client runs once per test with a fresh ``HOME`` in a temporary folder, against the proxy,
whose upstream is the fake in ``fake_upstream.py``; the fake answers in the real streaming
formats and scripts one tool call, so each client makes two requests. The assertions are on
structure (which blocks, where the instruction file is, that every byte is accounted for),
not on byte totals, which vary with paths and versions. Then the transcripts the clients wrote
are imported and compared with the usage the fake sent.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steiner_tui.app.screens.capture_workbench import load_workbench
from steiner_tui.app.transcript import ToolEntry, UserEntry
from steiner_tui.app.widgets.budget_text import money_lines
from steiner_tui.capture.report import capture_report
from steiner_tui.capture.store import read_capture
from steiner_tui.engine.prices import price_for
from steiner_tui.importers.discover import import_paths
from tests.capture.fake_upstream import FakeUpstream
from tests.capture.helpers import ProxyThread
from tests.capture.real_clients import CLAUDE, CODEX, install
from tests.capture.test_proxy_loopback import check_accounting

pytestmark = pytest.mark.slow

KEY = "dummy-key-f00dfeed-never-stored"


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    return install(CLAUDE)


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    return install(CODEX)


def run_client(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": "/usr/bin:/bin:/usr/local/bin", "TERM": "dumb", "LANG": "C.UTF-8"}
    # stdin from /dev/null: codex exec waits for the end of an open stdin, claude -p 3 s.
    done = subprocess.run(
        argv,
        cwd=cwd,
        env={**base, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{argv[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return done


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    home, project, sessions = tmp_path / "home", tmp_path / "project", tmp_path / "sessions"
    home.mkdir()
    project.mkdir()
    yield home, project, sessions


def secret_absent(sessions: Path) -> None:
    files = [p for p in sessions.rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path


def model_requests(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in report["requests"] if r["tools"]]


def test_claude_code(claude_binary: Path, setup: tuple[Path, Path, Path]) -> None:
    home, project, sessions = setup
    (project / "CLAUDE.md").write_text("MARKER-CLAUDE-MD: answer in one line.\n")
    script = [
        {
            "text": "Let me read the notes.",
            "tool_use": {"name": "Read", "input": {"file_path": "{cwd}/CLAUDE.md"}},
        },
        {"text": "Hi! The notes say to answer in one line."},
    ]
    upstream = FakeUpstream(script).start()
    proxy = ProxyThread(sessions, upstream.url).start()
    try:
        run_client(
            [str(claude_binary), "-p", "read the notes and say hi", "--output-format", "json"],
            project,
            {
                "HOME": str(home),
                "ANTHROPIC_BASE_URL": proxy.url,
                "ANTHROPIC_API_KEY": KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "CLAUDE_CODE_MAX_RETRIES": "0",
            },
        )
    finally:
        proxy.stop()
        upstream.stop()
    _, recorded = read_capture(sessions, proxy.writer.capture_id)
    report = capture_report(recorded)
    sent = [r for r in upstream.received if r.method == "POST"]
    assert [r.body for r in recorded] == [r.body for r in sent]
    assert all(r.headers.get("x-api-key") == KEY for r in sent)
    requests = model_requests(report)
    assert len(requests) == 2
    for request, received in zip(report["requests"], sent, strict=True):
        check_accounting(request)
        assert request["bytes"]["total"] == len(received.body)
        assert received.usage is not None
        usage = received.usage
        assert request["usage"] == {
            "input_tokens": usage["input_tokens"],
            "cache_read_tokens": usage["cache_read_input_tokens"],
            "cache_creation_tokens": usage["cache_creation_input_tokens"],
            "output_tokens": usage["output_tokens"],
        }
    first, second = requests
    system = [b for b in first["blocks"] if b["source"] == "system"]
    assert len(system) == 3
    assert [b["cache_control"] for b in system] == [False, True, True]
    [instructions] = [b for b in first["blocks"] if b["source"] == "instructions"]
    assert instructions["path"] == str(project / "CLAUDE.md")
    assert instructions["where"] == "messages[0].content[0]"
    assert any(b["source"] == "system_message" and b["cache_control"] for b in first["blocks"])
    assert len(first["tools"]) >= 10
    assert {"Read", "Bash", "Edit", "Write"} <= {t["name"] for t in first["tools"]}
    assert first["tools_bytes"] == first["bytes"]["sections"]["tools"]["bytes"] > 20_000
    # The next request re-sends the system message without its breakpoint: still the prefix.
    assert second["prefix"]["first_diverging"] is None
    assert second["prefix"]["matching_messages"] == len(first["messages"])
    assert not second["prefix"]["system_changed"] and not second["prefix"]["tools_changed"]
    assert [(r["tool"], r["target"]) for r in second["tool_results"]] == [
        ("Read", str(project / "CLAUDE.md"))
    ]
    secret_absent(sessions)
    check_workbench(sessions, proxy.writer.capture_id, project)

    result = import_paths([home / ".claude" / "projects"])
    [session] = result.sessions
    assert [r.context_tokens for r in session.requests] == [
        r["usage"]["input_tokens"]
        + r["usage"]["cache_read_tokens"]
        + r["usage"]["cache_creation_tokens"]
        for r in requests
    ]
    assert [r.output_tokens for r in session.requests] == [
        r["usage"]["output_tokens"] for r in requests
    ]
    assert session.version == "2.1.328"
    assert ("Read", str(project / "CLAUDE.md")) in {(c.tool, c.target) for c in session.ranking}


def check_workbench(sessions: Path, capture_id: str, project: Path) -> None:
    """The workbench's figures of the real capture: the latest request's sources add up to
    what the API reported, CLAUDE.md has its row and its badge, the Read result its block."""
    _, data = load_workbench(sessions, capture_id)
    assert data.view is not None and data.position == data.requests - 1
    view = data.view
    assert view.window.context_size == 200_000 and view.window_origin == "claude-* models"
    assert sum(row.tokens for row in view.rows) == view.estimate_tokens > 0
    labels = [row.label for row in view.rows]
    assert {"system", "instructions · CLAUDE.md", "system message", "tool definitions"} <= set(
        labels
    )
    assert [item.label for item in view.top] == [str(project / "CLAUDE.md")]
    assert len(view.history) == data.requests and view.prefix is not None
    assert view.prefix.first_broken is None
    # Each request's cost, from its usage and the price table (a model the table does not
    # price says so, never $0), and the cache cause its bytes and usage show.
    for row in view.history:
        assert row.reported
        assert (row.cost_usd is None) == (price_for(row.model) is None)
        assert row.cost_usd is None or row.cost_usd > 0
    assert [row.cache.cause for row in view.history if row.cache] == ["first", "kept"]
    assert view.money is not None and view.money.usage is not None
    notes = "\n".join(money_lines(view.money))
    assert ("price unknown" in notes) == (view.money.usage.cost_usd is None)
    assert "cache #2: appends after the conversation: cache kept" in notes
    user = next(e for e in data.entries if isinstance(e, UserEntry))
    assert "CLAUDE.md" in user.badges and "MARKER-CLAUDE-MD" not in user.text
    [tool] = [e for e in data.entries if isinstance(e, ToolEntry)]
    assert tool.name == "Read" and "MARKER-CLAUDE-MD" in tool.output


CODEX_CONFIG = """\
model = "my-local-model"
model_provider = "capture"

[analytics]
enabled = false

[model_providers.capture]
name = "steiner-tui capture"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "CAPTURE_API_KEY"
"""


def test_codex(codex_binary: Path, setup: tuple[Path, Path, Path]) -> None:
    home, project, sessions = setup
    (project / "AGENTS.md").write_text("MARKER-AGENTS-MD: answer in one short line.\n")
    script = [
        {
            "text": "Reading the notes.",
            "function_call": {
                "name": "exec_command",
                "arguments": {"cmd": "cat AGENTS.md", "workdir": "{cwd}", "yield_time_ms": 1000},
            },
        },
        {"text": "Hi! The notes say to answer in one line."},
    ]
    upstream = FakeUpstream(script).start()
    proxy = ProxyThread(sessions, upstream.url).start()
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(CODEX_CONFIG.format(url=proxy.url))
    try:
        run_client(
            [
                str(codex_binary),
                "exec",
                "--skip-git-repo-check",
                "--disable",
                "plugins",
                "--disable",
                "remote_plugin",
                "--disable",
                "apps",
                "read the notes and say hi",
            ],
            project,
            {"HOME": str(home), "CAPTURE_API_KEY": KEY},
        )
    finally:
        proxy.stop()
        upstream.stop()
    _, recorded = read_capture(sessions, proxy.writer.capture_id)
    report = capture_report(recorded)
    sent = [r for r in upstream.received if r.method == "POST"]
    assert [r.body for r in recorded] == [r.body for r in sent]
    assert all(
        r.headers.get("Authorization", r.headers.get("authorization")) == f"Bearer {KEY}"
        for r in sent
    )
    requests = model_requests(report)
    assert len(requests) == 2
    for request, received in zip(report["requests"], sent, strict=True):
        check_accounting(request)
        assert request["bytes"]["total"] == len(received.body)
        assert received.usage is not None
        cached = received.usage["input_tokens_details"]["cached_tokens"]
        assert request["usage"]["cache_read_tokens"] == cached
        assert request["usage"]["input_tokens"] + cached == received.usage["input_tokens"]
    first, second = requests
    developer = [b for b in first["blocks"] if b["source"] == "developer"]
    assert len(developer) == 2
    assert developer[0]["where"] == "input[0]" and developer[0]["bytes"] > 10_000
    [instructions] = [b for b in first["blocks"] if b["source"] == "instructions"]
    assert instructions["path"] == f"{project}/AGENTS.md"
    assert instructions["where"].endswith(".content[0]")
    assert len(first["tools"]) == 9
    assert "exec_command" in {t["name"] for t in first["tools"]}
    assert second["prefix"]["first_diverging"] is None
    assert second["prefix"]["matching_messages"] == len(first["messages"])
    assert [(r["tool"], r["target"]) for r in second["tool_results"]] == [
        ("exec_command", "cat AGENTS.md")
    ]
    secret_absent(sessions)
    _, data = load_workbench(sessions, proxy.writer.capture_id)
    assert data.view is not None
    # A model the table does not know: the view says so instead of guessing a window.
    assert data.view.heading.endswith("window unknown")
    assert {"developer", "instructions · AGENTS.md", "environment", "tool definitions"} <= {
        row.label for row in data.view.rows
    }
    assert sum(row.tokens for row in data.view.rows) == data.view.estimate_tokens > 0
    [tool] = [e for e in data.entries if isinstance(e, ToolEntry)]
    assert tool.summary == "exec_command cat AGENTS.md" and "MARKER-AGENTS-MD" in tool.output

    result = import_paths([home / ".codex" / "sessions"])
    [session] = result.sessions
    assert session.source == "codex" and session.version == "0.169.0"
    assert [r.context_tokens for r in session.requests] == [
        r.usage["input_tokens"] for r in sent if r.usage is not None
    ]
    assert [r.output_tokens for r in session.requests] == [
        r.usage["output_tokens"] for r in sent if r.usage is not None
    ]
    assert {r.model for r in session.requests} == {"my-local-model"}
    assert json.dumps(session.to_json())  # plain data all the way down
    assert os.environ.get("CAPTURE_API_KEY") is None


def test_codex_tries_a_websocket_once_then_posts(
    codex_binary: Path, setup: tuple[Path, Path, Path]
) -> None:
    """With ``openai_base_url`` Codex asks for a WebSocket first: the proxy's 426 makes it
    fall back to ``POST /v1/responses`` after one try (a 404 costs it five reconnects)."""
    home, project, sessions = setup
    upstream = FakeUpstream().start()
    proxy = ProxyThread(sessions, upstream.url).start()
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'model = "gpt-5.5"\nopenai_base_url = "{proxy.url}/v1"\n\n[analytics]\nenabled = false\n'
    )
    try:
        done = run_client(
            [str(codex_binary), "exec", "--skip-git-repo-check", "--disable", "plugins",
             "--disable", "remote_plugin", "--disable", "apps", "say hi"],
            project,
            {"HOME": str(home), "OPENAI_API_KEY": KEY},
        )  # fmt: skip
    finally:
        proxy.stop()
        upstream.stop()
    assert done.stderr.count("failed to connect to Responses WebSocket") == 1, done.stderr
    assert "Reconnecting" not in done.stderr
    assert [(r.method, r.path) for r in upstream.received] == [("POST", "/v1/responses")]
    _, recorded = read_capture(sessions, proxy.writer.capture_id)
    assert [(r.method, r.path) for r in recorded] == [("POST", "/v1/responses")]
    secret_absent(sessions)


def test_codex_sub_agent_rollout_is_linked_to_its_spawn_call(
    codex_binary: Path, setup: tuple[Path, Path, Path]
) -> None:
    """Codex 0.169.0 writes a sub-agent's thread as a rollout of its own; the import puts it
    under its parent, tied to the ``spawn_agent`` call that started it."""
    home, project, sessions = setup
    task = "Say hi from the sub-agent."
    spawn = {"name": "spawn_agent", "namespace": "multi_agent_v1", "arguments": {"message": task}}
    wait = {
        "name": "wait_agent",
        "namespace": "multi_agent_v1",
        "arguments": {"targets": ["{agent_id}"], "timeout_ms": 30000},
    }
    waited = '\\"timed_out\\":'  # in the wait call's output, as the body holds it
    script = [  # the sub-agent's request comes between the parent's, so steps say whose they are
        {"unless": "function_call_output", "text": "Starting a helper.", "function_call": spawn},
        {"when": task, "unless": "function_call_output", "text": "Hi from the sub-agent."},
        {
            "when": "function_call_output",
            "unless": waited,
            "text": "Waiting.",
            "function_call": wait,
        },
        {"when": waited, "text": "The helper said hi."},
    ]
    upstream = FakeUpstream(script).start()
    proxy = ProxyThread(sessions, upstream.url).start()
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(CODEX_CONFIG.format(url=proxy.url))
    try:
        run_client(
            [str(codex_binary), "exec", "--skip-git-repo-check", "--disable", "plugins",
             "--disable", "remote_plugin", "--disable", "apps", "start a helper that says hi"],
            project,
            {"HOME": str(home), "CAPTURE_API_KEY": KEY},
        )  # fmt: skip
    finally:
        proxy.stop()
        upstream.stop()
    sent = [r for r in upstream.received if r.method == "POST"]
    assert len(sent) == 4  # parent: spawn, wait, answer; the sub-agent: one
    rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 2
    result = import_paths([home / ".codex" / "sessions"])
    [parent] = result.sessions
    [child] = parent.subagents
    assert len(parent.requests) == 3 and len(child.requests) == 1
    assert child.link is not None
    assert child.link.tool == "spawn_agent" and child.link.description == task
    assert child.link.tool_use_id.startswith("call_fake_")
    by_output = [r for r in sent if child.link.tool_use_id in r.body.decode()]
    assert by_output  # the call id is the one the parent's next request answers
    assert child.parent_id == parent.id
    # Codex names the thread in a header: the sub-agent's request is its own thread's.
    [its] = [r for r in sent if r.headers.get("thread-id") == child.id]
    assert its.usage is not None
    assert [r.context_tokens for r in child.requests] == [its.usage["input_tokens"]]
    assert json.dumps(parent.to_json()["subagents"][0]["link"])
