"""How a tool call ended survives a resume: the runner's status is logged with its result, and
the answer its permission request got with the request."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.tool_calls import CANCELLED_RESULT
from steiner_tui.app.transcript import PermissionEntry, ToolEntry, entries_from_messages
from steiner_tui.engine.events import MessageAppended, ToolCallFinished
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.loader import INTERRUPTED_TOOL_RESULT, load_session
from steiner_tui.sessions.store import SessionStore
from steiner_tui.sessions.writer import SessionLog
from steiner_tui.tools.base import PermissionDecision
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession
from tests.tools.conftest import ScriptedPermission

D_ONCE = PermissionDecision.ALLOW_ONCE


def _statuses(messages: tuple[Message, ...], statuses: dict[str, str] | None) -> dict[str, str]:
    entries = entries_from_messages(messages, tool_statuses=statuses)
    return {e.call_id: e.status for e in entries if isinstance(e, ToolEntry)}


def _tool_lines(directory: Path) -> list[dict[str, object]]:
    lines = (directory / "session.jsonl").read_bytes().splitlines()
    return [json.loads(line) for line in lines if line.startswith(b'{"type":"tool"')]


async def test_failed_and_succeeded_tool_calls_survive_resume(
    open_session: OpenSession, project: Path
) -> None:
    calls = (
        ToolCall("c1", "read", {"path": "README.md"}),
        ToolCall("c2", "read", {"path": "missing.txt"}),
        ToolCall("c3", "no_such_tool", {}),
    )
    harness = open_session([Reply(["Reading."], list(calls)), Reply(["done"])])
    await harness.driver.submit("read them")
    finished = [e for e in harness.sink.events if isinstance(e, ToolCallFinished)]
    live = {e.call.id: e.status for e in finished}
    assert live == {"c1": "done", "c2": "failed", "c3": "failed"}
    harness.log.close()
    # Written only where the text does not say it.
    written = _tool_lines(harness.session_dir)
    assert {line["tool_call_id"]: line.get("status") for line in written} == {
        "c1": None,
        "c2": "failed",
        "c3": "failed",
    }

    resumed = open_session(resume=harness.session_id)
    messages = resumed.runner.lineage.active.messages
    assert _statuses(messages, dict(resumed.session.tool_status.statuses)) == live
    # The history archive reads the same statuses.
    results = {m.tool_call_id: m for m in messages if m.role == "tool"}
    assert {k: resumed.session.tool_status(m) for k, m in results.items()} == live
    # Without them (as before), the text-based guess got the failures wrong.
    assert _statuses(messages, None) == {"c1": "done", "c2": "done", "c3": "done"}


async def test_a_fork_keeps_the_logged_statuses(
    open_session: OpenSession, sessions_base: Path, clock: ManualClock
) -> None:
    """The fork's generation record says what the source's tool lines said, nothing more."""
    calls = (ToolCall("c1", "read", {"path": "README.md"}), ToolCall("c2", "nope", {}))
    harness = open_session([Reply(["Reading."], list(calls)), Reply(["done"])])
    await harness.driver.submit("read them")
    harness.log.close()
    fork = fork_session(SessionStore(sessions_base), harness.session_id, clock=clock.now)
    lines = [
        json.loads(line) for line in (fork.directory / "session.jsonl").read_bytes().splitlines()
    ]
    assert [line.get("statuses") for line in lines if line["type"] == "generation"] == [
        {"c2": "failed"}
    ]
    assert load_session(fork.directory).tool_statuses == {"c2": "failed"}
    # Cut before the results: nothing to say.
    early = fork_session(
        SessionStore(sessions_base), harness.session_id, clock=clock.now, message=2
    )
    assert b"statuses" not in (early.directory / "session.jsonl").read_bytes()


def test_every_status_is_logged_as_reported(tmp_path: Path) -> None:
    """Rejected (denied by the user or the policy), failed and done, each against the guess."""
    directory = tmp_path / "sessions" / "s1"
    log = SessionLog.create(directory, clock=lambda: datetime(2026, 9, 13, tzinfo=UTC))
    reported = {
        "r1": ("rejected", "The write tool is denied by the permission policy in config."),
        "r2": ("rejected", "The user rejected this write call."),
        "f1": ("failed", "cannot read a.txt: no such file"),
        "d1": ("done", "Error handling: the file's first line"),
        "d2": ("done", "plain output"),
    }
    calls = tuple(ToolCall(call_id, "write", {}) for call_id in reported)
    log.emit(MessageAppended(Message("user", "go", turn=1)))
    log.emit(MessageAppended(Message("assistant", "", tool_calls=calls, turn=1)))
    for call, (status, text) in zip(calls, reported.values(), strict=True):
        log.emit(ToolCallFinished(call, status, text))
        log.emit(MessageAppended(Message("tool", text, name="write", tool_call_id=call.id, turn=1)))
    log.close()
    assert log.error is None
    written = {line["tool_call_id"]: line.get("status") for line in _tool_lines(directory)}
    assert written == {"r1": "rejected", "r2": None, "f1": "failed", "d1": "done", "d2": None}
    loaded = load_session(directory)
    assert loaded.tool_statuses == {"r1": "rejected", "f1": "failed", "d1": "done"}
    shown = _statuses(loaded.lineage.active.messages, dict(loaded.tool_statuses))
    assert shown == {call_id: status for call_id, (status, _) in reported.items()}


def test_cancelled_and_interrupted_results_show_as_cancelled() -> None:
    """No status is reported for calls that never ran (or never finished): shown as live."""
    calls = (ToolCall("c1", "read", {}), ToolCall("c2", "bash", {}))
    messages = (
        Message("user", "go"),
        Message("assistant", "", tool_calls=calls),
        Message("tool", CANCELLED_RESULT, name="read", tool_call_id="c1"),
        Message("tool", INTERRUPTED_TOOL_RESULT, name="bash", tool_call_id="c2"),
    )
    assert _statuses(messages, {}) == {"c1": "cancelled", "c2": "cancelled"}


async def test_a_log_without_statuses_loads_as_the_text_says(open_session: OpenSession) -> None:
    calls = (ToolCall("c1", "read", {"path": "README.md"}), ToolCall("c2", "read", {"path": "x"}))
    harness = open_session([Reply(["Reading."], list(calls)), Reply(["done"])])
    await harness.driver.submit("read them")
    harness.log.close()
    path = harness.session_dir / "session.jsonl"
    lines = path.read_bytes().splitlines()
    records = [json.loads(line) for line in lines]
    for record in records:
        record.pop("status", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    loaded = load_session(harness.session_dir)
    assert loaded.problems == () and loaded.tool_statuses == {}
    messages = loaded.lineage.active.messages
    guessed = _statuses(messages, None)
    assert _statuses(messages, dict(loaded.tool_statuses)) == guessed


async def test_permission_answers_survive_resume_and_fork(
    open_session: OpenSession, project: Path, sessions_base: Path, clock: ManualClock
) -> None:
    """Each answer is logged as it is given and shown after its call on resume, as it was
    live; a call a rule or an earlier ``always`` answer allowed asked nobody, and shows none."""
    calls = (
        ToolCall("c1", "write", {"path": "a.txt", "content": "one\n"}),
        ToolCall("c2", "write", {"path": "b.txt", "content": "two\n"}),
    )
    again = ToolCall("c3", "write", {"path": "c.txt", "content": "three\n"})
    asker = ScriptedPermission([PermissionDecision.REJECT_ONCE, PermissionDecision.ALLOW_ALWAYS])
    harness = open_session(
        [Reply(["Writing."], list(calls)), Reply(["Again."], [again]), Reply(["done"])],
        permission=asker,
    )
    await harness.driver.submit("write them")
    harness.log.close()
    assert [r.call_id for r in asker.requests] == ["c1", "c2"]  # c3: allowed for the session
    records = [
        json.loads(line)
        for line in (harness.session_dir / "session.jsonl").read_bytes().splitlines()
    ]
    kinds = [r["type"] if r["type"] != "tool" else r["tool_call_id"] for r in records]
    assert kinds.index("permission") < kinds.index("c1")  # written as given, before the result

    resumed = open_session(resume=harness.session_id)
    book = resumed.session.tool_status
    assert {k: a.decision for k, a in book.answers.items()} == {
        "c1": "reject_once",
        "c2": "allow_always",
    }
    entries = entries_from_messages(
        resumed.runner.lineage.active.messages, str(project), (), book.statuses, book.answers
    )
    shown = [
        (e.call_id if isinstance(e, ToolEntry) else (e.request.summary, e.decision))
        for e in entries
        if isinstance(e, ToolEntry | PermissionEntry)
    ]
    assert shown == [
        "c1",
        ("write a.txt (4 bytes, a new file)", PermissionDecision.REJECT_ONCE),
        "c2",
        ("write b.txt (4 bytes, a new file)", PermissionDecision.ALLOW_ALWAYS),
        "c3",
    ]
    assert (project / "b.txt").exists() and not (project / "a.txt").exists()

    store = SessionStore(sessions_base)
    fork = fork_session(store, harness.session_id, clock=clock.now)
    assert set(load_session(fork.directory).permission_answers) == {"c1", "c2"}
    early = fork_session(store, harness.session_id, clock=clock.now, message=1)
    assert load_session(early.directory).permission_answers == {}


async def test_an_always_answer_holds_again_in_the_resumed_session(
    open_session: OpenSession, project: Path
) -> None:
    """ "For the rest of the session" holds across a resume of that session (it asked again):
    the notice says what runs and what is refused without asking; a once answer asks again."""
    first = (
        ToolCall("c1", "write", {"path": "a.txt", "content": "one\n"}),
        ToolCall("c2", "bash", {"command": "echo hi"}),
        ToolCall("c3", "edit", {"path": "a.txt", "old_string": "one", "new_string": "two"}),
    )
    asker = ScriptedPermission(
        [PermissionDecision.ALLOW_ALWAYS, PermissionDecision.REJECT_ALWAYS, D_ONCE]
    )
    harness = open_session([Reply(["Working."], list(first)), Reply(["done"])], permission=asker)
    await harness.driver.submit("go")
    harness.log.close()

    later = (
        ToolCall("c4", "write", {"path": "b.txt", "content": "two\n"}),
        ToolCall("c5", "bash", {"command": "echo again"}),
        ToolCall("c6", "edit", {"path": "a.txt", "old_string": "two", "new_string": "three"}),
    )
    again = ScriptedPermission([D_ONCE])
    resumed = open_session(
        [Reply(["More."], list(later)), Reply(["done"])],
        resume=harness.session_id,
        permission=again,
    )
    assert (
        "your answers for the rest of this session still hold: write allowed; bash rejected "
        "without asking (a new session asks again)"
    ) in resumed.session.notices
    await resumed.driver.submit("again")
    assert [r.call_id for r in again.requests] == ["c6"]  # edit was allowed once: asked again
    assert (project / "b.txt").read_text(encoding="utf-8") == "two\n"
    results = {m.tool_call_id: m.content for m in resumed.runner.conversation if m.role == "tool"}
    assert results["c5"].startswith("The user rejected this bash call")

    fresh = open_session([Reply(["done"])])
    assert not any("still hold" in notice for notice in fresh.session.notices)


async def test_clear_starts_a_conversation_that_asks_again(open_session: OpenSession) -> None:
    """``/clear`` is a new session: the old one's ``always`` answers stay with it (its resume
    holds them again), and the new conversation asks."""
    call = ToolCall("c1", "bash", {"command": "echo hi"})
    asker = ScriptedPermission([PermissionDecision.ALLOW_ALWAYS, PermissionDecision.REJECT_ONCE])
    harness = open_session(
        [Reply(["Running."], [call]), Reply(["done"]), Reply(["Again."], [call]), Reply(["ok"])],
        permission=asker,
    )
    await harness.driver.submit("run it")
    harness.session.clear()
    await harness.driver.submit("run it again")
    assert len(asker.requests) == 2
