"""A long Markdown reply streamed into the workbench, as a ratio to a stock Textual app.

A model that writes a long answer (headings, prose, lists, code fences, tables: five blocks a
section) streams it in fragments of ``FRAGMENT`` characters, as fast as the app takes them.
The workbench gets it from a provider through its real runner, session and conversation pane
(typed in the prompt, Enter, until the run has ended and the reply is painted). The stock app is
a ``VerticalScroll`` holding one ``Markdown`` fed by ``Markdown.get_stream`` with the same
fragments, a ``TextArea`` and a ``Footer``: what Textual itself does with the reply.

Printed: processor time of the whole reply, workbench / stock, the median of ``ROUNDS`` rounds
(the apps alternate, each built fresh), at ``SECTIONS`` sections (target < ``TARGET``x); the
time at ``FEW`` sections is printed as information. Processor time, not wall time: the machines
are shared. Absolute times are information only.

Two freezes of a long reply were fixed with this benchmark's first version: an order rule in a
reply's style (``:last-child``) had Textual restyle every block at each mount (4.84x the stock
app then, and a block at 60 sections cost 2.00x one at 15), and Textual's stream appended a
growing code fence again and again. Replies are now fed by ``MarkdownFeed``, which merges more
of a long reply into each append, so the order rule no longer shows in these times (0.75x with
it put back): ``tests/app/test_conversation.py`` counts the restyles instead.

Blocks a model can make long are measured on their own (``LONG_BLOCKS``): a code fence of
``FENCE_LINES`` lines, a list of ``LIST_ITEMS`` items and a table of ``TABLE_ROWS`` rows, each
grown by appends of a few dozen lines, each append awaited and painted, in the reply's
``Markdown`` (``app/widgets/reply_markdown.py``) and in a stock ``Markdown`` in the stock app,
alternating, ``ROUNDS`` rounds: the processor time of all the appends and of the longest one,
ours / stock (target < ``LONG_TARGET``x for the whole); and each finished, shown at once (a resumed
reply: one ``Markdown.update`` with the whole block, until painted), ours / stock (target <
``LONG_TARGET``x). Textual builds the growing block again
at every append: the stock fence highlights and draws all its lines, the stock list mounts
about ten widgets an item, the stock table a widget a cell. How the feed paces appends
(Textual's stream froze the workbench for a minute with a 1,000-line fence,
docs/performance.md) is not measured here: a provider on this loop pacing its fragments did not
reproduce that freeze; the tmux walk and ``tests/app/test_conversation.py`` hold it.

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
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Footer, Markdown, TextArea

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import SIZE, workbench_app  # noqa: E402

from steiner_tui.agent.model import MainModel  # noqa: E402
from steiner_tui.app.transcript import ReplyEntry  # noqa: E402
from steiner_tui.app.widgets.reply import reply_widget  # noqa: E402
from steiner_tui.engine.provider import (  # noqa: E402
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamUsage,
)

SECTIONS = 60
FEW = 15
FRAGMENT = 24
ROUNDS = 3
TARGET = 1.5
FENCE_LINES = 1_500
LIST_ITEMS = 300
TABLE_ROWS = 300
LONG_TARGET = 0.5
INFO = ModelInfo(context_window=200_000, max_output=32_000, tokenizer="heuristic")


def reply(sections: int) -> str:
    """A long answer: per section a heading, a paragraph, a list, a code fence and a table."""
    code = "".join(f"def g_{j}(x):\n    return x * {j}\n" for j in range(12))
    return "".join(
        f"## Section {k}\n\nSome *prose* about item {k}, with `code` and a "
        f"[link](https://example.com/{k}).\n\n- point a\n- point b\n\n"
        f"```python\n{code}```\n\n| a | b |\n|---|---|\n| {k} | {k + 1} |\n\n"
        for k in range(sections)
    )


def fragments(text: str) -> list[str]:
    return [text[i : i + FRAGMENT] for i in range(0, len(text), FRAGMENT)]


@dataclass
class ReplyProvider:
    """Streams the reply's fragments, then its usage."""

    parts: list[str]
    alias: str = "bench"
    stateful: bool = False

    def model_info(self, model: str) -> ModelInfo:
        return INFO

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        for part in self.parts:
            yield StreamText(part)
            await asyncio.sleep(0)  # a network read between fragments
        yield StreamUsage(1_000, 10_000)
        yield StreamDone()


async def answered(app: App[None], pilot: Pilot[None]) -> None:
    """Enter in the workbench's prompt, then wait until the run has ended, its reply painted."""
    await pilot.press("enter")
    for _ in range(50):
        await app.workers.wait_for_complete()
        await pilot.pause()
        if all(worker.is_finished for worker in app.workers):
            break


async def workbench_seconds(config: Path, sections: int) -> float:
    """Processor seconds from Enter to the workbench's run ended with the reply painted."""
    provider = ReplyProvider(fragments(reply(sections)))
    app = workbench_app(config, MainModel("bench", "offline", provider, INFO))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.workbench.prompt.load_text("Write the long answer.")
        app.workbench.prompt.focus()
        start = time.process_time()
        await answered(app, pilot)
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


@dataclass(frozen=True)
class LongBlock:
    """A block a model can make long: its opening, its lines, how many an append brings."""

    name: str
    head: str
    lines: list[str]
    step: int


LONG_BLOCKS = (
    LongBlock(
        f"a fence of {FENCE_LINES:,} lines",
        "The file:\n\n```python\n",
        [f"    value_{i} = compute({i}, name='item {i}')  # {i}" for i in range(FENCE_LINES)],
        50,
    ),
    LongBlock(
        f"a list of {LIST_ITEMS} items",
        "The files:\n\n",
        [f"- `src/module_{i}.py`: what it holds, **{i}**" for i in range(LIST_ITEMS)],
        20,
    ),
    LongBlock(
        f"a table of {TABLE_ROWS} rows",
        "The sizes:\n\n| file | size |\n|---|--:|\n",
        [f"| `src/module_{i}.py` | {i * 37} |" for i in range(TABLE_ROWS)],
        20,
    ),
)


async def grow_seconds(block: LongBlock, markdown: Markdown, pilot: Pilot[None]) -> list[float]:
    """Processor seconds of each append growing ``block`` in ``markdown`` (painted after each)."""
    await markdown.append(block.head)
    await pilot.pause()
    each: list[float] = []
    for start in range(0, len(block.lines), block.step):
        began = time.process_time()
        await markdown.append("\n".join(block.lines[start : start + block.step]) + "\n")
        await pilot.pause()
        each.append(time.process_time() - began)
    return each


class ReplyApp(StockApp):
    """The stock app with the workbench's reply widget in place of the stock ``Markdown``."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            yield reply_widget(ReplyEntry(""))
        yield TextArea(id="prompt")
        yield Footer()


async def shown_in(app: StockApp, block: LongBlock) -> float:
    """Processor seconds ``block``, finished, takes to be shown at once in ``app``."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        began = time.process_time()
        await markdown.update(block.head + "\n".join(block.lines) + "\n")
        await pilot.pause()
        return time.process_time() - began


async def grown_in(app: StockApp, block: LongBlock) -> list[float]:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        markdown = app.query_one(Markdown)
        app.query_one("#scroll", VerticalScroll).anchor()  # follows the end, as a reply does
        return await grow_seconds(block, markdown, pilot)


async def long_blocks_run() -> bool:
    """Each of ``LONG_BLOCKS`` grown in the reply's ``Markdown`` and in a stock one."""
    met = True
    median = statistics.median
    for block in LONG_BLOCKS:
        ours: list[list[float]] = []
        stock: list[list[float]] = []
        shown: list[tuple[float, float]] = []
        for _ in range(ROUNDS):
            ours.append(await grown_in(ReplyApp(), block))
            stock.append(await grown_in(StockApp(), block))
            shown.append((await shown_in(ReplyApp(), block), await shown_in(StockApp(), block)))
        ours_all, stock_all = median(map(sum, ours)), median(map(sum, stock))
        ours_top, stock_top = median(map(max, ours)), median(map(max, stock))
        whole = ours_all / stock_all
        print(f"{block.name}, {block.step} lines an append, median of {ROUNDS}: reply "
              f"{ours_all:.2f}s (longest append {ours_top * 1000:.0f} ms), stock Markdown "
              f"{stock_all:.2f}s (longest {stock_top * 1000:.0f} ms)")  # fmt: skip
        print(f"  longest append, reply / stock: {ours_top / stock_top:.2f}x (information)")
        print(f"  all appends, reply / stock: {whole:.2f}x {verdict(whole, LONG_TARGET)}")
        ours_once, stock_once = median(a for a, _ in shown), median(b for _, b in shown)
        once = ours_once / stock_once
        print(f"  finished, shown at once: reply {ours_once:.2f}s, stock {stock_once:.2f}s, "
              f"{once:.2f}x {verdict(once, LONG_TARGET)}")  # fmt: skip
        met = met and whole < LONG_TARGET and once < LONG_TARGET
    return met


def verdict(value: float, target: float) -> str:
    return f"(target < {target}x): {'met' if value < target else 'MISSED'}"


async def run() -> bool:
    ours: list[float] = []
    few: list[float] = []
    stock: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "steiner"
        config.mkdir()
        for _ in range(ROUNDS):
            ours.append(await workbench_seconds(config, SECTIONS))
            stock.append(await stock_seconds(SECTIONS))
            few.append(await workbench_seconds(config, FEW))
    median = statistics.median
    size = len(reply(SECTIONS))
    ratio = median(ours) / median(stock)
    print(f"a reply of {SECTIONS} sections ({5 * SECTIONS} blocks, {size:,} characters) in "
          f"{len(fragments(reply(SECTIONS))):,} fragments, median of {ROUNDS} rounds")  # fmt: skip
    print(f"  workbench {median(ours):.2f}s, stock Textual app {median(stock):.2f}s, "
          f"at {FEW} sections {median(few):.2f}s (processor time; information)")  # fmt: skip
    print(f"  workbench / stock: {ratio:.2f}x {verdict(ratio, TARGET)}")
    return ratio < TARGET


async def run_all() -> bool:
    replies = await run()
    blocks = await long_blocks_run()
    return replies and blocks


def main() -> int:
    return 0 if asyncio.run(run_all()) else 1


if __name__ == "__main__":
    sys.exit(main())
