"""Run every benchmark in this folder, one after another, and print what each measured.

Each ``bench_*.py`` is a plain script that measures its figures within one run and prints
ratios (the machines are shared and noisy, so absolute times are informational only).

Run: ``uv run python benchmarks/run_all.py`` (all), or ``... run_all.py bench_turns`` (one).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    selected = set(argv)
    scripts = sorted(p for p in HERE.glob("bench_*.py") if not selected or p.stem in selected)
    failures = 0
    for script in scripts:
        print(f"\n=== {script.stem} ===", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], check=False)
        print(f"--- {script.stem}: exit {result.returncode} in {time.perf_counter() - start:.1f}s")
        failures += result.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
