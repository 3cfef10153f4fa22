"""A generation's compaction trigger is a field of its ``generation`` record: written with the
outcome, read back on resume, and absent (shown as "trigger not recorded") in older logs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from steiner_tui.app.widgets.lineage_view import generation_heading, generation_row
from steiner_tui.engine.compaction.triggers import MANUAL, NOT_RECORDED, SOFT_THRESHOLD
from steiner_tui.sessions.loader import load_session
from tests.sessions.conftest import OpenSession

FIXTURE = Path(__file__).parent / "fixtures" / "v1_session"


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


def test_an_older_log_loads_and_says_the_trigger_was_not_recorded(tmp_path: Path) -> None:
    directory = tmp_path / "v1_session"
    shutil.copytree(FIXTURE, directory)
    assert all("trigger" not in r["outcome"] for r in _generation_records(directory))  # type: ignore[operator]
    loaded = load_session(directory)
    assert loaded.problems == ()
    compacted = [g for g in loaded.lineage.generations if g.outcome is not None]
    assert compacted and all(g.outcome is not None and g.outcome.trigger == "" for g in compacted)
    for generation in compacted:
        assert NOT_RECORDED in generation_row(generation)
        assert NOT_RECORDED in generation_heading(generation)
