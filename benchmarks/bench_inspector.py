"""Opening the views of unbounded size: the inspector, the lineage browser, the history archive.

First, the longest event-loop stall while each view opens, large over small, each target <= 2x
(issue 30): the request inspector over 10,000 requests / 10, the lineage browser over 100
generations / 1, the history archive (``h`` in the browser) of 1 MB / 1 KB. A heartbeat task on
the app's event loop (``asyncio.sleep`` of 5 ms, again and again) records the longest gap between
its beats from the key (or ``push_screen``) until the view shows what it opened (the inspector's
detail, the browser's summary and facts, the archive's last line); a gap is time the loop could
not run anything else: keys, frames, timers. The median over ``REPEATS`` opens of each, small
and large taking turns in one app, the garbage collected before each (``_stalls``). The garbage
collector's heap is frozen after the imports, as the ``steiner-tui`` command does.

Then the request inspector's open time at 10,000 requests / at 100 requests (issue 14, target
< 2x).

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
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402
from textual.pilot import Pilot  # noqa: E402
from textual.screen import Screen  # noqa: E402

from steiner_tui.app.screens.inspector import InspectorScreen  # noqa: E402
from steiner_tui.app.screens.lineage import HISTORY_RETURN, LineageScreen  # noqa: E402
from steiner_tui.app.widgets.lineage_detail import GenerationSummary  # noqa: E402
from steiner_tui.engine.compaction.history_render import render_history  # noqa: E402
from steiner_tui.engine.compaction.lineage import ConversationLineage  # noqa: E402
from steiner_tui.engine.events import CompactionOutcome, RequestSnapshot  # noqa: E402
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


STALL_TARGET = 2.0
BEAT = 0.005
"""The heartbeat's sleep: a gap longer than this is a stall of the event loop."""


class Heartbeat:
    """A task on the running loop that sleeps ``BEAT`` again and again, keeping the longest
    time it waited beyond that."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _beat(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(BEAT)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - BEAT)
            last = now

    def start(self) -> None:
        gc.collect()  # see ``_stalls``
        self.longest = 0.0
        self._task = asyncio.create_task(self._beat())

    async def stop(self) -> float:
        assert self._task is not None
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        return self.longest


async def _until(pilot: Pilot[None], shown: object) -> None:
    """Let the app run until ``shown()`` is true (the view shows what it opened)."""
    assert callable(shown)
    while not shown():
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def _summary_shown(screen: Screen[None]) -> bool:
    summary = screen.query(GenerationSummary)
    return bool(summary) and summary.first().rendered is not None


def _history_shown(screen: Screen[None]) -> bool:
    views = screen.query("#history")
    return bool(views) and views.first().border_subtitle == HISTORY_RETURN


async def _stalls(openers: Sequence[object], repeats: int) -> list[list[float]]:
    """The longest stall of each of ``repeats`` opens of each opener, taking turns in one app
    after a warm-up open of each: ``opener(app, pilot, beat)`` starts the heartbeat, opens the
    view and returns a test of whether it is shown. The heartbeat collects the garbage as it
    starts (not timed): a full collection costs as much as the heap holds whatever opens, and each
    app a run starts leaves objects behind, so without it the one measured second paid 40-60 ms
    collections the first did not (a 1 KB archive measured after a 1 MB one stalled 60 ms)."""
    stalls: list[list[float]] = [[] for _ in openers]
    app = _Host()
    async with app.run_test(size=SIZE, headless=True) as pilot:
        for repeat in range(repeats + 1):
            for opener, found in zip(openers, stalls, strict=True):
                assert callable(opener)
                beat = Heartbeat()
                await _until(pilot, await opener(app, pilot, beat))
                stall = await beat.stop()
                if repeat:  # the first is the warm-up: modules and styles load once
                    found.append(stall)
                while len(app.screen_stack) > 1:
                    app.pop_screen()
                    await pilot.pause()
    return stalls


def inspector_opener(store: SnapshotStore) -> object:
    async def open_inspector(app: App[None], pilot: Pilot[None], beat: Heartbeat) -> object:
        beat.start()
        await app.push_screen(InspectorScreen(store))
        return lambda: True

    return open_inspector


def lineage_opener(lineage: ConversationLineage) -> object:
    async def open_lineage(app: App[None], pilot: Pilot[None], beat: Heartbeat) -> object:
        screen = LineageScreen(lineage)
        beat.start()
        await app.push_screen(screen)
        return lambda: _summary_shown(screen)

    return open_lineage


def history_opener(lineage: ConversationLineage, path: Path) -> object:
    """Opens the browser (not timed: the heartbeat starts with ``h``), then the archive."""

    async def open_history(app: App[None], pilot: Pilot[None], beat: Heartbeat) -> object:
        screen = LineageScreen(lineage, path)
        await app.push_screen(screen)
        await _until(pilot, lambda: _summary_shown(screen))
        beat.start()
        await pilot.press("h")
        return lambda: _history_shown(screen)

    return open_history


def generations(count: int) -> ConversationLineage:
    """A lineage of ``count`` compactions, each summary some 3 KB of Markdown."""
    start = datetime(2026, 9, 13, 9, 0, tzinfo=UTC)
    lineage = ConversationLineage.start(_turns(0, 40), at=start)
    for n in range(1, count + 1):
        summary = _summary(n)
        at = start + timedelta(minutes=20 * n)
        outcome = CompactionOutcome(
            applied=True,
            stage_count=1,
            modes=("normal",),
            before_tokens=120_000 + n,
            after_tokens=9_000 + n,
            summary_model="offline/offline-summary",
            fallback_status="skipped",
            at=at,
            summarized_count=36,
            retained_count=4,
            summary=summary,
            trigger="soft threshold",
        )
        messages = [Message("summary", summary), *_turns(40 * n, 40)]
        lineage = lineage.advance(messages, summary, outcome, at)
    return lineage


def _turns(first: int, count: int) -> list[Message]:
    messages: list[Message] = []
    for turn in range(first, first + count // 4):
        call = ToolCall(f"c{turn}", "read", {"path": f"src/module_{turn}.py"})
        messages += [
            Message("user", f"Question {turn}: what does src/module_{turn}.py do?", turn=turn),
            Message("assistant", "Reading it.", tool_calls=(call,), turn=turn),
            Message("tool", f"def f{turn}():\n    return {turn}\n", tool_call_id=call.id),
            Message("assistant", f"## Module {turn}\n\n- defines `f{turn}`", turn=turn),
        ]
    return messages


def _summary(n: int) -> str:
    done = "\n".join(f"- Read `src/module_{40 * n + k}.py`: defines `f{k}`." for k in range(40))
    return f"## Goal\nDocument every module (round {n}).\n\n## Done\n{done}\n\n## Next\n- More."


def archive(size: int, folder: Path) -> Path:
    """A ``history.md`` of about ``size`` bytes, as compaction writes it."""
    text = ""
    turn = 0
    while len(text) < size:
        text += render_history(_turns(turn, 400))
        turn += 100
    path = folder / f"history-{size}.md"
    path.write_text(text[:size], encoding="utf-8")
    return path


def stall_ratio(name: str, small: object, large: object, sizes: tuple[str, str]) -> bool:
    """Print the median longest stall of opening the large view over the small one's."""
    a, b = map(statistics.median, asyncio.run(_stalls([small, large], REPEATS)))
    ratio = b / max(a, BEAT)
    met = ratio <= STALL_TARGET
    print(
        f"{name}: longest stall {sizes[1]} {b * 1000:.0f} ms / {sizes[0]} {a * 1000:.0f} ms"
        f" = {ratio:.2f}x (target <= {STALL_TARGET:g}x): {'met' if met else 'MISSED'}"
    )
    return met


def stalls(base: Sequence[RequestSnapshot], folder: Path) -> bool:
    """The three stall ratios; True when all were met."""
    one, hundred = generations(1), generations(100)
    return all(
        [
            stall_ratio(
                "inspector",
                inspector_opener(replayed(base, 10)),
                inspector_opener(replayed(base, LARGE)),
                ("10 requests", f"{LARGE:,} requests"),
            ),
            stall_ratio(
                "lineage browser",
                lineage_opener(one),
                lineage_opener(hundred),
                ("1 generation", "100 generations"),
            ),
            stall_ratio(
                "history archive",
                history_opener(one, archive(1_000, folder)),
                history_opener(one, archive(1_000_000, folder)),
                ("1 KB", "1 MB"),
            ),
        ]
    )


def main(argv: list[str]) -> int:
    gc.freeze()  # as the command does after its imports
    base = scripted(2_000)
    with tempfile.TemporaryDirectory() as folder:
        met = stalls(base, Path(folder))
    met = report(replayed(base, SMALL), replayed(base, LARGE)) and met
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
