"""Request inspector open time at 10,000 requests / at 100 requests (issue 14, target < 2x).

Opening the inspector (F2) lists the session's requests and shows the latest in detail. It
reads the session's ``SnapshotStore``: a page of request summaries (no request rebuilt to list
it) and the one request on show. This measures the uncached path: every open is a fresh
``InspectorScreen`` over the store, from ``push_screen`` to its first frame painted, in a
headless Textual app; the median of ``REPEATS`` opens per store size, both sizes in one run.

``bench_soak.py`` calls ``open_ratio`` with stores filled from its own traffic; run alone, this
script replays a scripted session (a growing conversation of real source files of this
repository, two requests a turn) into stores of 100 and 10,000 requests.

Run: ``uv run python benchmarks/bench_inspector.py``. Exit 1 when the target is missed.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402

from steiner_tui.app.screens.inspector import InspectorScreen  # noqa: E402
from steiner_tui.engine.events import RequestSnapshot  # noqa: E402
from steiner_tui.engine.messages import Message, ToolCall  # noqa: E402
from steiner_tui.engine.snapshots import SnapshotStore, build_request_snapshot  # noqa: E402

SMALL, LARGE = 100, 10_000
TARGET = 2.0
REPEATS = 7
SIZE = (120, 36)


class _Host(App[None]):
    """A bare app the inspector opens over."""


async def _open_times(store: SnapshotStore, repeats: int) -> list[float]:
    times: list[float] = []
    app = _Host()
    async with app.run_test(size=SIZE, headless=True) as pilot:
        for _ in range(repeats):
            start = time.perf_counter()
            await app.push_screen(InspectorScreen(store))
            await pilot.pause()  # the first frame of the screen is painted
            times.append(time.perf_counter() - start)
            app.pop_screen()
            await pilot.pause()
    return times


def open_seconds(store: SnapshotStore, repeats: int = REPEATS) -> float:
    """The median time to open a fresh inspector over ``store``."""
    return statistics.median(asyncio.run(_open_times(store, repeats)))


def replayed(snapshots: Sequence[RequestSnapshot], count: int) -> SnapshotStore:
    """A store of ``count`` requests: ``snapshots`` in order, again from the first when they
    run out (as after a ``/clear``), numbered 1 to ``count``."""
    store = SnapshotStore()
    for n in range(count):
        store.store(msgspec.structs.replace(snapshots[n % len(snapshots)], index=n + 1))
    return store


def open_ratio(small: SnapshotStore, large: SnapshotStore) -> tuple[float, float, float]:
    """``(small seconds, large seconds, large / small)``; a warm-up open comes first (the
    inspector's modules and styles load once per process, not per open)."""
    open_seconds(small, 1)
    a, b = open_seconds(small), open_seconds(large)
    return a, b, b / a


@dataclass(frozen=True)
class _Estimate:
    tokens: int
    raw_tokens: int
    strategy: str = "heuristic"
    confidence: str = "medium"


def scripted(requests: int) -> list[RequestSnapshot]:
    """Requests of a growing conversation: user, read call, file content, reply."""
    files = sorted(p for p in (ROOT / "steiner_tui").rglob("*.py") if p.stat().st_size > 1000)
    conversation: list[Message] = [Message("system", "You are a coding assistant.")]
    snapshots: list[RequestSnapshot] = []
    start = datetime(2026, 9, 13, 9, 0, tzinfo=UTC)
    turn = 0
    while len(snapshots) < requests:
        turn += 1
        path = files[turn % len(files)]
        call = ToolCall(f"c{turn}", "read", {"path": str(path.relative_to(ROOT))})
        conversation.append(Message("user", f"turn {turn}: what does it do?", turn=turn))
        conversation.append(Message("assistant", "Reading.", tool_calls=(call,), turn=turn))
        text = path.read_text(encoding="utf-8")[:40_000]
        conversation.append(Message("tool", text, tool_call_id=call.id, turn=turn))
        for _ in range(2):
            size = sum(len(m.content) for m in conversation) // 4
            snapshots.append(
                build_request_snapshot(
                    request_id=f"r{len(snapshots)}",
                    index=len(snapshots) + 1,
                    model="offline",
                    provider="offline",
                    time=start + timedelta(seconds=30 * len(snapshots)),
                    messages=conversation,
                    blocks=(),
                    block_message_count=0,
                    tools=(),
                    max_tokens=4096,
                    estimate=_Estimate(size, size),
                )
            )
        conversation.append(Message("assistant", f"Turn {turn} done.", turn=turn))
    return snapshots[:requests]


def report(small: SnapshotStore, large: SnapshotStore) -> bool:
    """Print the figures; True when the target was met."""
    a, b, ratio = open_ratio(small, large)
    print(f"inspector open at {len(small):,} requests: {a * 1000:.1f} ms (information)")
    print(f"inspector open at {len(large):,} requests: {b * 1000:.1f} ms (information)")
    met = ratio < TARGET
    print(
        f"inspector open {len(large):,} / {len(small):,} requests: {ratio:.2f}x "
        f"(target < {TARGET}x): {'met' if met else 'MISSED'}"
    )
    return met


def main(argv: list[str]) -> int:
    base = scripted(2_000)
    return 0 if report(replayed(base, SMALL), replayed(base, LARGE)) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
