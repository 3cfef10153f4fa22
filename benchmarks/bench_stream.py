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

A code fence that grows by every fragment is not measured here: each append highlights the
whole fence again, and with Textual's stream a 1,000-line fence froze the workbench against a
loopback server for a minute (docs/performance.md), but a provider on this loop pacing its
fragments did not reproduce the freeze (keys waited a median 99 ms with Textual's stream, 4 ms
with ``MarkdownFeed``): the tmux walk and ``tests/app/test_conversation.py`` hold that fix.

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


def main() -> int:
    return 0 if asyncio.run(run()) else 1


if __name__ == "__main__":
    sys.exit(main())
