"""``session.text``: large message texts outside JSON, read back exactly, lost ones reported.

* contents of ``TEXT_MIN_BYTES`` and more are written raw to ``session.text``, the line holding
  ``[offset, length]``; smaller ones, and ones holding NUL or lone surrogates, stay inline;
* a text cut off (a torn write, a truncated or lost file) or zeroed is a problem of its line,
  and the message is handled as a torn line's; resuming keeps those records lost; the
  generations compacted after a lost text are kept;
* a fork writes its own ``session.text``; a log of version 7 is refused clearly;
* a text's line stores its message's digest and the text's CRC-32: the digest is taken, not
  computed, once the CRC-32 matches; a text edited since is reported as lost; a line without
  them (an older log) is hashed.
"""

from __future__ import annotations

import json
import os
import shutil
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.events import MessageAppended, UsageReported
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.snapshots import build_request_snapshot
from steiner_tui.engine.tokens.estimate import TokenEstimate
from steiner_tui.sessions.errors import SessionLoadError
from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.loader import LOST_TOOL_RESULT, load_session
from steiner_tui.sessions.record_values import DIGEST_MIN_BYTES, message_line
from steiner_tui.sessions.records import LOG_VERSION
from steiner_tui.sessions.store import SessionStore
from steiner_tui.sessions.text_file import (
    TEXT_FILE_NAME,
    TEXT_MIN_BYTES,
    LostText,
    StoredTexts,
    TextFile,
)
from steiner_tui.sessions.writer import SessionLog
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession

BIG = "".join(f'line {i}: "quoted" \\ and a tab\there\n' for i in range(80))
"""A file's worth of text that JSON escapes heavily (about 3 KB)."""


def _lines(directory: Path) -> list[dict[str, object]]:
    data = (directory / "session.jsonl").read_bytes()
    return [json.loads(line) for line in data.splitlines()]


def _message_lines(directory: Path) -> list[dict[str, object]]:
    roles = {"user", "assistant", "tool", "system", "summary"}
    return [line for line in _lines(directory) if line["type"] in roles]


async def _session_with_texts(open_session: OpenSession, project: Path) -> tuple[Path, object]:
    """A session whose user message and read result are large, and whose reply is small."""
    (project / "big.py").write_text(BIG, encoding="utf-8")
    call = ToolCall("c1", "read", {"path": "big.py"})
    harness = open_session([Reply(["Reading."], [call]), Reply(["It is big."])])
    await harness.driver.submit("explain this:\n" + BIG)
    harness.log.close()
    return harness.session_dir, harness.runner.lineage


async def test_large_texts_round_trip_through_the_text_file(
    open_session: OpenSession, project: Path
) -> None:
    directory, lineage = await _session_with_texts(open_session, project)
    messages = lineage.active.messages  # type: ignore[attr-defined]
    texts = (directory / TEXT_FILE_NAME).read_bytes()
    log = (directory / "session.jsonl").read_bytes()
    lines = _message_lines(directory)
    assert [line["type"] for line in lines] == ["user", "assistant", "tool", "assistant"]
    user, call, result, reply = lines
    for line, message in ((user, messages[0]), (result, messages[2])):
        offset, length = line["text"]  # type: ignore[misc]
        assert "content" not in line and "json" not in line
        assert texts[offset : offset + length] == message.content.encode()
    assert BIG.encode() in texts and b'"quoted"' not in log  # raw there, nothing escaped here
    assert call["content"] == "Reading." and reply["content"] == "It is big."
    loaded = load_session(directory)
    assert loaded.problems == ()
    assert loaded.lineage == lineage
    assert loaded.meta.size_bytes == len(log) + len(texts)


def test_messages_hashed_from_the_bytes_read_hash_as_messages_do(tmp_path: Path) -> None:
    directory = tmp_path / "s1"
    log = SessionLog.create(directory, clock=lambda: datetime(2026, 9, 13, tzinfo=UTC))
    calls = (ToolCall("c1", "read", {"path": "ä.py"}), ToolCall("c2", "bash", {"command": "ls"}))
    written = (
        Message("user", "explain — this:\n" + BIG + "ü😀", turn=1),
        Message("assistant", "Reading.", reasoning="the file first", tool_calls=calls, turn=1),
        Message("tool", '{"path":"ä.py","output":"é"}', name="read", tool_call_id="c1", turn=1),
        Message("tool", "ö" * TEXT_MIN_BYTES, name="bash", tool_call_id="c2", turn=1),
    )
    for message in written:
        log.emit(MessageAppended(message))
    log.close()
    lines = _message_lines(directory)
    assert [bool(line.get("text")) for line in lines] == [True, False, False, True]
    assert "json" in lines[2]
    loaded = load_session(directory).lineage.active.messages
    assert loaded == written
    maps = Path("/proc/self/maps")  # the loader maps the file: unmapped once it has loaded
    assert not maps.exists() or str((directory / TEXT_FILE_NAME).resolve()) not in maps.read_text()
    for read, message in zip(loaded, written, strict=True):
        fresh = Message(**msgspec.structs.asdict(message))
        assert read.digest() == fresh.digest()
        assert read.prompt_bytes == fresh.prompt_bytes


def test_the_threshold_and_what_stays_inline(tmp_path: Path) -> None:
    texts = TextFile(tmp_path)
    small = "x" * (TEXT_MIN_BYTES - 1)
    large = "x" * TEXT_MIN_BYTES
    wide = "é" * (TEXT_MIN_BYTES // 2)  # TEXT_MIN_BYTES bytes in UTF-8
    cases = {
        small: None,
        large: (0, TEXT_MIN_BYTES),
        wide: (TEXT_MIN_BYTES, TEXT_MIN_BYTES),
        "\0" + large: None,  # NUL marks a lost text
        "\ud800" + large: None,  # no UTF-8 form: the line escapes it
    }
    for content, span in cases.items():
        line = message_line([Message("user", content, turn=1)], 0, texts=texts)
        assert line.text == span
        assert line.content == ("" if span else content)
    texts.close()
    assert (tmp_path / TEXT_FILE_NAME).read_bytes() == (large + wide).encode()


def test_a_session_without_large_texts_has_no_text_file(tmp_path: Path) -> None:
    directory = tmp_path / "s1"
    log = SessionLog.create(directory, clock=lambda: datetime(2026, 9, 13, tzinfo=UTC))
    log.emit(MessageAppended(Message("user", "hello", turn=1)))
    log.close()
    assert not (directory / TEXT_FILE_NAME).exists()
    assert load_session(directory).lineage.active.messages == (Message("user", "hello", turn=1),)


async def test_a_text_cut_off_is_reported_and_stays_lost_after_resuming(
    open_session: OpenSession, project: Path
) -> None:
    directory, _ = await _session_with_texts(open_session, project)
    path = directory / TEXT_FILE_NAME
    size = path.stat().st_size
    os.truncate(path, size - 10)  # the read result's text was torn
    numbered = list(enumerate(_lines(directory), start=1))
    tool_line = next(n for n, line in numbered if line["type"] == "tool")
    call_line = next(n for n, line in numbered if line.get("tool_calls"))
    loaded = load_session(directory)
    start = _message_lines(directory)[2]["text"][0]  # type: ignore[index]
    assert [str(p) for p in loaded.problems] == [
        f"line {call_line}: tool call c1 (read) had no result (its line was lost); a result "
        "saying so was added",
        f"line {tool_line}: the tool record was lost: its text (bytes {start}-{size} of "
        f"{TEXT_FILE_NAME}) is missing (the file ends at byte {size - 10})",
    ]
    roles = [(m.role, m.content == LOST_TOOL_RESULT) for m in loaded.lineage.active.messages]
    assert roles == [("user", False), ("assistant", False), ("tool", True), ("assistant", False)]

    resumed = open_session(resume=directory.name)
    assert path.stat().st_size == size  # extended with zeros to where the records refer
    await resumed.driver.submit("and now this:\n" + BIG)
    resumed.log.close()
    again = load_session(directory)
    assert [p.line_number for p in again.problems][:1] == [tool_line]
    assert "was zeroed" in again.problems[0].message
    assert again.lineage.active.messages[-2].content == "and now this:\n" + BIG


@pytest.mark.parametrize("damage", ["missing", "empty"])
async def test_a_missing_text_file_loses_only_the_large_messages(
    open_session: OpenSession, project: Path, damage: str
) -> None:
    directory, _ = await _session_with_texts(open_session, project)
    if damage == "missing":
        (directory / TEXT_FILE_NAME).unlink()
    else:
        os.truncate(directory / TEXT_FILE_NAME, 0)
    loaded = load_session(directory)
    lost = [p for p in loaded.problems if "the file ends at byte 0" in p.message]
    assert [p.message.split(":")[0] for p in lost] == [
        "the user record was lost",
        "the tool record was lost",
    ]
    kept = [m.content for m in loaded.lineage.active.messages if m.role == "assistant"]
    assert "Reading." in kept and "It is big." in kept


async def test_a_symlinked_text_file_is_refused(
    open_session: OpenSession, project: Path, tmp_path: Path
) -> None:
    directory, _ = await _session_with_texts(open_session, project)
    elsewhere = tmp_path / "elsewhere.text"
    (directory / TEXT_FILE_NAME).rename(elsewhere)
    (directory / TEXT_FILE_NAME).symlink_to(elsewhere)
    with pytest.raises(SessionLoadError, match="symbolic link"):
        load_session(directory)
    info = SessionStore(directory.parent).info(directory.name)
    assert info.problem == f"{TEXT_FILE_NAME} is a symbolic link"


async def test_a_fork_writes_its_own_text_file(
    open_session: OpenSession, project: Path, sessions_base: Path, clock: ManualClock
) -> None:
    directory, lineage = await _session_with_texts(open_session, project)
    store = SessionStore(sessions_base)
    fork = fork_session(store, directory.name, clock=clock.now)
    store.delete(directory.name)  # the fork depends on nothing of its source
    generation = next(line for line in _lines(fork.directory) if line["type"] == "generation")
    assert sorted(generation["texts"]) == ["0", "2"]  # type: ignore[arg-type]
    loaded = load_session(fork.directory)
    assert loaded.problems == ()
    assert loaded.lineage.active.messages == lineage.active.messages  # type: ignore[attr-defined]
    texts = (fork.directory / TEXT_FILE_NAME).read_bytes()
    log = (fork.directory / "session.jsonl").read_bytes()
    assert BIG.encode() in texts and b'"quoted"' not in log
    assert loaded.meta.size_bytes == len(log) + len(texts)


def test_a_version_7_log_is_refused_as_an_older_development_version(tmp_path: Path) -> None:
    directory = tmp_path / "v7_session"
    directory.mkdir()
    (directory / "session.jsonl").write_bytes(
        b'{"type":"header","version":7,"session_id":"v7_session"}\n'
        b'{"type":"user","content":"hello","turn":1}\n'
    )
    with pytest.raises(SessionLoadError) as raised:
        load_session(directory)
    assert str(raised.value) == (
        "session 'v7_session' was written by an older development version of steiner-tui "
        f"(log version 7; this one reads version {LOG_VERSION}) and cannot be loaded"
    )


def test_a_request_leaves_out_an_estimate_its_usage_says(tmp_path: Path) -> None:
    """The usage's prompt tokens stand for an equal estimate; another estimate is written,
    also one equal to the request before's (absent would read the usage's)."""
    directory = tmp_path / "s1"
    time = datetime(2026, 9, 13, tzinfo=UTC)
    log = SessionLog.create(directory, clock=lambda: time)
    conversation = [Message("user", "hello", turn=1)]
    log.emit(MessageAppended(conversation[0]))
    for index, (estimate, prompt) in enumerate(((100, 100), (100, 120), (130, 125)), start=1):
        snapshot = build_request_snapshot(
            request_id=f"r-{index}",
            index=index,
            model="m",
            provider="p",
            time=time,
            messages=conversation,
            blocks=(),
            block_message_count=0,
            tools=(),
            max_tokens=4096,
            estimate=TokenEstimate(estimate, estimate, "heuristic", "low"),
        )
        log.emit(snapshot)
        log.emit(UsageReported(model="m", prompt_tokens=prompt, completion_tokens=5))
    log.close()
    requests = [line for line in _lines(directory) if line["type"] == "request"]
    assert [(r.get("estimated_prompt_tokens"), r["usage"]) for r in requests] == [
        (None, [100, 5]),
        (100, [120, 5]),
        (130, [125, 5]),
    ]
    loaded = load_session(directory)
    assert [r.estimated_prompt_tokens for r in loaded.requests] == [100, 100, 130]
    assert [r.raw_prompt_tokens for r in loaded.requests] == [100, 100, 130]


async def test_a_folder_removed_while_open_is_saved_again_with_its_texts(
    open_session: OpenSession,
) -> None:
    harness = open_session()
    await harness.driver.submit("first:\n" + BIG)
    shutil.rmtree(harness.session_dir)
    await harness.driver.submit("second:\n" + BIG)
    harness.log.close()
    directory = harness.session_dir
    assert (directory / TEXT_FILE_NAME).read_bytes().count(BIG.encode()) == 2
    loaded = load_session(directory)
    assert loaded.problems == ()
    assert loaded.lineage == harness.runner.lineage


async def test_without_meta_the_list_titles_a_session_from_its_first_text(
    open_session: OpenSession, project: Path
) -> None:
    directory, _ = await _session_with_texts(open_session, project)
    (directory / "meta.json").unlink()
    info = SessionStore(directory.parent).info(directory.name)
    assert info.problem == "" and info.meta.title == "explain this:"
    sizes = (directory / "session.jsonl").stat().st_size + (
        directory / TEXT_FILE_NAME
    ).stat().st_size
    assert info.meta.size_bytes == sizes


def _rewrite_lines(directory: Path, change: Callable[[dict[str, object]], None]) -> None:
    lines = _lines(directory)
    for line in lines:
        change(line)
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    (directory / "session.jsonl").write_bytes(data)


async def test_a_text_line_stores_its_digest_and_crc_and_an_older_line_is_hashed(
    open_session: OpenSession, project: Path
) -> None:
    directory, lineage = await _session_with_texts(open_session, project)
    messages = lineage.active.messages  # type: ignore[attr-defined]
    texts = (directory / TEXT_FILE_NAME).read_bytes()
    user, _, result, _ = _message_lines(directory)
    for line, message in ((user, messages[0]), (result, messages[2])):
        offset, length = line["text"]  # type: ignore[misc]
        assert line["digest"] == message.digest()
        assert line["crc"] == zlib.crc32(texts[offset : offset + length])

    def older(line: dict[str, object]) -> None:  # as a log written before the digests
        line.pop("digest", None)
        line.pop("crc", None)

    _rewrite_lines(directory, older)
    loaded = load_session(directory)
    assert loaded.problems == () and loaded.lineage == lineage
    for read in loaded.lineage.active.messages:
        assert read.digest() == Message(**msgspec.structs.asdict(read)).digest()


async def test_a_text_edited_in_place_is_reported_not_taken_with_its_stored_digest(
    open_session: OpenSession, project: Path
) -> None:
    directory, _ = await _session_with_texts(open_session, project)
    path = directory / TEXT_FILE_NAME
    texts = path.read_bytes()
    path.write_bytes(texts.replace(b'"quoted"', b"'quoted'", 1))  # same length, still UTF-8
    start, length = _message_lines(directory)[0]["text"]  # type: ignore[misc]
    loaded = load_session(directory)
    assert [p.message for p in loaded.problems][:1] == [
        f"the user record was lost: its text (bytes {start}-{start + length} of "
        f"{TEXT_FILE_NAME}) is not the text written there (its CRC-32 differs)"
    ]
    assert all(m.content != "explain this:\n" + BIG for m in loaded.lineage.active.messages)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"digest": "ABCD1234"}, "digest 'ABCD1234' is not 8 lowercase hex digits"),
        ({"digest": ""}, "a digest and a crc come together, with a text"),
        ({"crc": None}, "a digest and a crc come together, with a text"),
    ],
)
async def test_a_text_lines_bad_digest_or_crc_is_a_problem_of_its_line(
    open_session: OpenSession, project: Path, change: dict[str, object], error: str
) -> None:
    directory, _ = await _session_with_texts(open_session, project)

    def damage(line: dict[str, object]) -> None:
        if line["type"] == "user":
            line.update(change)
            if line["digest"] == "" or line["crc"] is None:
                del line["digest" if line["digest"] == "" else "crc"]

    _rewrite_lines(directory, damage)
    problems = [p.message for p in load_session(directory).problems]
    assert any(error in message for message in problems), problems


def test_a_text_under_the_digest_threshold_is_hashed_at_load(tmp_path: Path) -> None:
    directory = tmp_path / "s1"
    log = SessionLog.create(directory, clock=lambda: datetime(2026, 9, 13, tzinfo=UTC))
    small = Message("user", "x" * (DIGEST_MIN_BYTES - 1), turn=1)
    large = Message("user", "y" * DIGEST_MIN_BYTES, turn=2)
    log.emit(MessageAppended(small))
    log.emit(MessageAppended(large))
    log.close()
    lines = _message_lines(directory)
    assert [("text" in line, "digest" in line, "crc" in line) for line in lines] == [
        (True, False, False),
        (True, True, True),
    ]
    loaded = load_session(directory).lineage.active.messages
    assert loaded == (small, large)
    assert [m.digest() for m in loaded] == [
        Message(**msgspec.structs.asdict(m)).digest() for m in (small, large)
    ]


async def test_a_lost_text_before_a_compaction_keeps_the_generations_after_it(
    open_session: OpenSession, project: Path
) -> None:
    harness = open_session()
    await harness.driver.submit("explain this:\n" + BIG)
    await harness.driver.submit("and then?")
    await harness.driver.compact("")
    await harness.driver.submit("after the compaction")
    lineage = harness.runner.lineage
    harness.log.close()
    directory = harness.session_dir
    path = directory / TEXT_FILE_NAME
    path.write_bytes(path.read_bytes().replace(b'"quoted"', b"'quoted'", 1))
    loaded = load_session(directory)
    assert [p.message.split(":")[0] for p in loaded.problems] == ["the user record was lost"]
    assert [g.summary for g in loaded.lineage.generations] == [
        g.summary for g in lineage.generations
    ]
    kept = tuple(m for m in lineage.active.messages if m.content != "explain this:\n" + BIG)
    assert tuple(loaded.lineage.active.messages) == kept

    resumed = open_session(resume=directory.name)
    await resumed.driver.submit("and now")
    resumed.log.close()
    again = load_session(directory)
    assert [p.message.split(":")[0] for p in again.problems] == ["the user record was lost"]
    assert tuple(again.lineage.active.messages[: len(kept)]) == kept
    assert again.lineage.active.messages[-2].content == "and now"


async def test_a_lost_text_of_the_active_generation_stays_out_after_resuming_and_compacting(
    open_session: OpenSession, project: Path
) -> None:
    harness = open_session()
    await harness.driver.submit("explain this:\n" + BIG)
    await harness.driver.submit("and then?")
    harness.log.close()
    directory = harness.session_dir
    path = directory / TEXT_FILE_NAME
    path.write_bytes(path.read_bytes().replace(b'"quoted"', b"'quoted'", 1))
    assert load_session(directory).rewritten  # the resumed log starts the lineage again

    resumed = open_session(resume=directory.name)
    await resumed.driver.compact("")
    await resumed.driver.submit("after the compaction")
    lineage = resumed.runner.lineage
    resumed.log.close()
    again = load_session(directory)
    assert [p.message.split(":")[0] for p in again.problems] == ["the user record was lost"]
    assert again.lineage == lineage


async def test_a_generation_records_lost_text_loses_that_message_only(
    open_session: OpenSession, project: Path, sessions_base: Path, clock: ManualClock
) -> None:
    directory, lineage = await _session_with_texts(open_session, project)
    fork = fork_session(SessionStore(sessions_base), directory.name, clock=clock.now)
    path = fork.directory / TEXT_FILE_NAME
    size = path.stat().st_size
    os.truncate(path, size - 10)  # the read result's text, the generation record's second
    loaded = load_session(fork.directory)
    problems = [p.message for p in loaded.problems]
    assert problems[0].startswith("the generation record's text for message 2 was lost: its text")
    messages = loaded.lineage.active.messages
    assert [(m.role, m.content == LOST_TOOL_RESULT) for m in messages] == [
        ("user", False),
        ("assistant", False),
        ("tool", True),
        ("assistant", False),
    ]
    assert messages[0] == lineage.active.messages[0]  # type: ignore[attr-defined]


def test_a_repeated_text_is_decoded_once_and_an_edited_repeat_is_lost() -> None:
    text, edited = b"same \xc3\xa9 bytes " * 200, b"same \xc3\xa9 bytez " * 200
    crc, size = zlib.crc32(text), len(text)
    stored = StoredTexts(text + text + edited)
    first = stored.read((0, size), crc)
    assert first == text.decode() and stored.read((size, size), crc) is first
    with pytest.raises(LostText, match="its CRC-32 differs"):
        stored.read((2 * size, size), crc)  # checked, not taken for the text before
