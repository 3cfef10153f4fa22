"""A generation's compaction trigger is a field of its ``generation`` record: written with the
outcome, read back on resume, and absent (shown as "trigger not recorded") when not recorded."""

from __future__ import annotations

import json
from pathlib import Path

from steiner_tui.app.widgets.lineage_view import generation_heading, generation_row
from steiner_tui.engine.compaction.triggers import MANUAL, NOT_RECORDED, SOFT_THRESHOLD
from steiner_tui.sessions.loader import load_session
from tests.sessions.conftest import OpenSession


def _generation_records(directory: Path) -> list[dict[str, object]]:
    lines = (directory / "session.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return [r for r in records if r["type"] == "generation" and r.get("outcome")]


async def test_the_trigger_is_written_and_read_back(open_session: OpenSession) -> None:
    harness = open_session(window=4000)
    for index in range(30):
        await harness.driver.submit(f"filler {index} " + "lorem ipsum " * 60)
        if len(harness.runner.lineage.generations) > 1:
            break
    await harness.driver.submit("one more")  # something new since the last compaction
    await harness.driver.compact("")
    lineage = harness.runner.lineage
    harness.log.close()
    written = [r["outcome"]["trigger"] for r in _generation_records(harness.session_dir)]  # type: ignore[index]
    assert written == [SOFT_THRESHOLD, MANUAL]
    loaded = load_session(harness.session_dir)
    assert loaded.problems == () and loaded.lineage == lineage
    outcomes = [g.outcome for g in loaded.lineage.generations[1:]]
    assert [o.trigger for o in outcomes if o is not None] == [SOFT_THRESHOLD, MANUAL]


async def test_an_outcome_without_a_trigger_says_it_was_not_recorded(
    open_session: OpenSession,
) -> None:
    harness = open_session(window=4000)
    for index in range(30):
        await harness.driver.submit(f"filler {index} " + "lorem ipsum " * 60)
        if len(harness.runner.lineage.generations) > 1:
            break
    harness.log.close()
    path = harness.session_dir / "session.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for record in records:
        if record["type"] == "generation" and record.get("outcome"):
            del record["outcome"]["trigger"]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert all("trigger" not in r["outcome"] for r in _generation_records(harness.session_dir))  # type: ignore[operator]
    loaded = load_session(harness.session_dir)
    assert loaded.problems == ()
    compacted = [g for g in loaded.lineage.generations if g.outcome is not None]
    assert compacted and all(g.outcome is not None and g.outcome.trigger == "" for g in compacted)
    for generation in compacted:
        assert NOT_RECORDED in generation_row(generation)
        assert NOT_RECORDED in generation_heading(generation)
