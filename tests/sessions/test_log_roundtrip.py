"""The session log round-trips: messages byte-exact, lineage generations, requests, state."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import MessageAppended, RequestSnapshot, WarningEvent
from steiner_tui.engine.messages import Image, Message, ToolCall, message_hash
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.meta import read_meta
from steiner_tui.sessions.writer import SessionLog
from tests.agent.fakes import Reply, ScriptedProvider
from tests.sessions.conftest import OpenSession


def _log_records(directory: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (directory / "session.jsonl").read_text().splitlines()]


async def test_messages_and_envelopes_round_trip_byte_exact(open_session: OpenSession) -> None:
    call = ToolCall("c1", "read", {"path": "README.md", "nested": {"b": [1, 2.5, None]}}, "{}")
    harness = open_session(
        [
            Reply(["Réading ", "✓"], [call], prompt_tokens=120),
            Reply(["Done: \ud800 lone surrogate and \u2028 separators"], prompt_tokens=130),
        ]
    )
    harness.driver.toggle_skill("code-review")
    result = await harness.driver.submit('what is <this> & "that"?\n\ttabs')
    assert result.status == "done", result.error
    harness.runner.append(
        Message("user", "look", images=(Image("image/png", "aGVsbG8="),), name="n", turn=2)
    )
    harness.log.close()

    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    stored = harness.runner.lineage.active.messages
    restored = loaded.lineage.active.messages
    assert restored == stored
    for before, after in zip(stored, restored, strict=True):
        assert after.content.encode("utf-8", "surrogatepass") == before.content.encode(
            "utf-8", "surrogatepass"
        )
        assert message_hash(after) == message_hash(before)
    envelope = split_skill_blocks(restored[0].content)[1]
    assert [(b.name, b.state) for b in envelope] == [("code-review", "active")]


ARGUMENTS = [
    {"path": "a.py", "offset": 3},  # a flat object: strings and integers
    {"z": "last", "a": "first", "m": 2},  # keys out of order
    {"text": "é ✓ <b>&amp;</b> \u2028\u2029"},  # non-ASCII, the five escaped characters
    {"big": 2**53 + 1, "small": -(2**53) - 1, "flag": True, "none": None, "f": 1.0},
    {"nested": {"b": [1, 2.5, {"<": ">"}], "a": []}, "list": ["x", 1e21]},
    {"lone": "\ud800"},
    {},
]


async def test_tool_calls_arguments_and_hashes_after_a_resume_are_the_live_ones(
    open_session: OpenSession,
) -> None:
    calls = [ToolCall(f"c{n}", "read", args) for n, args in enumerate(ARGUMENTS)]
    harness = open_session([Reply(["ok"], calls), Reply(["done"])])
    result = await harness.driver.submit("go")
    assert result.status == "done", result.error
    harness.log.close()

    loaded = load_session(harness.session_dir)
    live = [c for m in harness.runner.lineage.active.messages for c in m.tool_calls]
    read = [c for m in loaded.lineage.active.messages for c in m.tool_calls]
    assert [c.arguments_json for c in read] == [c.arguments_json for c in live]
    assert read == live
    assert [message_hash(m) for m in loaded.lineage.active.messages] == [
        message_hash(m) for m in harness.runner.lineage.active.messages
    ]


async def test_lineage_with_two_generations_rebuilds_exactly(open_session: OpenSession) -> None:
    harness = open_session(window=4000, tools=False)
    harness.driver.toggle_skill("code-review")
    for turn in range(12):
        result = await harness.driver.submit(f"request {turn}: " + "lorem ipsum dolor " * 50)
        assert result.status == "done", result.error
    lineage: ConversationLineage = harness.runner.lineage
    assert len(lineage.generations) >= 2
    harness.log.close()

    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage == lineage
    assert [g.outcome for g in loaded.lineage.generations] == [
        g.outcome for g in lineage.generations
    ]
    records = _log_records(harness.session_dir)
    kinds = [r["type"] for r in records]
    assert kinds[0] == "header"
    assert kinds.count("generation") == len(lineage.generations) - 1


async def test_request_records_carry_the_snapshot_hashes(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("one")
    await harness.driver.submit("two")
    harness.log.close()
    snapshots = [e for e in harness.sink.events if isinstance(e, RequestSnapshot)]
    loaded = load_session(harness.session_dir)
    assert [r.message_hashes for r in loaded.requests] == [s.message_hashes for s in snapshots]
    assert [r.index for r in loaded.requests] == [s.index for s in snapshots]
    assert [r.prompt_bytes for r in loaded.requests] == [s.prompt_bytes for s in snapshots]
    last = harness.runner.last_main_request
    assert loaded.last_main_request == last
    assert not last.is_zero


async def test_meta_tracks_turn_boundaries(open_session: OpenSession, clock: ManualClock) -> None:
    harness = open_session()
    directory = harness.session_dir
    assert read_meta(directory) is None  # nothing is written before the first message
    clock.current = datetime(2026, 9, 13, 10, 30, tzinfo=UTC)
    await harness.driver.submit("Explain the build\nsecond line")
    meta = read_meta(directory)
    assert meta is not None
    assert meta.last_activity == clock.current
    assert meta.messages == 2
    assert meta.title == "Explain the build"
    assert meta.model == "fake-model" and meta.alias == "fake"
    assert meta.size_bytes == (directory / "session.jsonl").stat().st_size
    assert meta.project_root == str(harness.runner.project_root)


async def test_backend_state_changes_are_logged(open_session: OpenSession) -> None:
    harness = open_session(
        [Reply(["a"], backend_state="resp-1"), Reply(["b"], backend_state="resp-2")],
        stateful=True,
    )
    await harness.driver.submit("one")
    await harness.driver.submit("two")
    harness.log.close()
    loaded = load_session(harness.session_dir)
    assert loaded.lineage.active.backend_state == "resp-2"
    states = [r["state"] for r in _log_records(harness.session_dir) if r["type"] == "backend_state"]
    assert states == ["resp-1", "resp-2"]


async def test_replaced_conversation_is_logged_as_a_reset(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("before the clear")
    harness.driver.replace_lineage(ConversationLineage())
    await harness.driver.submit("after the clear")
    harness.log.close()
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage == harness.runner.lineage
    assert [m.role for m in loaded.lineage.active.messages] == ["user", "assistant"]
    assert loaded.lineage.active.messages[0].content == "after the clear"
    resets = [
        r for r in _log_records(harness.session_dir) if r["type"] == "generation" and r.get("reset")
    ]
    assert len(resets) == 1


class _Notice(WarningEvent, frozen=True):
    """A kind of warning: a sink takes the subclasses of the events it names."""


def test_a_subclass_of_a_logged_event_is_logged_as_its_base(
    tmp_path: Path, clock: ManualClock
) -> None:
    directory = tmp_path / "sessions" / "sub1"
    log = SessionLog.create(directory, clock=clock.now)
    log.emit(_Notice("notice", "a kind of warning"))
    log.emit(MessageAppended(Message("user", "hello")))
    log.close()
    records = _log_records(directory)
    assert [r["type"] for r in records] == ["header", "warning", "user"]
    assert records[1]["code"] == "notice"


async def test_events_before_the_first_message_are_written_after_the_header(
    tmp_path: Path, project: Path, clock: ManualClock
) -> None:
    directory = tmp_path / "sessions" / "early1"
    log = SessionLog.create(directory, clock=clock.now)
    log.emit(WarningEvent("project_context", "unreadable file"))
    log.record_mode("plan")
    assert not directory.exists()
    provider = ScriptedProvider([])
    main = MainModel("fake", "m", provider, provider.info, prompt_cache_key="k")
    runner = build_session(
        SessionRequest(
            project,
            model=main,
            session_id="early1",
            record=False,
            delegation=None,
            tools=(),
            sink=log,
            clock=clock,
        )
    ).runner
    log.bind(runner)
    log.record_skill("code-review", True)
    assert not directory.exists()
    runner.append(Message("user", "hello"))
    log.close()
    records = _log_records(directory)
    assert [r["type"] for r in records] == ["header", "warning", "mode", "skill", "user"]
    loaded = load_session(directory)
    assert loaded.problems == ()
    assert loaded.mode == "plan"
    assert loaded.skill_toggles == (("code-review", True),)
    assert loaded.prompt_cache_key == "k"


async def test_a_session_without_a_message_leaves_nothing(
    tmp_path: Path, project: Path, clock: ManualClock
) -> None:
    directory = tmp_path / "sessions" / "empty1"
    log = SessionLog.create(directory, clock=clock.now)
    provider = ScriptedProvider([])
    main = MainModel("fake", "m", provider, provider.info, prompt_cache_key="k")
    runner = build_session(
        SessionRequest(
            project,
            model=main,
            session_id="empty1",
            record=False,
            delegation=None,
            tools=(),
            sink=log,
            clock=clock,
        )
    ).runner
    log.bind(runner)
    log.record_mode("plan")
    log.close()
    assert not directory.exists()
    assert not log.on_disk


async def test_compaction_edits_round_trip(open_session: OpenSession) -> None:
    # A request too large for the 4k window is cut by compaction; the lineage keeps the edit.
    harness = open_session(window=4000, tools=False)
    await harness.driver.submit("first")
    result = await harness.driver.submit("huge: " + "lorem ipsum dolor " * 900)
    assert result.status == "done", result.error
    outcome = harness.runner.lineage.active.outcome
    assert outcome is not None and any(e.kind == "cut" for e in outcome.edits)
    harness.log.close()
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    assert loaded.lineage.active.outcome == outcome
    assert loaded.lineage.active.outcome is not None
    assert loaded.lineage.active.outcome.edits == outcome.edits
