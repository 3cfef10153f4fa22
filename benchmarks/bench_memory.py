"""The memory a conversation of long replies holds, as ratios to a stock Textual app's.

A model that writes long answers (10 KB each: headings, prose, lists, a code fence and a table
in each of 20 sections) answers ``REPLIES`` messages in a row in the workbench (its real runner,
session and conversation pane). A stock app mounts the same replies as ``Markdown`` widgets in a
``VerticalScroll``: what Textual itself holds for one such reply. Memory is ``tracemalloc``'s
(traced Python allocations, after a collection), not the resident size, which the allocator
keeps once grown.

Printed, each against what one reply's widgets take in the stock app, measured in the same run:
what the workbench holds for a reply while it is mounted (its first ``MOUNTED`` replies: target
under ``MOUNTED_TARGET``x, its own widgets against the stock ones), and what each later reply
adds once the conversation's run is at its weight (target under ``LATER_TARGET``x: the replies
that leave the run leave their widgets behind; their text and the session's records stay).
Before the run was counted by weight (``app/widgets/entry_window.py``) each reply stayed mounted
until forty entries had come after it: every reply added 1.07x a stock reply's widgets.

Run: ``uv run python benchmarks/bench_memory.py``.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Markdown, TextArea

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stream import INFO, ReplyProvider, answered, fragments, reply
from bench_ui import SIZE, workbench_app

from steiner_tui.agent.model import MainModel

SECTIONS = 20
"""Sections a reply has (five blocks each): about 10 KB of Markdown."""
MOUNTED, REPLIES = 3, 12
MOUNTED_TARGET, LATER_TARGET = 1.2, 0.2


def traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


class StockApp(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="replies")
        yield TextArea()
        yield Footer()


async def stock_reply_bytes(text: str) -> float:
    """Traced bytes a stock app holds for each ``Markdown`` of ``text`` it mounts."""
    app = StockApp()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        start = traced()
        for _ in range(MOUNTED):
            markdown = Markdown()
            await app.query_one("#replies").mount(markdown)
            await markdown.update(text)
            await pilot.pause()
        return (traced() - start) / MOUNTED


async def workbench_reply_bytes(text: str) -> tuple[float, float]:
    """Traced bytes each reply adds in the workbench: its first ``MOUNTED``, and each one after
    the run is at its weight (the last ``REPLIES - 2 * MOUNTED``)."""
    provider = ReplyProvider(fragments(text))
    app = workbench_app(Path(tempfile.mkdtemp()), MainModel("bench", "offline", provider, INFO))
    after: list[int] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        for number in range(REPLIES + 1):
            app.workbench.prompt.load_text(f"Write the long answer, take {number}.")
            app.workbench.prompt.focus()
            await answered(app, pilot)
            after.append(traced())
    mounted = (after[MOUNTED] - after[0]) / MOUNTED
    later = (after[-1] - after[2 * MOUNTED]) / (REPLIES - 2 * MOUNTED)
    return mounted, later


def verdict(value: float, target: float) -> str:
    return f"(target < {target}x): {'met' if value < target else 'MISSED'}"


async def run() -> bool:
    text = reply(SECTIONS)
    tracemalloc.start()
    stock = await stock_reply_bytes(text)
    mounted, later = await workbench_reply_bytes(text)
    tracemalloc.stop()
    print(
        f"a reply of {len(text):,} characters: stock Markdown {stock / 1e6:.1f} MB, workbench "
        f"{mounted / 1e6:.1f} MB mounted, {later / 1e6:.2f} MB each once the run is at its "
        "weight (traced; information)"
    )
    first, rest = mounted / stock, later / stock
    print(f"workbench / stock, a reply mounted: {first:.2f}x {verdict(first, MOUNTED_TARGET)}")
    print(f"workbench / stock, each later reply: {rest:.2f}x {verdict(rest, LATER_TARGET)}")
    return first < MOUNTED_TARGET and rest < LATER_TARGET


def main() -> int:
    return 0 if asyncio.run(run()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
