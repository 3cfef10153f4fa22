"""A normal stage whose result passes the soft trigger but not the hard fit runs emergency too.

Driven through the runner with the offline model on an 8,192-token window whose 4,096-token
completion reserve cannot be clamped lower: the compacted state must leave room for it, or the
next request could never be sent.
"""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


async def test_emergency_runs_when_the_normal_result_does_not_fit(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_fidelity_runner import run_session  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCHMARKS))
    recorder = await run_session(tmp_path, max_output=4096)  # raises if a turn ends in error
    assert len(recorder.rows) >= 5
    assert any(row.modes == "normal+emergency" for row in recorder.rows), recorder.rows
    assert all(row.share >= 0.8 for row in recorder.rows[:3])
