"""Session ids, listing, deletion, eviction and forks."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.sessions.fork import cut_lineage, fork_session
from steiner_tui.sessions.ids import SESSION_ID_MAX_LENGTH, validate_session_id
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.store import LIST_COLUMNS, SessionNotFoundError, SessionStore
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession


@pytest.mark.parametrize("good", ["abc", "0f3a9b2c11de", "fork-1.2_x", "A" * SESSION_ID_MAX_LENGTH])
def test_valid_ids(good: str) -> None:
    assert validate_session_id(good) == good


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("", "empty"),
        ("a/b", "path separators"),
        ("a\\b", "path separators"),
        ("..", r"'\.\.'"),
        ("a..b", r"'\.\.'"),
        (".hidden", "start with a letter or digit"),
        ("-x", "start with a letter or digit"),
        ("héllo", "ASCII"),
        ("a b", "ASCII"),
        ("x" * (SESSION_ID_MAX_LENGTH + 1), "longer than"),
    ],
)
def test_invalid_ids_name_the_id(bad: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason) as info:
        validate_session_id(bad)
    assert repr(bad) in str(info.value)


async def _three_sessions(open_session: OpenSession, clock: ManualClock) -> list[str]:
    ids = []
    for text in ("first", "second", "third"):
        harness = open_session()
        await harness.driver.submit(text)
        harness.log.close()
        ids.append(harness.session_id)
        clock.advance(timedelta(minutes=10))
    return ids


async def test_list_newest_first_with_meta(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path, project: Path
) -> None:
    ids = await _three_sessions(open_session, clock)
    store = SessionStore(sessions_base)
    rows = store.list()
    assert [r.session_id for r in rows] == ids[::-1]
    assert rows[0].meta.title == "third"
    assert rows[0].meta.generations == 1 and rows[0].meta.messages == 2
    assert rows[0].cells()[LIST_COLUMNS.index("gen")] == "0"  # never compacted: generation 0
    assert [r.session_id for r in store.list(project)] == ids[::-1]
    assert store.list(project / "elsewhere") == []
    latest = store.latest(project)
    assert latest is not None and latest.session_id == ids[-1]


async def test_listing_survives_broken_sessions(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _three_sessions(open_session, clock)
    (sessions_base / ids[0] / "meta.json").write_text("{not json")
    (sessions_base / ids[1] / "session.jsonl").write_bytes(b"\xff garbage\n")
    (sessions_base / "empty1").mkdir()
    (sessions_base / ".fork-tmp").mkdir()
    (sessions_base / "stray.txt").write_text("x")
    store = SessionStore(sessions_base)
    rows = {r.session_id: r for r in store.list()}
    assert set(rows) == {*ids, "empty1"}
    assert rows["empty1"].problem == "no session log"
    assert rows[ids[0]].meta.model == "fake-model"  # derived from the header line
    assert load_session(sessions_base / ids[2]).problems == ()
    assert [p.line_number for p in load_session(sessions_base / ids[1]).problems] == [1]


async def test_delete_removes_the_whole_folder(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _three_sessions(open_session, clock)
    (sessions_base / ids[1] / "history.md").write_text("### User\n\nold\n")
    store = SessionStore(sessions_base)
    store.delete(ids[1])
    assert not (sessions_base / ids[1]).exists()
    assert [r.session_id for r in store.list()] == [ids[2], ids[0]]
    with pytest.raises(SessionNotFoundError):
        store.delete(ids[1])
    with pytest.raises(ValueError, match="invalid session id"):
        store.delete("../" + ids[0])
    assert (sessions_base / ids[0]).is_dir()


async def test_evict_keeps_the_newest(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    ids = await _three_sessions(open_session, clock)
    store = SessionStore(sessions_base)
    result = store.evict(1, protect={ids[0]})
    assert result.removed == (ids[1],)
    assert {r.session_id for r in store.list()} == {ids[0], ids[2]}
    assert store.evict(0).removed == (ids[2], ids[0])
    assert store.list() == []
    with pytest.raises(ValueError, match="negative"):
        store.evict(-1)


def _hidden_entries(base: Path) -> list[str]:
    return [path.name for path in base.iterdir() if path.name.startswith(".")]


async def _compacted_session(open_session: OpenSession) -> tuple[str, ConversationLineage]:
    harness = open_session(window=4000, tools=False)
    for turn in range(12):
        await harness.driver.submit(f"request {turn}: " + "lorem ipsum dolor " * 50)
    harness.log.close()
    lineage = harness.runner.lineage
    assert len(lineage.generations) >= 2
    return harness.session_id, lineage


async def test_fork_by_generation(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    source, lineage = await _compacted_session(open_session)
    (sessions_base / source / "history.md").write_text("### User\n\narchived\n")
    store = SessionStore(sessions_base)
    result = fork_session(store, source, clock=clock.now, generation=0, new_id="fork1")
    loaded = load_session(sessions_base / "fork1")
    assert loaded.problems == ()
    assert loaded.lineage == ConversationLineage((lineage.generations[0],))
    assert result.lineage == loaded.lineage
    assert loaded.header is not None and loaded.header.forked_from == f"{source}@g0"
    assert loaded.prompt_cache_key == "steiner-fork1"
    assert (sessions_base / "fork1" / "history.md").read_text() == "### User\n\narchived\n"
    assert store.info("fork1").meta.forked_from == f"{source}@g0"
    # The active generation's number, as the status line and the lineage browser say it.
    gen = LIST_COLUMNS.index("gen")
    assert store.info(source).cells()[gen] == str(lineage.active.id)
    assert store.info("fork1").cells()[gen] == "0"
    assert load_session(sessions_base / source).lineage == lineage  # the source is untouched
    assert _hidden_entries(sessions_base) == []


async def test_fork_by_message(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    source, lineage = await _compacted_session(open_session)
    store = SessionStore(sessions_base)
    result = fork_session(store, source, clock=clock.now, message=2)
    loaded = load_session(result.directory)
    assert loaded.lineage.generations[:-1] == lineage.generations[:-1]
    assert loaded.lineage.active.messages == lineage.active.messages[:2]
    assert loaded.lineage.active.summary == lineage.active.summary
    with pytest.raises(ValueError, match="no generation 99"):
        fork_session(store, source, clock=clock.now, generation=99)
    with pytest.raises(ValueError, match="message must be between"):
        fork_session(store, source, clock=clock.now, message=10_000)
    with pytest.raises(FileExistsError):
        fork_session(store, source, clock=clock.now, new_id=result.session_id)


def test_cut_lineage_drops_backend_state() -> None:
    lineage = ConversationLineage.start(backend_state="resp-1")
    assert cut_lineage(lineage).active.backend_state is None


async def test_forked_session_resumes(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path
) -> None:
    harness = open_session([Reply(["a"]), Reply(["b"])])
    await harness.driver.submit("one")
    await harness.driver.submit("two")
    harness.log.close()
    store = SessionStore(sessions_base)
    fork = fork_session(store, harness.session_id, clock=clock.now, message=2)
    resumed = open_session([Reply(["c"])], resume=fork.session_id)
    await resumed.driver.submit("three")
    resumed.log.close()
    contents = [m.content for m in load_session(fork.directory).lineage.active.messages]
    assert contents == ["one", "a", "three", "c"]
    header = json.loads((fork.directory / "session.jsonl").read_text().splitlines()[0])
    assert header["type"] == "header" and header["session_id"] == fork.session_id
