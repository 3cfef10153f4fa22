"""Issue 31's thrash target: file reads on small offline windows, counted in compactions.

Each scenario is a real session (the one session factory, the offline model, its tools and
its compaction) where every message asks to read one file, copied into a fresh project:

* 8,192 window, 7 messages: 3 KB and 6 KB generated modules; seven of this project's own
  sources of 3-12 KB evenly spread by size; and 30 random draws of seven own sources of
  2-15 KB (what a reviewer reads).
* 16,384 and 32,768 windows, 31 messages: random draws of own sources of 2-15 KB.

Printed per scenario: compactions, the most in one message, and each compaction's post/pre
token ratio (the Codex fleet median is 0.11; on an 8k window the fixed part of a request
alone is about 0.36 of a prompt at the trigger). Target: on the 8k window at most 2
compactions in 7 messages, never two in one message; the exit status says whether it holds.

Run: ``uv run python benchmarks/bench_small_window_reads.py``
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.config import parse_config
from steiner_tui.engine.events import CompactionApplied, ListSink
from steiner_tui.engine.messages import Message

SOURCES = Path(__file__).resolve().parent.parent / "steiner_tui"
DRAWS = 30


def _module(index: int, size: int) -> str:
    line = "def helper_{i}_{j}(value):\n    return value * {j} + {i}  # step {j} of module {i}\n"
    return "".join(line.format(i=index, j=j) for j in range(size // 70))


def _sources(low: int, high: int) -> list[Path]:
    return sorted(p for p in SOURCES.rglob("*.py") if low <= p.stat().st_size <= high)


def _spread(count: int = 7) -> list[Path]:
    """``count`` own sources of 3-12 KB evenly spread by size, largest first."""
    files = sorted(_sources(3_000, 12_288), key=lambda p: p.stat().st_size)
    return [files[round(n * (len(files) - 1) / (count - 1))] for n in range(count - 1, -1, -1)]


def _session_reads(
    project: Path, window: int, files: dict[str, str]
) -> list[list[CompactionApplied]]:
    """Read each file in its own message; the compactions of each message."""
    project.mkdir(parents=True)
    for name, text in files.items():
        (project / name).write_text(text, encoding="utf-8")
    config = parse_config([("c", {"models": {"offline/offline": {"context_window": window}}})])
    sink = ListSink()
    request = SessionRequest(
        project, config, env={}, session_id="bench", record=False, delegation=None, sink=sink
    )
    session = build_session(request)
    per_message: list[list[CompactionApplied]] = []
    try:
        for name in files:
            start = len(sink.events)
            asyncio.run(session.runner.run(Message("user", f"read {name}")))
            events = sink.events[start:]
            per_message.append([e for e in events if isinstance(e, CompactionApplied)])
    finally:
        session.close()
    return per_message


def _named(paths: list[Path]) -> dict[str, str]:
    return {f"{n}_{p.name}": p.read_text(encoding="utf-8") for n, p in enumerate(paths)}


def _ratios(per_message: list[list[CompactionApplied]]) -> list[float]:
    return [
        e.outcome.after_tokens / max(1, e.outcome.before_tokens) for m in per_message for e in m
    ]


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="bench-small-window-"))
    held = True
    print("8,192 window, 7 reads (target: <= 2 compactions, never two in one message)")
    fixed = {
        "3 KB modules": {f"mod{i}.py": _module(i, 3_000) for i in range(7)},
        "6 KB modules": {f"mod{i}.py": _module(i, 6_000) for i in range(7)},
        "own sources 3-12 KB": _named(_spread()),
    }
    for label, files in fixed.items():
        per_message = _session_reads(root / label.replace(" ", "-"), 8192, files)
        count = sum(map(len, per_message))
        most = max(map(len, per_message))
        held = held and count <= 2 and most <= 1
        ratios = " ".join(f"{r:.2f}" for r in _ratios(per_message))
        print(f"  {label:<22} {count} compactions, at most {most} in a message; post/pre {ratios}")
    rng = random.Random(31)
    pool = _sources(2_000, 15_500)
    counts: dict[int, int] = {}
    twice = 0
    ratios: list[float] = []
    for draw in range(DRAWS):
        per_message = _session_reads(root / f"draw{draw}", 8192, _named(rng.sample(pool, 7)))
        count = sum(map(len, per_message))
        counts[count] = counts.get(count, 0) + 1
        twice += max(map(len, per_message)) > 1
        ratios += _ratios(per_message)
        held = held and count <= 2
    spread = ", ".join(f"{n}: {counts[n]}" for n in sorted(counts))
    print(
        f"  {DRAWS} draws of own sources 2-15 KB: compactions {{{spread}}}, "
        f"two in one message in {twice}; post/pre median {statistics.median(ratios):.2f}, "
        f"max {max(ratios):.2f}"
    )
    held = held and twice == 0
    for window in (16_384, 32_768):
        print(f"{window:,} window, 31 reads of own sources 2-15 KB")
        for seed in range(3):
            picked = random.Random(seed).sample(pool, 31)
            per_message = _session_reads(root / f"w{window}-{seed}", window, _named(picked))
            ratios = _ratios(per_message)
            median = f"{statistics.median(ratios):.2f}" if ratios else "-"
            print(
                f"  seed {seed}: {sum(map(len, per_message))} compactions, at most "
                f"{max(map(len, per_message))} in a message; post/pre median {median}"
            )
    print("target held" if held else "TARGET MISSED")
    return 0 if held else 1


if __name__ == "__main__":
    raise SystemExit(main())
