"""A long Markdown reply streamed into the workbench, as a ratio to a stock Textual app.

A model that writes a long answer (headings, prose, lists, code fences, tables: five blocks a
section) streams it in fragments of ``FRAGMENT`` characters, as fast as the app takes them.
The workbench gets it from a provider through its real runner, session and conversation pane
(typed in the prompt, Enter, until the run has ended and the reply is painted). The stock app is
a ``VerticalScroll`` holding one ``Markdown`` fed by ``Markdown.get_stream`` with the same
fragments, a ``TextArea`` and a ``Footer``: what Textual itself does with the reply.

Printed, each the median of ``ROUNDS`` rounds (the apps alternate, each built fresh):
- processor time of the whole reply, workbench / stock, at ``SECTIONS`` sections (target
  < ``TARGET``x);
- the workbench's processor time per section at ``SECTIONS`` over at ``FEW`` sections (target
  < ``GROWTH_TARGET``x): a block costs the same however many came before it. An order rule in
  a reply's style (``:last-child``) once had Textual restyle every block at each mount, and a
  300-block reply froze the app for 35 s; the two ratios were then 4.84x and 2.00x.

Processor time, not wall time: the machines are shared. Absolute times are information only.

And keys while a model writes a 1,000-line file in one code block (``FENCE_LINES``; fragments
every 2 ms): each append parses and highlights the whole fence again, so with Textual's own
stream the app froze until the end (a stock app fed that fence took 35 s of processor time).
Printed: the p95 of key to painted frame in the prompt while it streams (as ``bench_ui`` times
a key, frames encoded as for a terminal), over the time the stock app takes from mounting the
finished reply to painting it: a key never waits much longer than one render of the whole
reply (target < ``KEY_TARGET``x), and every key pressed is shown (within ``KEY_TIMEOUT``).

Run: ``uv run python benchmarks/bench_stream.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Markdown, TextArea

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import FRAMES, KEY_TIMEOUT, key_to_frame, p95, painted_run  # noqa: E402

from steiner_tui.agent.clock import ManualClock  # noqa: E402
from steiner_tui.agent.model import MainModel  # noqa: E402
from steiner_tui.agent.session import SessionRequest  # noqa: E402
from steiner_tui.app.app import SteinerApp, make_app  # noqa: E402
from steiner_tui.config import parse_config  # noqa: E402
from steiner_tui.engine.provider import (  # noqa: E402
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamUsage,
)

PROJECT = ROOT / "tests" / "app" / "fixtures" / "sample_project"
SIZE = (120, 36)
SECTIONS = 60
FEW = 15
FRAGMENT = 24
ROUNDS = 3
TARGET = 1.5
GROWTH_TARGET = 1.3
FENCE_LINES = 1000
KEY_TARGET = 1.5
INFO = ModelInfo(context_window=200_000, max_output=32_000, tokenizer="heuristic")
QUIET = parse_config([("bench", {"ui": {"cursor_blink": False, "watch_files": False}})])


def reply(sections: int) -> str:
    """A long answer: per section a heading, a paragraph, a list, a code fence and a table."""
    code = "".join(f"def g_{j}(x):\n    return x * {j}\n" for j in range(12))
    return "".join(
        f"## Section {k}\n\nSome *prose* about item {k}, with `code` and a "
        f"[link](https://example.com/{k}).\n\n- point a\n- point b\n\n"
        f"```python\n{code}```\n\n| a | b |\n|---|---|\n| {k} | {k + 1} |\n\n"
        for k in range(sections)
    )


def fence(lines: int) -> str:
    """A reply that is mostly one code block of ``lines`` lines."""
    code = "".join(f"def g_{j}(x):\n    return x * {j}\n" for j in range(lines // 2))
    return f"Here is the file:\n\n```python\n{code}```\n\nThat is all.\n"


def fragments(text: str) -> list[str]:
    return [text[i : i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]


@dataclass
class ReplyProvider:
    """Streams the reply's fragments, then its usage."""

    parts: list[str]
    pace: float = 0.0
    """Seconds between fragments (0: as fast as the app takes them)."""
    alias: str = "bench"
    stateful: bool = False

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        for part in self.parts:
            yield StreamText(part)
            await asyncio.sleep(self.pace)  # a network read between fragments
        yield StreamUsage(1_000, 10_000)
        yield StreamDone()


def workbench(config: Path, provider: ReplyProvider) -> SteinerApp:
    date = datetime(2026, 1, 1, tzinfo=UTC)
    request = SessionRequest(
        PROJECT,
        QUIET,
        config_dir=config,
        model=MainModel("bench", "offline", provider, INFO),
        clock=ManualClock(date),
        session_date=date,
        record=False,
    )
    app = make_app(request)
    assert isinstance(app, SteinerApp)
    return app


async def workbench_seconds(config: Path, sections: int) -> float:
    """Processor seconds from Enter to the workbench's run ended with the reply painted."""
    app = workbench(config, ReplyProvider(fragments(reply(sections))))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.workbench.prompt.load_text("Write the long answer.")
        app.workbench.prompt.focus()
        start = time.process_time()
        await pilot.press("enter")
        for _ in range(50):
            await app.workers.wait_for_complete()
            await pilot.pause()
            if all(worker.is_finished for worker in app.workers):
                break
        seconds = time.process_time() - start
        shown = app.workbench.conversation.query(".reply").last(Markdown)
        assert len(shown.children) == 5 * sections, len(shown.children)
    return seconds


class StockApp(App[None]):
    """The baseline: one ``Markdown`` in a ``VerticalScroll``, a ``TextArea``, a ``Footer``."""

    CSS = "#scroll { height: 1fr; } #prompt { height: 3; }"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            yield Markdown()
        yield TextArea(id="prompt")
        yield Footer()


async def stock_seconds(sections: int) -> float:
    """Processor seconds the stock app takes to stream the reply and paint it."""
    app = StockApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        start = time.process_time()
        stream = Markdown.get_stream(markdown)
        for part in fragments(reply(sections)):
            await stream.write(part)
            await asyncio.sleep(0)
        await stream.stop()
        await pilot.pause()
        seconds = time.process_time() - start
        assert len(markdown.children) == 5 * sections
    return seconds


async def keys_while_fencing(config: Path) -> tuple[list[float], int]:
    """Key to frame for each key typed while the fence streams, and how many keys showed
    nothing within ``KEY_TIMEOUT``."""
    app = workbench(config, ReplyProvider(fragments(fence(FENCE_LINES)), pace=0.002))
    times: list[float] = []
    lost = 0
    async with painted_run(app) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        prompt = app.workbench.prompt
        prompt.load_text("Write the file.")
        prompt.focus()
        await pilot.press("enter")  # returns once the run has started: the screen is busy
        while app.workbench.busy and len(times) < 40:
            shown = await key_to_frame(app, "x", lambda: prompt.text)
            if shown is None:
                lost += 1
            else:
                times.append(shown)
            await asyncio.sleep(0.05)
        await app.workers.wait_for_complete()
    return times, lost


async def one_render() -> float:
    """Seconds the stock app takes from mounting the finished fence reply to painting it."""
    app = StockApp()
    async with painted_run(app) as pilot:
        await pilot.pause()
        scroll = app.query_one(VerticalScroll)
        FRAMES.reset(lambda: len(scroll.children))
        start = time.perf_counter()
        scroll.mount(Markdown(fence(FENCE_LINES)))
        while not any(count == 2 for _, count in FRAMES.painted):
            await app.screen.wait_for_refresh()
            await asyncio.sleep(0.001)  # polling for the frame, not synchronising
        painted = next(t for t, count in FRAMES.painted if count == 2)
        FRAMES.reset()
    return painted - start


def verdict(value: float, target: float) -> str:
    return f"(target < {target}x): {'met' if value < target else 'MISSED'}"


async def run() -> bool:
    ours: list[float] = []
    few: list[float] = []
    stock: list[float] = []
    keys: list[float] = []
    lost = 0
    renders: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "steiner"
        config.mkdir()
        for _ in range(ROUNDS):
            ours.append(await workbench_seconds(config, SECTIONS))
            stock.append(await stock_seconds(SECTIONS))
            few.append(await workbench_seconds(config, FEW))
            times, missed = await keys_while_fencing(config)
            keys += times
            lost += missed
            renders.append(await one_render())
    median = statistics.median
    size = len(reply(SECTIONS))
    ratio = median(ours) / median(stock)
    growth = (median(ours) / SECTIONS) / (median(few) / FEW)
    print(f"a reply of {SECTIONS} sections ({5 * SECTIONS} blocks, {size:,} characters) in "
          f"{len(fragments(reply(SECTIONS))):,} fragments, median of {ROUNDS} rounds")  # fmt: skip
    print(f"  workbench {median(ours):.2f}s, stock Textual app {median(stock):.2f}s, "
          f"at {FEW} sections {median(few):.2f}s (processor time; information)")  # fmt: skip
    print(f"  workbench / stock: {ratio:.2f}x {verdict(ratio, TARGET)}")
    print(f"  per section at {SECTIONS} / at {FEW} sections: {growth:.2f}x "
          f"{verdict(growth, GROWTH_TARGET)}")  # fmt: skip
    key_ratio = p95(keys) / median(renders) if keys else float("inf")
    print(f"keys while a {FENCE_LINES:,}-line fence streams: {len(keys)} shown, {lost} not within "
          f"{KEY_TIMEOUT:.0f}s; p95 key to frame {p95(keys) * 1000 if keys else 0:.0f} ms, one "
          f"render of the finished reply {median(renders) * 1000:.0f} ms")  # fmt: skip
    print(f"  key p95 / one render: {key_ratio:.2f}x {verdict(key_ratio, KEY_TARGET)}"
          f"{'' if not lost else ' (and keys were lost: MISSED)'}")  # fmt: skip
    return ratio < TARGET and growth < GROWTH_TARGET and key_ratio < KEY_TARGET and not lost


def main() -> int:
    return 0 if asyncio.run(run()) else 1


if __name__ == "__main__":
    sys.exit(main())
