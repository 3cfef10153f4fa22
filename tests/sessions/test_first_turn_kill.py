"""A session killed during its first turn is listed with its title and resumed as the latest."""

from __future__ import annotations

import asyncio
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from steiner_tui.agent.clock import ManualClock
from steiner_tui.sessions.store import SessionStore
from tests.agent.fakes import Reply
from tests.sessions.conftest import OpenSession
from tests.sessions.test_sessions_command import _run


async def _killed_in_first_turn(open_session: OpenSession, clock: ManualClock) -> tuple[str, str]:
    """An older finished session, then a newer one killed while its first reply streams:
    the killed folder is a copy of what was on disk at that moment. Returns both ids."""
    older = open_session()
    await older.driver.submit("an older question")
    older.log.close()
    clock.advance(timedelta(minutes=5))

    block = asyncio.Event()
    reply = Reply(["Hel", "lo"], block=block)
    harness = open_session([reply], partial_interval=0.0)
    task = asyncio.create_task(harness.driver.submit("the killed question\nsecond line"))
    await reply.reached.wait()
    directory = harness.session_dir
    aside = directory.parent.parent / "killed"
    shutil.copytree(directory, aside)  # the process is killed here
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    harness.log.close()
    shutil.rmtree(directory)
    aside.rename(directory)
    return older.session_id, harness.session_id


async def test_a_session_killed_in_its_first_turn_is_the_latest(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path, project: Path
) -> None:
    older, killed = await _killed_in_first_turn(open_session, clock)
    store = SessionStore(sessions_base)
    latest = store.latest(project)
    assert latest is not None and latest.session_id == killed
    assert latest.meta.title == "the killed question"
    assert latest.meta.messages == 1
    assert [row.session_id for row in store.list(project)] == [killed, older]
    code, out, _ = _run(sessions_base, "list")
    assert code == 0 and "the killed question" in out
    resumed = open_session(resume="latest")
    assert resumed.session_id == killed
    assert resumed.runner.lineage.active.messages[-1].incomplete


@pytest.mark.parametrize("meta", ["missing", "unreadable"])
async def test_a_killed_session_without_meta_is_derived_from_the_head_of_its_log(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path, project: Path, meta: str
) -> None:
    """As an earlier version left it: no ``meta.json`` before the first turn boundary."""
    _, killed = await _killed_in_first_turn(open_session, clock)
    path = sessions_base / killed / "meta.json"
    if meta == "missing":
        path.unlink(missing_ok=True)
    else:
        path.write_text("{not json")
    latest = SessionStore(sessions_base).latest(project)
    assert latest is not None and latest.session_id == killed
    assert latest.meta.title == "the killed question"
    assert latest.meta.model == "fake-model" and latest.meta.messages == 1
    code, out, _ = _run(sessions_base, "list")
    assert code == 0 and "the killed question" in out


async def test_only_the_head_of_a_log_without_meta_is_read(
    open_session: OpenSession, clock: ManualClock, sessions_base: Path, project: Path
) -> None:
    """A first message beyond the head read is not found: the session has no title, and the
    list reads no more of its log."""
    harness = open_session()
    await harness.driver.submit("x" * (300 * 1024))
    harness.log.close()
    (harness.session_dir / "meta.json").unlink()
    row = SessionStore(sessions_base).info(harness.session_id)
    assert row.problem == "" and row.meta.title == "" and row.meta.messages == 0
    assert row.meta.model == "fake-model"
