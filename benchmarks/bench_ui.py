"""UI speed: first frame against a bare Textual app, and key presses with 5,000 messages loaded.

1. First frame: the time from building the app to its first painted screen (``run_test`` entered
   and one ``pilot.pause()``, which lays out and paints), for ``SteinerApp`` on the sample project
   and for a bare ``App`` with a ``Header`` and a ``Footer``. Median of several alternating runs;
   the session (engine side) is built before the clock starts and its build time is printed
   separately. Target: ratio < 1.5x.
2. A 5,000-message conversation (user questions, replies with Markdown, tool calls and
   results) is loaded into the session and the conversation pane. Each key press is timed from
   the key event to the first painted frame showing its effect (see ``key_to_frame``): typing in
   the prompt, scrolling the conversation line by line and page by page, and Home at the top,
   which mounts earlier messages. Target: p95 < 50 ms. For scale, the same keys are timed on a
   bare app holding only the mounted replies as Markdown widgets (Textual's own floor here).

The process runs with the app's garbage-collector settings (``gc_tuning``), as the CLI does.

Run: ``uv run python benchmarks/bench_ui.py``. Machines are shared and noisy; the ratio is the
figure to watch.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Markdown

from steiner_tui.agent.clock import ManualClock
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.gc_tuning import tune_gc_for_ui
from steiner_tui.app.session import AppSession, build_app_session
from steiner_tui.app.transcript import entries_from_messages
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message, ToolCall

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "app" / "fixtures" / "sample_project"
SIZE = (120, 36)
RUNS = 15
MESSAGES = 5_000
PRESSES = 60
KEY_TIMEOUT = 2.0
"""A key that shows no effect within this many seconds is not counted."""
POLL = 0.001


class BareApp(App[None]):
    """The baseline: a Header and a Footer."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Footer()


class BareScroll(App[None]):
    """The scrolling baseline: Textual's Markdown widgets in a VerticalScroll, nothing else."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__()
        self.texts = texts

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for text in self.texts:
                yield Markdown(text)
        yield Footer()


def _session(config: Path) -> AppSession:
    date = datetime(2026, 1, 1, tzinfo=UTC)
    return build_app_session(
        PROJECT,
        config_dir=config,
        clock=ManualClock(date),
        session_id="bench",
        session_date=date,
        watch=False,
        cursor_blink=False,
        record=False,
    )


async def _first_frame(build: Callable[[], App[None]]) -> float:
    start = time.perf_counter()
    app = build()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0)
        elapsed = time.perf_counter() - start
    return elapsed


async def first_frame(config: Path) -> None:
    builds: list[float] = []
    bare: list[float] = []
    ours: list[float] = []
    await _first_frame(BareApp)  # warm imports and caches for both
    await _first_frame(lambda: make_app(_session(config)))
    for _ in range(RUNS):
        start = time.perf_counter()
        session = _session(config)
        builds.append(time.perf_counter() - start)
        bare.append(await _first_frame(BareApp))
        ours.append(await _first_frame(lambda s=session: make_app(s)))  # type: ignore[misc]
    b, o = statistics.median(bare), statistics.median(ours)
    print(f"first frame: bare Header+Footer {b * 1000:.1f} ms, SteinerApp {o * 1000:.1f} ms")
    print(f"  session build (engine, before the app): {statistics.median(builds) * 1000:.1f} ms")
    print(f"  ratio SteinerApp / bare = {o / b:.2f}x (target < 1.5x)")


def conversation(count: int) -> list[Message]:
    """A realistic mix: question, tool call, tool result, Markdown answer."""
    messages: list[Message] = []
    turn = 0
    while len(messages) < count:
        turn += 1
        call = ToolCall(f"c{turn}", "read", {"path": f"src/module_{turn}.py"}, "")
        messages += [
            Message("user", f"Question {turn}: what does module {turn} do?", turn=turn),
            Message("assistant", "Reading it.", tool_calls=(call,), turn=turn),
            Message("tool", f"def f{turn}():\n    return {turn}\n", tool_call_id=call.id),
            Message(
                "assistant",
                f"## Module {turn}\n\n- defines `f{turn}`\n- returns **{turn}**\n",
                turn=turn,
            ),
        ]
    return messages[:count]


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18]


async def key_to_frame(app: App[None], key: str, changed: Callable[[], bool]) -> float | None:
    """Seconds from a key event to the first painted frame that shows its effect.

    The event is posted to the app as the terminal driver posts it (so priority bindings,
    forwarding to the focused widget and bubbling all happen). ``wait_for_refresh`` returns
    once the screen is idle with nothing left to paint, so "changed, then one more refresh"
    is the frame that shows the change. (``pilot.press`` cannot time this: it sleeps until
    the process looks idle, at least 40 ms per key.)
    """
    screen = app.screen
    start = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while time.perf_counter() - start < KEY_TIMEOUT:
        await screen.wait_for_refresh()
        if changed():
            await screen.wait_for_refresh()
            return time.perf_counter() - start
        await asyncio.sleep(POLL)
    return None  # the key changed nothing (e.g. scrolling past the top): not a sample


async def timed(
    app: App[None],
    keys: list[str],
    probe: Callable[[], object],
    settled: Callable[[], bool] = lambda: True,
) -> list[float]:
    """Time each key until ``probe()`` differs; wait for ``settled()`` before the next key."""
    times: list[float] = []
    for key in keys:
        before = probe()
        elapsed = await key_to_frame(app, key, lambda b=before: probe() != b)  # type: ignore[misc]
        if elapsed is not None:
            times.append(elapsed)
        while not settled():  # e.g. a smooth scroll still animating
            await app.screen.wait_for_refresh()
    return times


def report(name: str, times: list[float]) -> float:
    value = p95(times) * 1000
    print(f"  {name:<28} p50 {statistics.median(times) * 1000:6.1f} ms   p95 {value:6.1f} ms")
    return value


async def large_conversation(config: Path) -> None:
    session = _session(config)
    messages = conversation(MESSAGES)
    session.driver.replace_lineage(ConversationLineage.start(messages))
    app = make_app(session)
    assert isinstance(app, SteinerApp)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.workbench.conversation
        start = time.perf_counter()
        await pane.load(entries_from_messages(messages, str(PROJECT)))
        app.workbench.refresh_budget()
        await pilot.pause()
        loaded = time.perf_counter() - start
        print(f"{MESSAGES:,} messages: {len(pane.entries):,} entries, {pane.mounted_count} mounted")
        print(f"  load into the pane and budget panel: {loaded * 1000:.0f} ms")
        worst = 0.0
        prompt = app.workbench.prompt
        prompt.focus()
        await pilot.pause()
        typing = await timed(app, ["x"] * PRESSES, lambda: prompt.text)
        worst = max(worst, report("typing in the prompt", typing))
        pane.focus()
        await pilot.pause()
        pane.scroll_end(animate=False)
        await pilot.pause()

        def still() -> bool:
            return pane.scroll_y == pane.scroll_target_y

        scroll = await timed(app, ["up"] * PRESSES, lambda: pane.scroll_y, still)
        worst = max(worst, report("scroll one line (up)", scroll))
        # From the bottom, alternating keeps within the mounted entries (the top loads more).
        pane.scroll_end(animate=False)
        await pilot.pause()
        pages = ["pageup", "pagedown"] * (PRESSES // 2)
        pages_t = await timed(app, pages, lambda: pane.scroll_y, still)
        worst = max(worst, report("scroll a page (pgup/pgdn)", pages_t))
        pane.scroll_home(animate=False)
        await pilot.pause()
        homes = await timed(app, ["home"] * 10, lambda: pane.mounted_count)
        report(f"Home at top: mount {pane.load_batch} more", homes)
        print(f"  after loading earlier: {pane.mounted_count} mounted")
        print(f"  worst p95 of typing/scrolling: {worst:.1f} ms (target < 50 ms)")
    texts = [m.content for m in messages[-pane.window :] if m.content]
    base = BareScroll(texts)
    async with base.run_test(size=SIZE) as pilot:
        scroll = base.query_one("#scroll", VerticalScroll)
        scroll.focus()
        scroll.scroll_end(animate=False)
        await pilot.pause()
        print(f"baseline: bare app, {len(texts)} Markdown widgets in a VerticalScroll")

        def base_still() -> bool:
            return scroll.scroll_y == scroll.scroll_target_y

        ups = ["up"] * PRESSES
        report("scroll one line (up)", await timed(base, ups, lambda: scroll.scroll_y, base_still))
        scroll.scroll_end(animate=False)
        await pilot.pause()
        pages = ["pageup", "pagedown"] * (PRESSES // 2)
        report(
            "scroll a page (pgup/pgdn)",
            await timed(base, pages, lambda: scroll.scroll_y, base_still),
        )


async def run(tasks: list[Callable[[Path], Awaitable[None]]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "steiner"
        config.mkdir()
        for task in tasks:
            await task(config)


def main() -> int:
    tune_gc_for_ui()  # as ``steiner-tui`` does before running the app
    asyncio.run(run([first_frame, large_conversation]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
