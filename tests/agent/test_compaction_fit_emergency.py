"""Compaction leaves room for the completion reserve, through the runner and the offline model.

Driven with the offline model on an 8,192-token window whose 4,096-token completion reserve
cannot be clamped lower: every compacted state must leave room for it, or the next request could
never be sent (the fidelity session raises when a turn ends in an error). The engine-level rule
(a normal result that passes the soft trigger but not the hard fit runs the emergency stage) is
pinned in ``tests/engine/compaction/test_operation.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


async def test_every_compacted_state_leaves_room_for_the_reserve(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_fidelity_runner import run_session  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCHMARKS))
    recorder = await run_session(tmp_path, max_output=4096)  # raises if a turn ends in error
    assert len(recorder.rows) >= 5
    assert all(row.share >= 0.8 for row in recorder.rows[:3])
