"""Pins are records of the session log: they survive resume, compaction and fork."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.agent.clock import ManualClock
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.loader import load_session
from steiner_tui.sessions.store import SessionStore
from tests.sessions.conftest import OpenSession


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (path / "session.jsonl").read_text().splitlines()]


async def test_pins_survive_resume_and_unpins_are_recorded(open_session: OpenSession) -> None:
    harness = open_session()
    await harness.driver.submit("always keep the public API stable")
    await harness.driver.submit("and the second rule")
    runner = harness.runner
    first, second = runner.conversation[0], runner.conversation[2]
    runner.pin(first)
    runner.pin(second)
    runner.unpin(pin_key(second))
    harness.log.close()
    directory = harness.session_dir
    pins = [r for r in _records(directory) if r["type"] == "pin"]
    assert [(r["key"], r.get("pinned", True)) for r in pins] == [
        (pin_key(first), True),
        (pin_key(second), True),
        (pin_key(second), False),
    ]
    assert pins[0]["label"] == 'user (turn 1): "always keep the public API stable"'
    loaded = load_session(directory)
    assert loaded.problems == () and loaded.lineage.pins == (pin_key(first),)
    resumed = open_session(resume=harness.session_id)
    assert resumed.runner.lineage.pins == (pin_key(first),)
    assert resumed.runner.pinned_messages() == (first,)


async def test_a_pinned_message_survives_compaction_resume_and_fork(
    open_session: OpenSession, sessions_base: Path, clock: ManualClock
) -> None:
    harness = open_session(window=4000)
    await harness.driver.submit("rule: answer in French")
    rule = harness.runner.conversation[0]
    harness.runner.pin(rule)
    for index in range(30):
        await harness.driver.submit(f"filler {index} " + "lorem ipsum " * 60)
    lineage = harness.runner.lineage
    assert len(lineage.generations) > 2  # compacted more than once
    assert rule in lineage.active.messages
    harness.log.close()
    session_id = harness.session_id
    loaded = load_session(harness.session_dir)
    assert loaded.lineage == lineage and rule in loaded.lineage.active.messages
    fork = fork_session(SessionStore(sessions_base), session_id, clock=clock.now)
    forked = load_session(fork.directory)
    assert forked.problems == () and forked.lineage.pins == (pin_key(rule),)
    assert rule in forked.lineage.active.messages
