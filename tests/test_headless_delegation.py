"""Delegation in ``exec``: the delegate tool, waiting for background results, cancel on exit.

The scripted parent (prompt cache key ``key-1``) delegates an ``explore`` child in the
background and ends its reply; ``run_exec`` waits for the child and runs the parent again on the
result envelope. The command's ``--no-delegate`` flag is checked through the offline model.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.delegation import DelegationSettings, SubAgentInfo, SubAgentUpdated
from steiner_tui.agent.headless import run_exec
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.cli import build_parser
from steiner_tui.commands.exec import SubAgentProgress
from steiner_tui.engine.events import ListSink, MessageAppended
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, ToolCall
from steiner_tui.engine.provider import ChatRequest, ModelInfo, ProviderError
from tests.agent.fakes import Reply, ScriptedProvider

PARENT_KEY = "key-1"
CHILD_KEY = "key-1-explore-1"
REPORT = "FINDINGS: a demo project."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "README.md").write_text("# Demo\n\nA demo project.\n", encoding="utf-8")
    return root


class Script:
    """Replies per prompt cache key; records every request per key."""

    def __init__(self) -> None:
        self.by_key: dict[str, list[Reply]] = defaultdict(list)
        self.requests: dict[str, list[ChatRequest]] = defaultdict(list)

    def __call__(self, request: ChatRequest) -> Reply:
        self.requests[request.prompt_cache_key].append(request)
        return self.by_key[request.prompt_cache_key].pop(0)


def _background_delegate() -> ToolCall:
    arguments = {"type": "explore", "task": "Summarize README.md", "wait": False}
    return ToolCall("d1", "delegate", arguments)


async def _exec(
    project: Path, script: Script, delegation: DelegationSettings | None
) -> tuple[str, str, ListSink]:
    provider = ScriptedProvider([], info=ModelInfo(32768, 4096), on_request=script)
    main = MainModel("fake", "fake-model", provider, provider.info, prompt_cache_key=PARENT_KEY)
    sink = ListSink()
    session = build_session(
        SessionRequest(
            project,
            model=main,
            session_id="exec-test",
            record=False,
            delegation=delegation,
            sink=sink,
            clock=ManualClock(datetime(2026, 3, 1, 9, 0, tzinfo=UTC)),
        )
    )
    try:
        result = await run_exec(session, "what is in the README?")
    finally:
        session.close()
    return result.status, result.reply, sink


def _states(sink: ListSink) -> list[str]:
    return [e.info.state for e in sink.events if isinstance(e, SubAgentUpdated)]


async def test_exec_waits_for_a_background_child_and_answers_on_its_result(
    project: Path,
) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(["Delegating."], [_background_delegate()]),
        Reply(["Waiting for the explorer."]),
        Reply(["Final: the README describes a demo project."]),
    ]
    script.by_key[CHILD_KEY] += [
        Reply(["Reading."], [ToolCall("c1", "read", {"path": "README.md"})]),
        Reply([REPORT]),
    ]
    status, reply, sink = await _exec(project, script, DelegationSettings())

    assert (status, reply) == ("done", "Final: the README describes a demo project.")
    assert _states(sink)[0] == "queued" and _states(sink)[-1] == "done"
    first, *_, last = script.requests[PARENT_KEY]
    assert "delegate" in [tool.name for tool in first.tools]
    assert "## Delegation" in first.messages[0].content
    assert "Sub-agents run asynchronously" in first.messages[0].content
    # The parent saw the envelope, never the child's reading.
    assert any(m.source == SUB_AGENT_RESULT_SOURCE and REPORT in m.content for m in last.messages)
    assert not any("A demo project." in m.content for m in last.messages if m.role != "system")
    appended = [e.message for e in sink.events if isinstance(e, MessageAppended)]
    assert not any(m.content == "Reading." for m in appended)


async def test_exec_cancels_children_still_running_when_it_ends(project: Path) -> None:
    never = asyncio.Event()
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(["Delegating."], [_background_delegate()]),
        Reply(error=ProviderError("bad_request", "the provider refused")),
    ]
    script.by_key[CHILD_KEY] += [Reply(["Reading."], block=never)]
    status, _, sink = await _exec(project, script, DelegationSettings())

    assert status == "error"
    assert _states(sink)[-1] == "cancelled"


async def test_exec_without_delegation_offers_no_delegate_tool(project: Path) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [Reply(["Plain answer."])]
    status, reply, sink = await _exec(project, script, None)

    assert (status, reply) == ("done", "Plain answer.")
    [request] = script.requests[PARENT_KEY]
    assert "delegate" not in [tool.name for tool in request.tools]
    assert "## Delegation" not in request.messages[0].content
    assert _states(sink) == []


def test_sub_agent_progress_prints_state_changes_once() -> None:
    stream = io.StringIO()
    progress = SubAgentProgress(stream)
    info = SubAgentInfo("explore-1", "explore", "t", "running")
    progress.emit(SubAgentUpdated(info))
    progress.emit(SubAgentUpdated(SubAgentInfo("explore-1", "explore", "t", "running", turns=1)))
    progress.emit(SubAgentUpdated(SubAgentInfo("explore-1", "explore", "t", "failed", reason="x")))
    assert stream.getvalue() == "sub-agent explore-1: running\nsub-agent explore-1: failed (x)\n"


def test_no_delegate_flag_is_parsed() -> None:
    parser = build_parser()
    assert parser.parse_args(["exec", "hi", "--no-delegate"]).no_delegate is True
    assert parser.parse_args(["exec", "hi"]).no_delegate is False


def _request_tools(tmp_path: Path, project: Path, *flags: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("OPENAI_BASE_URL", None)
    log = tmp_path / f"events{len(flags)}.jsonl"
    command = [sys.executable, "-m", "steiner_tui", "--project", str(project), "exec"]
    command += ["what is in this project?", "--events", str(log), *flags]
    out = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in log.read_text().splitlines()]
    request = next(r for r in records if r["type"] == "request")
    return [tool["name"] for tool in request["tools"]]


def test_exec_command_offers_delegate_unless_told_not_to(tmp_path: Path, project: Path) -> None:
    assert "delegate" in _request_tools(tmp_path, project)
    assert "delegate" not in _request_tools(tmp_path, project, "--no-delegate")
