"""Delegation end to end with scripted models: isolation, bounded results, async children."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.delegation import (
    MAX_RESULT_BYTES,
    TRUNCATION_MARKER,
    DelegationSettings,
    SubAgentManager,
    SubAgentUpdated,
)
from steiner_tui.agent.delegation.child import build_child_runner
from steiner_tui.agent.interactive import DriverRefusal, InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import DEFAULT_DELEGATION, Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import Config, parse_config
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import CompactionApplied, ListSink, RequestSnapshot
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, ToolCall
from steiner_tui.engine.provider import ChatRequest, ModelInfo
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.tools.base import PermissionCallback, PermissionDecision, PermissionRequest
from steiner_tui.tools.registry import read_only_tools
from tests.agent.fakes import Reply, ScriptedProvider

PARENT_KEY = "key-1"
SUMMARY = "\n\n".join(f"## {i}. Section\n- item {i}" for i in range(1, 9))
SECRET = "secret-marker-7f3a"


async def allow_all(request: PermissionRequest) -> PermissionDecision:
    return PermissionDecision.ALLOW_ONCE


@dataclass
class Script:
    """Replies per prompt cache key (the parent's, or a child's ``key-1-<id>``)."""

    by_key: dict[str, list[Reply]] = field(default_factory=lambda: defaultdict(list))
    requests: dict[str, list[ChatRequest]] = field(default_factory=lambda: defaultdict(list))
    fallback: Callable[[ChatRequest], Reply] | None = None

    def __call__(self, request: ChatRequest) -> Reply:
        self.requests[request.prompt_cache_key].append(request)
        if request.compaction:
            return Reply([SUMMARY])
        queue = self.by_key.get(request.prompt_cache_key)
        if queue:
            return queue.pop(0)
        if self.fallback is not None:
            return self.fallback(request)
        raise AssertionError(f"no reply scripted for {request.prompt_cache_key}")


@dataclass
class Parent:
    driver: InteractiveDriver
    manager: SubAgentManager
    sink: ListSink
    script: Script
    session: Session

    def snapshots(self) -> list[RequestSnapshot]:
        return [e for e in self.sink.events if isinstance(e, RequestSnapshot) and not e.compaction]


def _parent(
    project: Path,
    clock: ManualClock,
    script: Script,
    *,
    window: int = 131072,
    settings: DelegationSettings | None = None,
    compaction: CompactionSettings | None = None,
    config: Config | None = None,
    permission: PermissionCallback = allow_all,
    config_dir: Path | None = None,
    resume: str | None = None,
) -> Parent:
    """A parent session ``parent`` (recorded under ``config_dir`` when given)."""
    provider = ScriptedProvider([], info=ModelInfo(window, 400), on_request=script)
    main = MainModel("fake", "fake-model", provider, provider.info, prompt_cache_key=PARENT_KEY)
    sink = ListSink()
    request = SessionRequest(
        project,
        config or Config(),
        model=main,
        session_id="parent",
        config_dir=config_dir,
        resume=resume,
        record=config_dir is not None,
        delegation=settings or DEFAULT_DELEGATION,
        compaction=compaction,
        sink=sink,
        permission=permission,
        clock=clock,
    )
    session = build_session(request)
    assert session.sub_agents is not None
    return Parent(session.driver, session.sub_agents, sink, script, session)


def _delegate(call_id: str, kind: str, task: str, wait: bool = True) -> ToolCall:
    return ToolCall(call_id, "delegate", {"type": kind, "task": task, "wait": wait})


@pytest.fixture
def big_project(project: Path) -> Path:
    lines = [f"line {i}: {SECRET} lorem ipsum dolor sit amet" for i in range(900)]
    (project / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return project


def _explore_child(script: Script, child_id: str, output: str) -> None:
    key = f"{PARENT_KEY}-{child_id}"
    read = ToolCall(f"{child_id}-r", "read", {"path": "big.txt"})
    write = ToolCall(f"{child_id}-w", "write", {"path": "leak.txt", "content": "x"})
    script.by_key[key] += [Reply(["Looking."], [read, write]), Reply([output])]


async def test_explore_child_is_read_only_isolated_and_bounded(
    big_project: Path, clock: ManualClock
) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(["Delegating."], [_delegate("d1", "explore", "Summarize big.txt")]),
        Reply(["All done."]),
    ]
    _explore_child(script, "explore-1", "FINDINGS " + "z" * 20_000)
    parent = _parent(big_project, clock, script)
    result = await parent.driver.submit("what is in big.txt?")
    assert result.status == "done", result.error

    child_requests = script.requests[f"{PARENT_KEY}-explore-1"]
    read_only = sorted(t.definition.name for t in read_only_tools())
    assert all(sorted(t.name for t in r.tools) == read_only for r in child_requests)
    assert not (big_project / "leak.txt").exists()
    transcript = parent.manager.transcript("explore-1")
    refused = [m for m in transcript if m.tool_call_id == "explore-1-w"]
    assert refused and "unknown tool 'write'" in refused[0].content
    assert any(SECRET in m.content for m in transcript)

    conversation = parent.driver.lineage.active.messages
    assert not any(SECRET in m.content for m in conversation)
    envelope = next(m.content for m in conversation if m.tool_call_id == "d1")
    head = '<steiner-sub-agent-result id="explore-1" type="explore" status="done">\n'
    tail = "\n</steiner-sub-agent-result>"
    assert envelope.startswith(head + "FINDINGS zzz") and envelope.endswith(tail)
    body = envelope[len(head) : -len(tail)]
    assert body.endswith(TRUNCATION_MARKER)
    assert len(body.encode()) <= MAX_RESULT_BYTES

    info = parent.manager.info("explore-1")
    assert (info.state, info.turns, info.type) == ("done", 2, "explore")
    states = [e.info.state for e in parent.sink.events if isinstance(e, SubAgentUpdated)]
    assert states[0] == "queued" and "running" in states and states[-1] == "done"


async def test_child_identity_cache_key_date_and_no_archive(
    big_project: Path, clock: ManualClock
) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "explore", "look")]),
        Reply(["ok"]),
    ]
    _explore_child(script, "explore-1", "short")
    parent = _parent(big_project, clock, script)
    await parent.driver.submit("go")
    child_requests = script.requests[f"{PARENT_KEY}-explore-1"]  # the child's own cache key
    assert child_requests
    assert {r.transport_session for r in child_requests} == {"parent-explore-1"}

    def date_line(request: ChatRequest) -> str:
        return next(m.content for m in request.messages if m.content.startswith("Current date:"))

    parent_date = date_line(script.requests[PARENT_KEY][0])
    assert {date_line(r) for r in child_requests} == {parent_date}

    archive = FileHistoryArchive(big_project / "history")
    archived = _parent(big_project, clock, script, compaction=CompactionSettings(archive=archive))
    runner = archived.driver.runner
    assert runner.compactor.settings.archive is archive
    child = build_child_runner(
        runner,
        kind="explore",
        child_id="explore-2",
        model=runner.model,
        mode="build",
        write_scope=(),
        sink=ListSink(),
        clock=clock,
        permission=allow_all,
    )
    assert child.compactor.settings.archive is None  # a child never appends to the history
    assert child.model.prompt_cache_key == f"{PARENT_KEY}-explore-2"


async def test_three_children_keep_parent_growth_bounded(
    big_project: Path, clock: ManualClock
) -> None:
    script = Script()
    calls = [_delegate(f"d{i}", "explore", f"part {i} of big.txt") for i in (1, 2, 3)]
    script.by_key[PARENT_KEY] += [Reply(["Splitting the work."], calls), Reply(["Merged."])]
    for i in (1, 2, 3):
        _explore_child(script, f"explore-{i}", f"REPORT {i} " + "y" * 30_000)
    parent = _parent(big_project, clock, script)
    await parent.driver.submit("analyse big.txt")

    before, after = parent.snapshots()[:2]
    growth = after.prompt_bytes - before.prompt_bytes
    conversation = parent.driver.lineage.active.messages
    envelopes = [m.content for m in conversation if m.role == "tool"]
    assert len(envelopes) == 3
    assistant = next(m for m in conversation if m.tool_calls)
    bound = (
        sum(len("tool") + len(e.encode()) for e in envelopes)
        + len("assistant")
        + len(assistant.content.encode())
    )
    assert growth <= bound
    # Each envelope is bounded, while each child read and wrote far more than that.
    assert all(len(e.encode()) <= MAX_RESULT_BYTES + 120 for e in envelopes)
    child_bytes = [
        sum(len(m.content.encode()) for m in parent.manager.transcript(f"explore-{i}"))
        for i in (1, 2, 3)
    ]
    assert all(size > 4 * MAX_RESULT_BYTES for size in child_bytes)
    assert growth < sum(child_bytes) / 4


async def test_background_child_pending_line_guard_and_delivery(
    project: Path, clock: ManualClock
) -> None:
    block = asyncio.Event()
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(["Started it."], [_delegate("d1", "explore", "slow task", wait=False)]),
        Reply(["Carrying on."]),
    ]
    slow = Reply(["child ", "result"], block=block)
    script.by_key[f"{PARENT_KEY}-explore-1"] += [slow]
    script.fallback = lambda request: Reply([f"answer {len(request.messages)}"])
    parent = _parent(project, clock, script, window=6000)
    driver = parent.driver
    await driver.submit("start")
    started = next(m for m in driver.lineage.active.messages if m.tool_call_id == "d1")
    assert "started in the background" in started.content
    await slow.reached.wait()
    assert parent.manager.pending() == (("explore-1", "explore", "running"),)
    assert driver.pending_sub_agents == 1

    with pytest.raises(DriverRefusal, match="1 sub-agent is still running"):
        driver.replace_lineage(ConversationLineage())
    with pytest.raises(DriverRefusal, match="sub-agent"):
        await driver.compact()

    for turn in range(20):
        await driver.submit(f"turn {turn}: " + "lorem ipsum dolor " * 60)
        if any(isinstance(e, CompactionApplied) for e in parent.sink.events):
            break
    assert any(isinstance(e, CompactionApplied) for e in parent.sink.events)
    pending = [m for m in driver.lineage.active.messages if m.source == SUB_AGENT_RESULT_SOURCE]
    assert [m.content for m in pending] == [
        "<steiner-sub-agents-pending>explore-1 (explore, running)</steiner-sub-agents-pending>"
    ]

    block.set()
    await parent.manager.wait_all()
    assert driver.pending_sub_agents == 0 and parent.manager.pending() == ()
    driver.replace_lineage(driver.lineage)  # allowed again
    await driver.submit("anything new?")
    messages = driver.lineage.active.messages
    delivered = [m for m in messages if m.content.startswith("<steiner-sub-agent-result")]
    assert len(delivered) == 1 and delivered[0].source == SUB_AGENT_RESULT_SOURCE
    assert delivered[0].content.endswith("\nchild result\n</steiner-sub-agent-result>")
    index = messages.index(delivered[0])
    assert messages[index + 1].content == "anything new?"
    last_request = script.requests[PARENT_KEY][-1]
    assert delivered[0] in last_request.messages


async def test_cancelling_the_parent_cancels_children(project: Path, clock: ManualClock) -> None:
    block = asyncio.Event()
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "explore", "background", wait=False)]),
        Reply([], [_delegate("d2", "explore", "waited")]),
    ]
    background = Reply(["bg"], block=block)
    waited = Reply(["partial wait"], block=block)
    script.by_key[f"{PARENT_KEY}-explore-1"] += [background]
    script.by_key[f"{PARENT_KEY}-explore-2"] += [waited]
    parent = _parent(project, clock, script)
    task = asyncio.create_task(parent.driver.submit("go"))
    await waited.reached.wait()
    await background.reached.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await parent.manager.wait_all()
    assert [i.state for i in parent.manager.infos()] == ["cancelled", "cancelled"]
    assert parent.manager.pending_count == 0
    assert parent.driver.pending_sub_agents == 0
    assert parent.manager.transcript("explore-2")[-1].incomplete


async def test_documentor_preamble_and_write_scope(project: Path, clock: ManualClock) -> None:
    (project / "docs").mkdir()
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "documentor", "Document the build")]),
        Reply(["ok"]),
    ]
    inside = ToolCall("w1", "write", {"path": "docs/build.md", "content": "# Build\n"})
    outside = ToolCall("w2", "write", {"path": "src/main.py", "content": "x"})
    script.by_key[f"{PARENT_KEY}-documentor-1"] += [
        Reply([], [inside, outside]),
        Reply(["Changed docs/build.md"]),
    ]
    settings = DelegationSettings(documentor_write_scope=("docs",))
    parent = _parent(project, clock, script, settings=settings)
    await parent.driver.submit("document it")
    first = script.requests[f"{PARENT_KEY}-documentor-1"][0]
    preamble = first.messages[0].content
    assert "You are a documentor sub-agent" in preamble
    assert "- `docs`" in preamble
    assert "bash" not in {t.name for t in first.tools}
    assert (project / "docs" / "build.md").read_text() == "# Build\n"
    assert not (project / "src" / "main.py").exists()
    refused = next(m for m in parent.manager.transcript("documentor-1") if m.tool_call_id == "w2")
    assert "outside the documentor write scope (docs)" in refused.content


async def test_a_childs_permission_request_says_whose_call_it_is(
    project: Path, clock: ManualClock
) -> None:
    """A code child's write reached the person as the session's own ("write wants to run"):
    the request now names the sub-agent, and carries the change as the parent's would."""
    asked: list[PermissionRequest] = []

    async def record(request: PermissionRequest) -> PermissionDecision:
        asked.append(request)
        return PermissionDecision.ALLOW_ONCE

    script = Script()
    script.by_key[PARENT_KEY] += [Reply([], [_delegate("d1", "code", "Write a.py")]), Reply(["ok"])]
    write = ToolCall("w1", "write", {"path": "a.py", "content": "x = 1\n"})
    script.by_key[f"{PARENT_KEY}-code-1"] += [Reply([], [write]), Reply(["Wrote a.py"])]
    parent = _parent(project, clock, script, permission=record)
    await parent.driver.submit("write it")
    [request] = asked
    assert (request.agent, request.tool, request.preview) == (
        "code-1",
        "write",
        "@@ -0,0 +1 @@\n+x = 1",
    )
    assert (project / "a.py").read_text() == "x = 1\n"


async def test_children_beyond_the_limit_wait_queued(project: Path, clock: ManualClock) -> None:
    block = asyncio.Event()
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(
            [],
            [
                _delegate("d1", "explore", "one", wait=False),
                _delegate("d2", "code", "two", wait=False),
            ],
        ),
        Reply(["ok"]),
    ]
    first = Reply(["1"], block=block)
    script.by_key[f"{PARENT_KEY}-explore-1"] += [first]
    script.by_key[f"{PARENT_KEY}-code-2"] += [Reply(["2"])]
    parent = _parent(project, clock, script, settings=DelegationSettings(max_concurrent=1))
    await parent.driver.submit("go")
    await first.reached.wait()
    assert parent.manager.pending() == (
        ("explore-1", "explore", "running"),
        ("code-2", "code", "queued"),
    )
    block.set()
    await parent.manager.wait_all()
    assert [i.state for i in parent.manager.infos()] == ["done", "done"]
    assert len(parent.manager.drain_results()) == 2


async def test_usage_gives_tokens_and_cache_rate(project: Path, clock: ManualClock) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "explore", "count")]),
        Reply(["ok"]),
    ]
    script.by_key[f"{PARENT_KEY}-explore-1"] += [Reply(["done"], prompt_tokens=400)]
    parent = _parent(project, clock, script)
    await parent.driver.submit("go")
    info = parent.manager.info("explore-1")
    assert info.prompt_tokens == 400
    assert info.completion_tokens == 10
    assert info.tokens == 410
    assert info.cache_rate == 0.0


def test_transcript_of_unknown_child_raises(project: Path, clock: ManualClock) -> None:
    parent = _parent(project, clock, Script())
    with pytest.raises(KeyError):
        parent.manager.transcript("explore-9")
    assert parent.manager.pending() == ()


async def test_a_follow_up_continues_the_child_with_its_own_last_main_request(
    project: Path, clock: ManualClock
) -> None:
    child_key = f"{PARENT_KEY}-explore-1"
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "explore", "first task")]),
        Reply(["ok"]),
        Reply(
            [],
            [
                ToolCall(
                    "d2",
                    "delegate",
                    {"type": "explore", "task": "follow up", "agent_id": "explore-1"},
                )
            ],
        ),
        Reply(["ok again"]),
    ]
    script.by_key[child_key] += [Reply(["first answer"]), Reply(["second answer"])]
    parent = _parent(project, clock, script)
    await parent.driver.submit("go")
    runner = parent.manager.lineage("explore-1")
    first_seen = parent.manager.info("explore-1")
    clock.advance(timedelta(minutes=3))
    await parent.driver.submit("and then?")

    continuation = script.requests[child_key][-1]
    contents = [m.content for m in continuation.messages]
    assert "first task" in contents and "first answer" in contents and contents[-1] == "follow up"
    assert runner is not None and parent.manager.info("explore-1").state == "done"
    assert first_seen.state == "done"
    last = parent.manager.last_main_request("explore-1")
    assert (last.prompt_cache_key, last.at) == (child_key, clock.now())
    envelope = next(
        m.content for m in parent.driver.lineage.active.messages if m.tool_call_id == "d2"
    )
    assert "second answer" in envelope
    # No second child was made.
    assert [i.id for i in parent.manager.infos()] == ["explore-1"]


async def test_a_follow_up_to_an_unknown_or_running_child_is_refused(
    project: Path, clock: ManualClock
) -> None:
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply(
            [],
            [ToolCall("d1", "delegate", {"type": "explore", "task": "x", "agent_id": "explore-9"})],
        ),
        Reply(["ok"]),
    ]
    parent = _parent(project, clock, script)
    await parent.driver.submit("go")
    result = next(m for m in parent.driver.lineage.active.messages if m.tool_call_id == "d1")
    assert "no sub-agent 'explore-9' to continue" in result.content


async def test_children_run_tools_without_the_configured_secrets(
    project: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_VAULT_PASS", "hunter2-in-the-vault")
    monkeypatch.setenv("PLAIN_SETTING", "visible-to-tools")
    config = parse_config([("config.toml", {"tools": {"secret_env": ["MY_VAULT_*"]}})])
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "code", "print the env")]),
        Reply(["ok"]),
    ]
    env_call = ToolCall("b1", "bash", {"command": "env"})
    script.by_key[f"{PARENT_KEY}-code-1"] += [Reply([], [env_call]), Reply(["printed"])]
    parent = _parent(project, clock, script, config=config)
    await parent.driver.submit("go")
    result = next(m for m in parent.manager.transcript("code-1") if m.tool_call_id == "b1")
    assert "visible-to-tools" in result.content
    assert "hunter2-in-the-vault" not in result.content


async def test_a_resumed_session_keeps_its_children(
    project: Path, clock: ManualClock, tmp_path: Path
) -> None:
    """After a resume the panel said "No sub-agents in this session yet" over a conversation
    holding code-1's result, its own conversation was gone, and the next child was code-1
    again. An ended child is saved with the session: it is listed, its conversation opens, a
    follow-up goes on from it, and the next child is numbered after it."""
    script = Script()
    script.by_key[PARENT_KEY] += [
        Reply([], [_delegate("d1", "explore", "first task")]),
        Reply(["ok"]),
    ]
    script.by_key[f"{PARENT_KEY}-explore-1"] += [Reply(["first answer"])]
    config_dir = tmp_path / "config"

    first = _parent(project, clock, script, config_dir=config_dir)
    await first.driver.submit("go")
    first.session.close()

    resumed = _parent(project, clock, script, config_dir=config_dir, resume="parent")
    manager = resumed.manager
    assert [(i.id, i.state, i.task) for i in manager.infos()] == [
        ("explore-1", "done", "first task")
    ]
    assert [m.content for m in manager.transcript("explore-1")] == ["first task", "first answer"]
    script.by_key[PARENT_KEY] += [
        Reply(
            [],
            [
                ToolCall(
                    "d2",
                    "delegate",
                    {"type": "explore", "task": "follow up", "agent_id": "explore-1"},
                )
            ],
        ),
        Reply([], [_delegate("d3", "code", "another")]),
        Reply(["done"]),
    ]
    script.by_key[f"{PARENT_KEY}-explore-1"] += [Reply(["second answer"])]
    script.by_key[f"{PARENT_KEY}-code-2"] += [Reply(["built"])]
    await resumed.driver.submit("and then?")
    continuation = script.requests[f"{PARENT_KEY}-explore-1"][-1]
    contents = [m.content for m in continuation.messages]
    assert "first answer" in contents and contents[-1] == "follow up"
    assert [i.id for i in manager.infos()] == ["explore-1", "code-2"]
