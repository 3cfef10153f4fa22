"""A log cut anywhere still loads: torn lines are reported, streamed text comes back incomplete."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from steiner_tui.agent.session_factory import NO_ANSWER, STOPPED_MID_REPLY
from steiner_tui.engine.events import ToolInputDelta
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.sessions.loader import INTERRUPTED_TOOL_RESULT, load_session
from steiner_tui.sessions.log_parse import APP_STOPPED
from steiner_tui.sessions.partial_reply import PartialReply
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession


def _copy(source: Path, name: str, data: bytes | None = None) -> Path:
    target = source.parent / name
    shutil.copytree(source, target)
    if data is not None:
        (target / "session.jsonl").write_bytes(data)
    return target


async def test_truncation_at_every_offset_of_the_last_record(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("first question")
    harness.runner.append(Message("user", "a last message with ünïcode ✓ to cut", turn=2))
    harness.log.close()
    directory = harness.session_dir
    data = (directory / "session.jsonl").read_bytes()
    assert data.endswith(b"\n")
    start = data.rindex(b"\n", 0, len(data) - 1) + 1
    last_line = data[: len(data)].count(b"\n")
    full = harness.runner.lineage
    without_last = full.with_active_messages(full.active.messages[:-1])
    for offset in range(start, len(data)):
        copy = _copy(directory, f"cut{offset}", data[:offset])
        loaded = load_session(copy)
        if offset == start:
            assert loaded.problems == ()
            assert loaded.lineage == without_last
        elif offset == len(data) - 1:
            # The whole record without its newline is still a whole record.
            assert loaded.problems == ()
            assert loaded.lineage == full
        else:
            assert [p.line_number for p in loaded.problems] == [last_line], offset
            assert loaded.lineage == without_last
        shutil.rmtree(copy)


async def test_streamed_text_is_restored_as_incomplete(open_session: OpenSession) -> None:
    block = asyncio.Event()
    reply = Reply(["Hel", "lo ", "wor"], block=block)
    harness = open_session([reply], partial_interval=0.0)
    task = asyncio.create_task(harness.driver.submit("say hello"))
    await reply.reached.wait()
    # The process is killed here: copy the folder as it is on disk at this moment.
    killed = _copy(harness.session_dir, "killed1")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)

    loaded = load_session(killed)
    assert loaded.problems == ()
    assert loaded.restored_incomplete
    last = loaded.lineage.active.messages[-1]
    assert last == Message("assistant", "Hello wor", turn=1, incomplete=True)
    assert loaded.lineage.active.messages[:-1] == harness.runner.lineage.active.messages[:1]
    # Resumed, the session says what happened, not only how many messages it has.
    resumed = open_session(resume="killed1")
    assert any(STOPPED_MID_REPLY in notice for notice in resumed.session.notices)
    # Its request got no usage and never will: the inspector says why, not a blank cost.
    [request] = resumed.session.requests.summaries()
    assert request.error == APP_STOPPED and request.streamed_chars == len("Hello wor")
    resumed.log.close()  # and again, past the resumed record and the restored reply
    assert not (killed / "session.partial").exists()  # the log says it all now
    again = load_session(killed)
    [request] = again.requests
    assert request.error == APP_STOPPED and request.streamed_chars == len("Hello wor")
    assert again.lineage.active.messages[-1] == last and again.problems == ()


async def test_partial_records_are_bounded_by_size(open_session: OpenSession) -> None:
    block = asyncio.Event()
    chunks = ["abc", "defgh", "ij", "klmnopqrs", "t"]
    reply = Reply(chunks, block=block)
    harness = open_session([reply], partial_bytes=8, partial_interval=1e9, monotonic=lambda: 0.0)
    task = asyncio.create_task(harness.driver.submit("go"))
    await reply.reached.wait()
    log_text = (harness.session_dir / "session.jsonl").read_text()
    assert '"type":"partial"' not in log_text  # kept beside the log, not in it
    partial_text = (harness.session_dir / "session.partial").read_text()
    partials = [line for line in partial_text.splitlines() if '"type":"partial"' in line]
    assert len(partials) == 2  # "abcdefgh" and "ijklmnopqrs"; "t" is still buffered
    killed = _copy(harness.session_dir, "killed2")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert load_session(killed).lineage.active.messages[-1].content == "abcdefghijklmnopqrs"
    # The cancelled run stored the whole streamed text; the live log has it as a message.
    harness.log.close()
    live = load_session(harness.session_dir)
    assert live.lineage.active.messages[-1].content == "".join(chunks)
    assert not live.restored_incomplete
    assert not (harness.session_dir / "session.partial").exists()  # emptied, then removed


async def test_streamed_records_stand_only_where_the_log_left_them(
    open_session: OpenSession,
) -> None:
    """The streamed text used to stay in the log for ever (twice the reply's text, a line for
    every resume to parse): it is kept in ``session.partial`` beside it, and a loader reads it
    at the place in the log it names, so a reply written after it (a kill between the reply's
    line and the emptying of the file) still makes it obsolete. A torn last line is dropped;
    a place that is no line boundary of the log drops the file."""
    block = asyncio.Event()
    reply = Reply(["Hel", "lo ", "wor"], block=block)
    harness = open_session([reply], partial_interval=0.0)
    task = asyncio.create_task(harness.driver.submit("say hello"))
    await reply.reached.wait()
    partial = (harness.session_dir / "session.partial").read_bytes()
    killed = _copy(harness.session_dir, "killed3")
    (killed / "session.partial").write_bytes(partial + b'{"type":"partial","te')
    assert load_session(killed).lineage.active.messages[-1].content == "Hello wor"
    block.set()
    await task
    done = harness.session_dir / "session.jsonl"
    assert b'"type":"partial"' not in done.read_bytes()
    assert (harness.session_dir / "session.partial").read_bytes() == b""
    stale = _copy(harness.session_dir, "stale")
    (stale / "session.partial").write_bytes(partial)  # as if killed before it was emptied
    loaded = load_session(stale)
    assert loaded.lineage.active.messages[-1] == harness.runner.lineage.active.messages[-1]
    assert not loaded.restored_incomplete and loaded.problems == ()
    offset = int(partial.split(b'"log":')[1].split(b"}")[0])
    moved = partial.replace(b'"log":%d' % offset, b'"log":%d' % (offset - 3))
    (killed / "session.partial").write_bytes(moved)  # not where a line starts
    assert not load_session(killed).restored_incomplete


async def test_text_before_a_long_tool_call_is_kept_while_its_arguments_stream(
    open_session: OpenSession,
) -> None:
    """ "I will write the module." then a write whose content streams for seconds: the text
    was buffered until the next text, which never came, so a kill lost it."""
    block = asyncio.Event()
    now = [0.0]
    reply = Reply(["I will write the module."], block=block)
    harness = open_session([reply], monotonic=lambda: now[0])
    task = asyncio.create_task(harness.driver.submit("write it"))
    await reply.reached.wait()
    for _ in range(3):  # the write's arguments stream, a tenth of a second apart
        now[0] += 0.5
        harness.log.emit(ToolInputDelta("write", 4096))
    killed = _copy(harness.session_dir, "killed-mid-call")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    last = load_session(killed).lineage.active.messages[-1]
    assert last == Message("assistant", "I will write the module.", turn=1, incomplete=True)


def test_a_slow_stream_is_recorded_about_once_a_second() -> None:
    """A record every tenth of a second left 932 of them in the log for two replies of a local
    model streaming 17 tokens a second (a log 9.7 times the conversation's text), each one a
    line for every resume to parse: three seconds of such a stream are three records now."""
    now = [0.0]
    partial = PartialReply(clock=lambda: now[0])
    partial.restart()
    due = 0
    for _ in range(24):  # eight tokens a second (steps a float adds exactly)
        now[0] += 0.125
        due += partial.add(text="tok ")
    assert due == 3


async def test_resuming_a_killed_session_keeps_the_prefix(open_session: OpenSession) -> None:
    block = asyncio.Event()
    harness = open_session(
        [Reply(["first answer"]), Reply(["partial ", "reply"], block=block)],
        partial_interval=0.0,
    )
    harness.driver.toggle_skill("code-review")
    await harness.driver.submit("first")
    reply = harness.provider.replies[0]
    task = asyncio.create_task(harness.driver.submit("second"))
    await reply.reached.wait()
    killed = _copy(harness.session_dir, "killed3")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    before = load_session(killed)
    last_sent = before.requests[-1].message_hashes

    resumed = open_session([Reply(["after resume"])], resume="killed3")
    assert resumed.driver.lineage == before.lineage
    await resumed.driver.submit("third")
    first_after = resumed.provider.requests[0]

    hashes = hash_messages(first_after.messages)
    assert hashes[: len(last_sent)] == last_sent
    resumed.log.close()
    again = load_session(killed)
    assert again.problems == ()
    assert not again.restored_incomplete
    contents = [m.content for m in again.lineage.active.messages if m.role == "assistant"]
    assert contents == ["first answer", "partial reply", "after resume"]
    assert again.lineage.active.messages[3].incomplete


async def _read_turn_cut(open_session: OpenSession, name: str, before: bytes) -> Path:
    """A turn that read a file and answered "done", its log copied to ``name`` without the
    first line holding ``before`` and every line after it; the folder of the whole log."""
    call = ToolCall("c1", "read", {"path": "README.md"})
    harness = open_session([Reply(["Reading."], [call]), Reply(["done"])])
    await harness.driver.submit("read it")
    harness.log.close()
    directory = harness.session_dir
    lines = (directory / "session.jsonl").read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if before in line)
    _copy(directory, name, b"".join(lines[:cut]))
    return directory


async def test_interrupted_tool_calls_get_results(open_session: OpenSession) -> None:
    directory = await _read_turn_cut(open_session, "midtool", b'"tool_call_id":"c1"')
    loaded = load_session(directory.parent / "midtool")
    assert loaded.problems == ()
    last = loaded.lineage.active.messages[-1]
    assert last.role == "tool" and last.tool_call_id == "c1"
    assert last.content == INTERRUPTED_TOOL_RESULT
    assert loaded.repaired_tool_results == 1
    resumed = open_session(resume="midtool")
    assert "1 tool call had no result when the app stopped" in "\n".join(resumed.session.notices)


async def test_a_turn_killed_before_its_answer_says_so(open_session: OpenSession) -> None:
    # Killed after the tool result, while compacting or waiting for the model: the log ends at
    # the result, and the resumed session says the turn has no answer yet.
    directory = await _read_turn_cut(open_session, "noanswer", b'"content":"done"')
    resumed = open_session(resume="noanswer")
    assert resumed.driver.lineage.active.messages[-1].role == "tool"
    assert NO_ANSWER in resumed.session.notices
    assert STOPPED_MID_REPLY not in resumed.session.notices
    # A session that ended with an answer says nothing of the kind.
    assert NO_ANSWER not in open_session(resume=directory.name).session.notices


async def test_torn_last_line_is_terminated_before_appending(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("first")
    harness.log.close()
    directory = harness.session_dir
    with (directory / "session.jsonl").open("ab") as handle:
        handle.write(b'{"type":"message","gen":0,"mess')
    torn_line = (directory / "session.jsonl").read_bytes().count(b"\n") + 1

    resumed = open_session(resume=directory.name)
    assert [p.line_number for p in resumed.problems] == [torn_line]
    await resumed.driver.submit("second")
    resumed.log.close()
    loaded = load_session(directory)
    assert [p.line_number for p in loaded.problems] == [torn_line]
    assert [m.content for m in loaded.lineage.active.messages if m.role == "user"] == [
        "first",
        "second",
    ]
