"""UI speed: first frame against a bare Textual app, and key presses with 5,000 messages loaded.

Every app here runs with ``TerminalDriver``: input as in ``run_test``, but each frame is encoded
to terminal escape sequences and handed to the driver, as on a real terminal (the headless
driver skips that step). A frame counts as painted when the driver is flushed after writing it.

1. First frame: the time from building the app to the first frame written, for ``SteinerApp``
   on the sample project and for a bare ``App`` with a ``Header`` and a ``Footer``, the same
   definition for both. Median of several alternating runs, each started once the previous app
   has closed and its garbage is collected; the session (engine side) is built before the clock
   starts and its build time is printed separately. Imports are excluded (they are done once,
   before any run). The < 1.5x target is for the start-up a user waits for, from the launch to
   the first frame: ``bench_startup.py`` measures that, imports included. This ratio compares
   the two apps' own work alone (a workbench against a header and a footer), for tracking it.
   For information, the time to the first frame with nothing left deferred (the context panel,
   mounted after the first frame, showing its dry-run request) is printed too.
2. A 5,000-message conversation (user questions, replies with Markdown, tool calls and
   results) is loaded into the session and the conversation pane. Each key press is timed from
   the key event to the first frame written that shows its effect (see ``key_to_frame``):
   typing in the prompt, scrolling the conversation line by line and page by page. Target: p95
   < 50 ms. For scale, the line and page keys are timed on a bare app holding only the mounted
   replies as Textual ``Markdown`` widgets.

   The keys that change which entries are mounted are timed to the first frame showing the
   view they end at (see ``paged``): the probe is the view's place in the conversation as
   painted (the first entry showing at the top of the pane and the row it starts on), so
   neither a frame that only mounts or unmounts entries around the same view nor one showing a
   view on the way counts. Between presses the bench waits until the pane has settled (no load
   scheduled or running, and the screen done laying out what it mounted), then presses at once.
   - Home at the top, again and again: each mounts a batch of earlier messages (unmounting the
     newest past a bound). Reading up with the arrows or PgUp, earlier messages are mounted
     ahead of the view instead, as later ones are reading down.
   - PgDn while reading back: the pane mounts later messages ahead of the view (a prefetch,
     after the frame that brought the view within a screen of the bottom of what is mounted),
     so a PgDn normally only scrolls. Reported with it, for information and not in the key p95:
     each prefetch load, from the moment it was scheduled (for a chain of loads, from the frame
     painted after the previous one) to the frame painted after it; and the same presses 50 ms
     after settling. Then PgDn at a steady 10 keys/s without waiting for the pane to settle,
     counted with the keys (with how many presses found the bottom before a prefetch and loaded
     later entries themselves).
   - PgUp reading up, from there: earlier messages are mounted ahead of the view the same way.
   - End, after enough Home presses at the top that the newest are unmounted: mounts them again.

   The workbench's screens are painted by ``PacedScreen`` (``app/frame_timer.py``): a frame
   begins 16.7 ms after the last one began, or at once if that has passed, and the first frame
   after a key press at once, at most one such early frame per period. The typed keys and the
   line and page scrolls here come right after the frame of the key before, faster than frames,
   so they wait out the period (most of their median); the keys that mount entries come
   after the frames that settle them, and their frames may begin at once. The bare apps keep
   Textual's screen timer, which ticks on a fixed grid of 16.7 ms slots.

The process runs with the app's garbage-collector settings (``gc_tuning``), as the CLI does,
applied again once the conversation is loaded (as the app does once a resumed session shows);
the collector's pauses during the key presses are printed by generation.

Run: ``uv run python benchmarks/bench_ui.py``. Machines are shared and noisy; the ratio is the
figure to watch.
"""

from __future__ import annotations

import asyncio
import gc
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.drivers.headless_driver import HeadlessDriver
from textual.errors import NoWidget
from textual.message import Message as TextualMessage
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Header, Markdown

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.session_factory import SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.gc_tuning import tune_gc_for_ui
from steiner_tui.app.transcript import entries_from_messages
from steiner_tui.app.widgets.conversation import ConversationPane
from steiner_tui.app.widgets.entry_window import EntryWindow
from steiner_tui.config import parse_config
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message, ToolCall

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "app" / "fixtures" / "sample_project"
SIZE = (120, 36)
RUNS = 15
MESSAGES = 5_000
PRESSES = 60
LOAD_PRESSES = 40
"""Presses of each key that may mount entries (a p95 of 20 samples is their second worst)."""
KEY_TIMEOUT = 2.0
"""A key that shows no effect within this many seconds is not counted."""
POLL = 0.001


def say(text: str) -> None:
    """Print, also inside a running app (which captures ``print`` unless it is headless)."""
    out = sys.__stdout__
    assert out is not None
    out.write(text + "\n")
    out.flush()


class Frames:
    """When frames were flushed to the terminal, with what ``probe()`` returned at each."""

    def __init__(self) -> None:
        self.probe: Callable[[], object] = lambda: None
        self.painted: list[tuple[float, object]] = []
        self.times: list[float] = []
        """Every flush, never reset by ``reset``."""

    def reset(self, probe: Callable[[], object] = lambda: None) -> None:
        self.probe = probe
        self.painted = []

    def flushed(self) -> None:
        now = time.perf_counter()  # before the probe runs: the probe is not part of the frame
        self.times.append(now)
        self.painted.append((now, self.probe()))

    def first(self, accept: Callable[[object], bool] = lambda _: True) -> float | None:
        """The time of the first frame whose probe value ``accept`` takes."""
        return next((t for t, value in self.painted if accept(value)), None)


FRAMES = Frames()


class TerminalDriver(HeadlessDriver):
    """Headless input and size, but the app encodes every frame and writes it, as to a tty."""

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        """The escape sequences go nowhere; producing them is what is measured."""

    def flush(self) -> None:
        FRAMES.flushed()


def painted_run(
    app: App[None], message_hook: Callable[[TextualMessage], None] | None = None
) -> AbstractAsyncContextManager[Pilot[None]]:
    """``run_test`` with frames encoded and written (``TerminalDriver``)."""
    app.driver_class = TerminalDriver
    return app.run_test(headless=False, size=SIZE, message_hook=message_hook)


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


QUIET = parse_config([("bench", {"ui": {"cursor_blink": False, "watch_files": False}})])


def _request(config: Path) -> SessionRequest:
    date = datetime(2026, 1, 1, tzinfo=UTC)
    return SessionRequest(
        PROJECT,
        QUIET,
        config_dir=config,
        clock=ManualClock(date),
        session_id="bench",
        session_date=date,
        record=False,
    )


async def quiesce() -> None:
    """Let the previous app finish closing (its tasks and driver thread) and collect its garbage.

    Each run starts from the state a new process starts in: without this, the run after another
    app pays for that app's clean-up, which depends on the order the apps run in.
    """
    await asyncio.sleep(0.05)
    gc.collect()


async def _first_frame(build: Callable[[], App[None]]) -> tuple[float, float]:
    """Seconds to the first frame written, and to the first with nothing left deferred."""
    holder: list[App[None]] = []

    def settled() -> bool:
        if not isinstance(holder[0], SteinerApp):
            return True  # the bare app defers nothing
        try:
            return "dry run" in str(holder[0].screen.query_one("#budget").border_title)
        except Exception:  # no screen or no context panel yet
            return False

    await quiesce()
    FRAMES.reset(settled)
    start = time.perf_counter()
    app = build()
    holder.append(app)
    async with painted_run(app) as pilot:
        while FRAMES.first(bool) is None:
            await pilot.pause()
    first, complete = FRAMES.first(), FRAMES.first(bool)
    assert first is not None and complete is not None
    return first - start, complete - start


async def first_frame(config: Path) -> None:
    builds: list[float] = []
    bare: list[tuple[float, float]] = []
    ours: list[tuple[float, float]] = []
    await _first_frame(BareApp)  # warm imports and caches for both
    await _first_frame(lambda: make_app(_request(config)))
    for _ in range(RUNS):
        start = time.perf_counter()
        built = make_app(_request(config))  # builds the session, before the app runs
        builds.append(time.perf_counter() - start)
        bare.append(await _first_frame(BareApp))
        ours.append(await _first_frame(lambda a=built: a))  # type: ignore[misc]
    b = statistics.median(t for t, _ in bare)
    o = statistics.median(t for t, _ in ours)
    say(f"first frame: bare Header+Footer {b * 1000:.1f} ms, SteinerApp {o * 1000:.1f} ms")
    say(f"  session build (engine, before the app): {statistics.median(builds) * 1000:.1f} ms")
    say(f"  ratio SteinerApp / bare = {o / b:.2f}x (the apps alone; the < 1.5x target is for"
        " a launch: bench_startup.py)")  # fmt: skip
    bc = statistics.median(t for _, t in bare)
    oc = statistics.median(t for _, t in ours)
    say(f"  complete (side panels mounted): bare {bc * 1000:.1f} ms, SteinerApp {oc * 1000:.1f}"
          f" ms, ratio {oc / bc:.2f}x")  # fmt: skip


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


async def key_to_frame(app: App[None], key: str, probe: Callable[[], object]) -> float | None:
    """Seconds from a key event to the first frame written whose ``probe()`` value changed.

    The event is posted to the app as the terminal driver posts it (so priority bindings,
    forwarding to the focused widget and bubbling all happen). ``probe`` is read as each frame
    is flushed to the terminal, so the frame that shows the change is known exactly. (``pilot
    .press`` cannot time this: it sleeps until the process looks idle, at least 40 ms a key.)
    """
    before = probe()
    FRAMES.reset(probe)
    start = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while time.perf_counter() - start < KEY_TIMEOUT:
        await app.screen.wait_for_refresh()
        shown = FRAMES.first(lambda value: value != before)
        if shown is not None:
            FRAMES.reset()
            return shown - start
        await asyncio.sleep(POLL)
    FRAMES.reset()
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
        elapsed = await key_to_frame(app, key, probe)
        if elapsed is not None:
            times.append(elapsed)
        while not settled():  # e.g. a smooth scroll still animating
            await app.screen.wait_for_refresh()
    return times


def report(name: str, times: list[float]) -> float:
    value = p95(times) * 1000
    say(f"  {name:<28} p50 {statistics.median(times) * 1000:6.1f} ms   p95 {value:6.1f} ms")
    return value


def view_of(pane: ConversationPane) -> Callable[[], object]:
    """A probe: where the view is in the conversation, as painted.

    The index of the first entry showing at the top of the pane and the row it starts on,
    relative to the top of the view. Mounting entries below the view and unmounting them above
    it (with the scroll position moved by their lines) leaves this unchanged; a page moves it.
    """

    def probe() -> object:
        region = pane.scrollable_content_region
        index = {id(w): i for i in pane.mounted if (w := pane.widget_of(pane.entries[i]))}
        for y in range(region.y, region.bottom):
            try:
                node: DOMNode | None = pane.screen.get_widget_at(region.x, y)[0]
            except NoWidget:
                continue
            while node is not None and node.parent is not pane:
                node = node.parent
            if isinstance(node, Widget) and id(node) in index:
                return index[id(node)], node.region.y - region.y
        return None

    return probe


class Prefetches:
    """When the pane's prefetches were scheduled and when their loads ended."""

    def __init__(self) -> None:
        self.rises: list[float] = []
        """When ``loading_entries`` went up: a prefetch was scheduled (or a key loaded)."""
        self.loads: list[tuple[float, bool]] = []
        """(end, ahead) of each load of later entries; ``ahead``: a prefetch, else a key's."""

    def watch(self, pane: ConversationPane) -> None:
        pane.watch(pane, "loading_entries", self._changed, init=False)

    def _changed(self, loading: bool) -> None:
        if loading:
            self.rises.append(time.perf_counter())

    def hook(self, message: TextualMessage) -> None:
        if isinstance(message, EntryWindow.Loaded) and message.later:
            self.loads.append((time.perf_counter(), message.ahead))

    def clear(self) -> None:
        self.rises.clear()
        self.loads.clear()

    def key_loads(self) -> int:
        return sum(1 for _, ahead in self.loads if not ahead)

    def times(self, flushes: list[float]) -> list[float]:
        """Each prefetch, from being scheduled to the first frame painted after its load.

        A chain of prefetches keeps ``loading_entries`` up: a later one is scheduled by the
        frame painted after the previous one.
        """
        result: list[float] = []
        previous = 0.0  # the frame painted after the previous load
        for end, ahead in self.loads:
            painted = next((t for t in flushes if t > end), None)
            if ahead and painted is not None:
                rise = max((t for t in self.rises if t < end), default=end)
                result.append(painted - max(rise, previous))
            previous = painted or end
        return result


PREFETCHES = Prefetches()


class GcPauses:
    """The collector's pauses by generation while recording (``gc.callbacks``)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._began)

    def start(self) -> None:
        gc.callbacks.append(self._callback)

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)

    def report(self, thresholds: tuple[int, int, int]) -> None:
        parts = []
        for generation, pauses in self.pauses.items():
            ms = [p * 1000 for p in pauses] or [0.0]
            parts.append(
                f"gen{generation} {len(pauses)}x p50 {statistics.median(ms):.1f}"
                f" max {max(ms):.1f} ms"
            )
        say(f"  GC pauses during the keys, thresholds {thresholds}: " + "; ".join(parts))


GC_PAUSES = GcPauses()


async def paged(
    app: App[None],
    keys: list[str],
    view: Callable[[], object],
    settled: Callable[[], bool],
    pause: float = 0.0,
    interval: float | None = None,
) -> list[float]:
    """Time each key to the first frame showing the view it ends at (its whole page).

    The view a key ends at is the one painted when the next key is pressed (or, after the last
    key, once the pane has settled): a frame showing a view on the way (a half-done change)
    does not count. With ``interval``, a key is pressed every ``interval`` seconds (later if the
    previous one has not shown yet) without waiting for ``settled()``; else after it (and
    ``pause`` seconds more).
    """
    times: list[float] = []
    previous: tuple[float, object, list[tuple[float, object]]] | None = None

    def finish(now: object) -> None:
        if previous is None:
            return
        start, before, painted = previous
        shown = next((t for t, value in painted if value == now), None)
        if now != before and shown is not None:
            times.append(shown - start)

    begin = time.perf_counter()
    for i, key in enumerate(keys):
        if interval is not None:
            wait = begin + i * interval - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)  # pacing the presses, not synchronising
        before = view()
        finish(before)
        FRAMES.reset(view)
        start = time.perf_counter()
        previous = (start, before, FRAMES.painted)
        app.post_message(events.Key(key, None))
        while time.perf_counter() - start < KEY_TIMEOUT:
            await app.screen.wait_for_refresh()
            if any(value != before for _, value in FRAMES.painted):
                break
            await asyncio.sleep(POLL)
        if interval is None:
            while not settled():
                await app.screen.wait_for_refresh()
            if pause:
                await asyncio.sleep(pause)  # pacing the presses, not synchronising
    while not settled():
        await app.screen.wait_for_refresh()
    finish(view())
    FRAMES.reset()
    return times


async def large_conversation(config: Path) -> None:
    app = make_app(_request(config))
    messages = conversation(MESSAGES)
    app.session.driver.replace_lineage(ConversationLineage.start(messages))
    assert isinstance(app, SteinerApp)
    async with painted_run(app, PREFETCHES.hook) as pilot:
        pane = app.workbench.conversation
        PREFETCHES.watch(pane)
        start = time.perf_counter()
        await pane.load(entries_from_messages(messages, str(PROJECT)))
        app.workbench.refresh_budget()
        await pilot.pause()
        loaded = time.perf_counter() - start
        tune_gc_for_ui()  # as the app does once a resumed session is shown
        GC_PAUSES.start()
        say(f"{MESSAGES:,} messages: {len(pane.entries):,} entries, {pane.mounted_count} mounted")
        say(f"  load into the pane and budget panel: {loaded * 1000:.0f} ms")
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
        view = view_of(pane)

        def settled() -> bool:
            return not pane.loading_entries

        pane.scroll_home(animate=False)
        await pilot.pause()
        homes = await paged(app, ["home"] * LOAD_PRESSES, view, settled)
        worst = max(worst, report(f"Home at top: mount {pane.load_batch} more", homes))
        say(f"  after loading earlier: {pane.mounted_count} mounted")
        # Far enough back for every PgDn below to find later entries.
        while pane.mounted.start > len(pane.entries) - 1000:
            await pane.load_earlier()
        while not settled():
            await app.screen.wait_for_refresh()
        # Down to the bottom of what is mounted, reading back (a scroll down, as PgDn makes).
        pane.scroll_to(y=pane.max_scroll_y, animate=False, immediate=True)
        while not settled():
            await app.screen.wait_for_refresh()
        PREFETCHES.clear()
        flushes = len(FRAMES.times)
        reading = await paged(app, ["pagedown"] * LOAD_PRESSES, view, settled)
        worst = max(worst, report("PgDn reading back (settled)", reading))
        ahead = PREFETCHES.times(FRAMES.times[flushes:]) or [math.nan] * 2
        say(f"    prefetch, scheduled -> painted: p50 {statistics.median(ahead) * 1000:.1f} ms,"
            f" p95 {p95(ahead) * 1000:.1f} ms ({len(ahead)} loads, not in the p95 above;"
            f" {PREFETCHES.key_loads()} loads by a key)")  # fmt: skip
        paused = await paged(app, ["pagedown"] * (PRESSES // 3), view, settled, pause=0.05)
        report("  50 ms after settling (info)", paused)
        PREFETCHES.clear()
        rate = await paged(app, ["pagedown"] * (PRESSES * 2 // 3), view, settled, interval=0.1)
        worst = max(worst, report("PgDn reading back, 10/s", rate))
        say(
            f"    {len(rate)} presses moved the view; {PREFETCHES.key_loads()} found the bottom"
            f" and loaded later entries themselves, {len(PREFETCHES.loads)} loads in all"
        )
        while not settled():
            await app.screen.wait_for_refresh()
        ups = await paged(app, ["pageup"] * LOAD_PRESSES, view, settled)
        worst = max(worst, report("PgUp reading up (settled)", ups))
        ends: list[float] = []
        back = pane.window // pane.load_batch + 1  # past window + 2 * batch from 2 * batch
        # Back in history (the newest unmounted), then End: mounted again.
        for _ in range(LOAD_PRESSES):
            pane.scroll_home(animate=False)
            await pilot.pause()
            await paged(app, ["home"] * back, view, settled)
            assert not pane.showing_latest
            ends += await paged(app, ["end"], view, settled)
        worst = max(worst, report(f"End: the newest again ({len(ends)})", ends))
        say(f"  worst p95 of these keys: {worst:.1f} ms (target < 50 ms)")
        GC_PAUSES.stop()
        GC_PAUSES.report(gc.get_threshold())
    texts = [m.content for m in messages[-pane.window :] if m.content]
    base = BareScroll(texts)
    async with painted_run(base) as pilot:
        scroll = base.query_one("#scroll", VerticalScroll)
        scroll.focus()
        scroll.scroll_end(animate=False)
        await pilot.pause()
        say(f"baseline: bare app, {len(texts)} Markdown widgets in a VerticalScroll")

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
    tune_gc_for_ui()  # as ``steiner-tui`` does (after its first frame)
    asyncio.run(run([first_frame, large_conversation]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
