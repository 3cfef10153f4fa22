"""Key press to painted frame with 10,000 messages loaded, as ratios to a stock Textual app.

Every app here runs with ``TerminalDriver``: input as in ``run_test``, but each frame is encoded
to terminal escape sequences and handed to the driver, as on a real terminal (the headless
driver skips that step). A frame counts as painted when the driver is flushed after writing it.

The workbench (``SteinerApp``) gets a session holding a 10,000-message conversation (questions,
tool calls and results, replies in Markdown) and shows it in its conversation pane, which has
widgets for the newest entries only (``ConversationPane.window``). The stock app is a
``VerticalScroll`` holding the same entries with the same widget types (a ``Markdown`` for each
reply, a ``Static`` for every other entry), as wide and as tall as the pane, with a ``TextArea``
below it and a ``Footer``: what Textual itself does with the entries that are visible. Both apps
are built fresh for each of ``ROUNDS`` rounds, alternating, so neither starts from the other's
caches, and every key is timed from the key event (posted to the app as the terminal driver
posts it) to the first frame written that shows its effect: the prompt's text for typing, the
scroll position for scrolling (Textual animates key scrolls; the first moved frame counts).

Targets, p95 of the workbench over p95 of the stock app: typing < 1.2x; one line up, a page
(PgUp and PgDn in turn), Home (from the bottom) and End (from the top) each < 1.5x. And typing
in the workbench at 10,000 messages over typing in it at ``FEW`` messages (a third app in each
round), < 1.1x: what a key costs does not grow with the conversation.

For information, with their own ratio and no target: the keys that move the pane's run of
shown entries (PgUp at its top, Home at its top: the first messages, PgDn at its bottom, End
while reading back), which show a page of entries (``ConversationPane.page``), against the
stock app replacing the entries in its ``VerticalScroll`` by as many others (``remove_children``
and ``mount_all`` in one batch update): what any Textual app does to show different entries.

Absolute times are printed for information (the machines are shared and noisy). A missed
target makes the script exit with 1.

Run: ``uv run python benchmarks/bench_ui.py``.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

from long_session import conversation
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.drivers.headless_driver import HeadlessDriver
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Markdown, Static, TextArea

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.app.transcript import (
    Entry,
    ReplyEntry,
    ToolEntry,
    UserEntry,
)
from steiner_tui.config import parse_config
from steiner_tui.engine.compaction.lineage import ConversationLineage

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "app" / "fixtures" / "sample_project"
SIZE = (120, 36)
MESSAGES = 10_000
FEW = 100
"""The short conversation typing is compared with."""
ROUNDS = 6
"""Rounds of each app, alternating: noise from other work on the machine comes in bursts."""
PRESSES = 15
"""Presses of each key per round (a p95 over ``ROUNDS * PRESSES`` samples)."""
MOVES = 4
"""Presses of each key that moves the run, per round."""
KEY_TIMEOUT = 2.0
"""A key that shows no effect within this many seconds is not counted."""
TARGET = 1.5
TYPING_TARGET = 1.2
GROWTH_TARGET = 1.1
"""Typing at ``MESSAGES`` over typing at ``FEW``."""


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

    def reset(self, probe: Callable[[], object] = lambda: None) -> None:
        self.probe = probe
        self.painted = []

    def flushed(self) -> None:
        now = time.perf_counter()  # before the probe runs: the probe is not part of the frame
        self.painted.append((now, self.probe()))


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


@asynccontextmanager
async def painted_run(app: App[None]) -> AsyncIterator[Pilot[None]]:
    """``run_test`` with frames encoded and written (``TerminalDriver``)."""
    app.driver_class = TerminalDriver
    async with app.run_test(headless=False, size=SIZE) as pilot:
        yield pilot


def stock_widget(entry: Entry) -> Widget:
    """The stock app's widget for ``entry``: a ``Markdown`` for a reply, else a ``Static``."""
    match entry:
        case ReplyEntry():
            return Markdown(entry.text)
        case UserEntry():
            return Static(Content(entry.text))
        case ToolEntry():
            return Static(Content(f"▶ {entry.summary} · {entry.status}"))
        case _:
            return Static(Content(str(entry)))


class StockApp(App[None]):
    """The baseline: the visible entries in a ``VerticalScroll``, a ``TextArea``, a ``Footer``."""

    CSS = """
    #scroll { height: 1fr; }
    #prompt { height: 3; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f5", "replace", "Replace")]

    def __init__(
        self, entries: list[Entry], shown: range, page: int, width: int, height: int
    ) -> None:
        super().__init__()
        self.entries = entries
        self.shown = shown
        self.page = page
        """How many entries ``replace`` shows."""
        self.width = width
        self.height = height
        self.replaced = 0
        """How many times the entries were replaced (the probe of ``replace``)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll") as scroll:
            scroll.styles.width = self.width
            scroll.styles.height = self.height
            for index in self.shown:
                yield stock_widget(self.entries[index])
        yield TextArea(id="prompt")
        yield Footer()

    async def action_replace(self) -> None:
        """Show ``page`` other entries instead (the ones before), scrolled to the bottom."""
        scroll = self.query_one("#scroll", VerticalScroll)
        stop = self.shown.start if self.shown.start >= self.page else len(self.entries)
        self.shown = range(stop - self.page, stop)
        with self.batch_update():
            await scroll.remove_children()
            await scroll.mount_all(stock_widget(self.entries[i]) for i in self.shown)
            scroll.anchor()
        self.replaced += 1


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[18] if len(values) > 1 else values[0]


async def key_to_frame(app: App[None], key: str, probe: Callable[[], object]) -> float | None:
    """Seconds from a key event to the first frame written whose ``probe()`` value changed.

    The event is posted to the app as the terminal driver posts it (so priority bindings,
    forwarding to the focused widget and bubbling all happen). ``probe`` is read as each frame
    is flushed to the terminal, so the frame that shows the change is known exactly. (``pilot
    .press`` cannot time this: it waits until the process looks idle.)
    """
    before = probe()
    FRAMES.reset(probe)
    start = time.perf_counter()
    app.post_message(events.Key(key, key if len(key) == 1 else None))
    while time.perf_counter() - start < KEY_TIMEOUT:
        await app.screen.wait_for_refresh()
        shown = next((t for t, value in FRAMES.painted if value != before), None)
        if shown is not None:
            FRAMES.reset()
            return shown - start
        await asyncio.sleep(0.001)  # polling for the frame, not synchronising
    FRAMES.reset()
    return None  # the key changed nothing: not a sample


@dataclass
class Samples:
    """Key-to-frame times by key, over the rounds."""

    times: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, value: float | None) -> None:
        if value is not None:
            self.times.setdefault(name, []).append(value)


async def settle(pilot: Pilot[None], scroll: Widget) -> None:
    """Wait until the scroll animation is over and the screen is painted."""
    await pilot.wait_for_scheduled_animations()
    while scroll.scroll_y != scroll.scroll_target_y:
        await pilot.pause()
    await pilot.pause()


async def scroll_keys(
    pilot: Pilot[None], scroll: Widget, prompt: TextArea, samples: Samples
) -> None:
    """Typing, a line up, pages, Home and End (the same in both apps)."""
    app = pilot.app

    def position() -> object:
        return scroll.scroll_y

    prompt.focus()
    await pilot.pause()
    for _ in range(PRESSES):
        samples.add("typing", await key_to_frame(app, "x", lambda: prompt.text))
    scroll.focus()
    scroll.scroll_end(animate=False)
    await settle(pilot, scroll)
    for _ in range(PRESSES):
        samples.add("line up", await key_to_frame(app, "up", position))
        await settle(pilot, scroll)
    for i in range(PRESSES):
        samples.add("page", await key_to_frame(app, ("pageup", "pagedown")[i % 2], position))
        await settle(pilot, scroll)
    for _ in range(PRESSES):
        scroll.scroll_end(animate=False, immediate=True)
        await settle(pilot, scroll)
        samples.add("Home", await key_to_frame(app, "home", position))
        await settle(pilot, scroll)
        samples.add("End", await key_to_frame(app, "end", position))
        await settle(pilot, scroll)


QUIET = parse_config([("bench", {"ui": {"cursor_blink": False, "watch_files": False}})])


def workbench_app(config: Path, model: MainModel | None = None) -> SteinerApp:
    """The workbench over the sample project, its session built (before it runs), not
    recorded, on a fixed clock; ``model`` instead of the configured one (None: offline)."""
    date = datetime(2026, 1, 1, tzinfo=UTC)
    request = SessionRequest(
        PROJECT,
        QUIET,
        config_dir=config,
        model=model,
        clock=ManualClock(date),
        session_id="bench",
        session_date=date,
        record=False,
    )
    app = make_app(request)
    assert isinstance(app, SteinerApp)
    return app


def _app(config: Path, messages: int) -> SteinerApp:
    """The workbench with its session built (before it runs) holding ``messages`` messages."""
    app = workbench_app(config)
    app.session.driver.replace_lineage(ConversationLineage.start(conversation(messages)))
    return app


async def workbench_round(
    config: Path, keys: Samples, moves: Samples
) -> tuple[list[Entry], range, tuple[int, int]]:
    """One round of the workbench: the scroll keys, then the keys that move the run."""
    app = _app(config, MESSAGES)
    assert isinstance(app, SteinerApp)
    async with painted_run(app) as pilot:
        await app.workers.wait_for_complete()  # the resumed conversation is shown by a worker
        await pilot.pause()
        screen = app.workbench
        pane = screen.conversation
        entries, shown, page = pane.entries, pane.shown, pane.page
        size = (pane.outer_size.width, pane.outer_size.height)
        await scroll_keys(pilot, pane, screen.prompt, keys)

        def run() -> object:
            return pane.shown

        pane.focus()
        for _ in range(MOVES):
            pane.scroll_home(animate=False, immediate=True)
            await settle(pilot, pane)
            moves.add("PgUp at the top", await key_to_frame(app, "pageup", run))
            await settle(pilot, pane)
        for _ in range(MOVES):
            pane.scroll_end(animate=False, immediate=True)
            await settle(pilot, pane)
            moves.add("PgDn at the bottom", await key_to_frame(app, "pagedown", run))
            await settle(pilot, pane)
        for _ in range(MOVES):
            pane.scroll_home(animate=False, immediate=True)
            await settle(pilot, pane)
            moves.add("Home at the top", await key_to_frame(app, "home", run))
            await settle(pilot, pane)
            moves.add("End reading back", await key_to_frame(app, "end", run))
            await settle(pilot, pane)
    return entries, shown, page, size


async def typing_round(config: Path, messages: int, keys: Samples) -> None:
    """Typing in the workbench holding ``messages`` messages."""
    app = _app(config, messages)
    async with painted_run(app) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.focus()
        await pilot.pause()
        for _ in range(PRESSES):
            keys.add("typing", await key_to_frame(app, "x", lambda: prompt.text))


async def stock_round(
    entries: list[Entry],
    shown: range,
    page: int,
    size: tuple[int, int],
    keys: Samples,
    moves: Samples,
) -> None:
    """One round of the stock app: the same keys, and replacing its entries."""
    app = StockApp(entries, shown, page, *size)
    async with painted_run(app) as pilot:
        await pilot.pause()
        scroll = app.query_one("#scroll", VerticalScroll)
        await scroll_keys(pilot, scroll, app.query_one("#prompt", TextArea), keys)
        for _ in range(4 * MOVES):
            moves.add("replace", await key_to_frame(app, "f5", lambda: app.replaced))
            await settle(pilot, scroll)


@dataclass(frozen=True)
class Ratio:
    """One key's p95 in the workbench over the stock app's (medians for information)."""

    name: str
    ours: list[float]
    stock: list[float]
    target: float | None

    @property
    def value(self) -> float:
        return p95(self.ours) / p95(self.stock)

    @property
    def met(self) -> bool:
        return self.target is None or self.value < self.target

    def line(self) -> str:
        verdict = (
            "(information)"
            if self.target is None
            else f"(target < {self.target:g}x) {'met' if self.met else 'MISSED'}"
        )
        ours, stock = p95(self.ours) * 1000, p95(self.stock) * 1000
        median = statistics.median(self.ours) / statistics.median(self.stock)
        return (
            f"  {self.name:<19} p95 {ours:6.1f} / {stock:6.1f} ms = {self.value:.2f}x {verdict}"
            f"; p50 ratio {median:.2f}x"
        )


class GcPauses:
    """The collector's pauses (``gc.callbacks``), by generation, while keys are timed."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._began = 0.0

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._began)

    def line(self) -> str:
        full = self.pauses[2]
        worst = max(full, default=0.0) * 1000
        young = sum(len(self.pauses[g]) for g in (0, 1))
        return f"{young} young collections, {len(full)} full (longest {worst:.0f} ms)"


async def run() -> list[Ratio]:
    keys = {"ours": Samples(), "stock": Samples(), "few": Samples()}
    moves = {"ours": Samples(), "stock": Samples()}
    pauses = {"ours": GcPauses(), "stock": GcPauses()}
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "steiner"
        config.mkdir()
        for _ in range(ROUNDS):
            gc.callbacks.append(pauses["ours"].callback)
            entries, shown, page, size = await workbench_round(config, keys["ours"], moves["ours"])
            gc.callbacks.remove(pauses["ours"].callback)
            gc.callbacks.append(pauses["stock"].callback)
            await stock_round(entries, shown, page, size, keys["stock"], moves["stock"])
            gc.callbacks.remove(pauses["stock"].callback)
            await typing_round(config, FEW, keys["few"])
    say(f"{MESSAGES:,} messages ({len(entries):,} entries, {len(shown)} with widgets), {ROUNDS}"
        f" rounds; key to frame, workbench / stock Textual app:")  # fmt: skip
    ratios = [
        Ratio(name, keys["ours"].times[name], keys["stock"].times[name], target)
        for name, target in (
            ("typing", TYPING_TARGET),
            ("line up", TARGET),
            ("page", TARGET),
            ("Home", TARGET),
            ("End", TARGET),
        )
    ]
    typing = keys["ours"].times["typing"]
    ratios.append(Ratio(f"typing / at {FEW}", typing, keys["few"].times["typing"], GROWTH_TARGET))
    stock_replace = moves["stock"].times["replace"]
    ratios += [
        Ratio(name, times, stock_replace, None) for name, times in moves["ours"].times.items()
    ]
    for ratio in ratios:
        say(ratio.line())
    say(f"  (moves show {page} entries; against the stock app replacing its entries by {page})")
    say(f"  garbage collection: workbench {pauses['ours'].line()}; stock {pauses['stock'].line()}")
    return ratios


def main() -> int:
    ratios = asyncio.run(run())
    return 0 if all(ratio.met for ratio in ratios) else 1


if __name__ == "__main__":
    sys.exit(main())
