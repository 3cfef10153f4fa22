"""Engine work per turn over a 200-turn session, and the event loop while a big result arrives.

Then, after each turn the next request is prepared once, as the runner does before its next model
call: assembly, estimation, fit and snapshot over a conversation that just gained the turn's
reply, which no request has counted yet. That first (uncached) call is the figure: the
median of the first calls of the turns around 20, 50, 100 and 200, for a tokenizer model
(gpt-4o, o200k) and for the offline default (the character heuristic). Target: turn 200 /
turn 20 under 1.5x, work grows with the new messages, not with the session. A miss is printed
as MISSED and the script exits 1.

First, the event loop the runner shares with the app: its longest gap between heartbeats
(the longest it could run no callback) during a turn whose read result fills its 25,000-token
budget on a Claude model (new text for ctok, pure Python: half a second or more), over the
same during a turn whose result is one line; the median over ``STALL_ROUNDS`` turns of each,
after a warm-up turn (gpt-4o, counted by tiktoken, for information). New text is counted in
worker threads, so what remains is the thread's hold on the interpreter: a switch interval
(5 ms) at a time, and the collections its allocations start. Target: under ``STALL_TARGET``
(counting on the loop made it 250-300x; this remainder is noisy on a shared machine, 4-12x).

Run: ``uv run python benchmarks/bench_turns.py`` (``--stall``: the stall ratios alone)
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import EngineEvent
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)

_TEXT = (
    "refactor the parser so tokens carry spans then update tests and docs for the new api",
    "check error paths in read write edit bash grep glob and keep the cache prefix stable",
)
WORDS = tuple(" ".join(_TEXT).split())


class InstantProvider:
    alias = "bench"
    stateful = False

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def model_info(self, model: str) -> ModelInfo:
        return ModelInfo(1_000_000, 8192)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        words = " ".join(self.rng.choice(WORDS) for _ in range(200))
        yield StreamText(words)
        yield StreamUsage(request.raw_prompt_tokens or 0, 200)
        yield StreamDone()


class NullSink:
    def emit(self, event: EngineEvent) -> None:
        pass


def engine_work(runner: Runner) -> float:
    """Seconds for one prepare (assembly, estimation, fit) plus its snapshot: a dry run."""
    start = time.perf_counter()
    runner.preview()
    return time.perf_counter() - start


TURNS = 200
MARKS = (20, 50, 100, 200)
WINDOW = 5
TARGET = 1.5


async def measure(model_id: str) -> tuple[dict[int, float], int, int]:
    """First-call engine work per turn for ``model_id``: {mark: median seconds}."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n", encoding="utf-8")
        provider = InstantProvider()
        main_model = MainModel("bench", model_id, provider, provider.model_info(model_id))
        request = SessionRequest(
            root,
            model=main_model,
            session_id="bench",
            record=False,
            delegation=None,
            sink=NullSink(),
        )
        runner = build_session(request).runner
        rng = random.Random(11)
        first_calls: dict[int, float] = {}
        for turn in range(1, TURNS + 1):
            text = " ".join(rng.choice(WORDS) for _ in range(500))
            await runner.run(Message("user", f"turn {turn}: {text}"))
            # The turn's reply came after its last request: the next one is not cached yet.
            first_calls[turn] = engine_work(runner)
        samples = {
            mark: statistics.median(
                first_calls[t] for t in range(max(1, mark - WINDOW), min(TURNS, mark + WINDOW) + 1)
            )
            for mark in MARKS
        }
        tokens = runner.prepare().estimate.tokens
        return samples, len(runner.conversation), tokens


class ReadingProvider(InstantProvider):
    """Answers a user message by reading the file it names last, then says it is done."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        last = request.messages[-1]
        if last.role == "user":
            path = last.content.split()[-1]
            yield StreamToolCall(ToolCall(f"read-{len(request.messages)}", "read", {"path": path}))
        else:
            yield StreamText("Read it.")
        yield StreamDone()


async def longest_stall(run: Awaitable[object]) -> float:
    """Seconds of the event loop's longest gap between heartbeats while ``run`` is awaited."""
    longest, done = 0.0, False

    async def heartbeat() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)  # the heartbeat: how often the loop gets to run
            now = time.perf_counter()
            longest, last = max(longest, now - last), now

    beating = asyncio.create_task(heartbeat())
    await asyncio.sleep(0.01)
    try:
        await run
    finally:
        done = True
        await beating
    return longest


CLAUDE = "claude-sonnet-4-5"
STALL_ROUNDS = 7
STALL_TARGET = 20.0


async def stalls(model_id: str) -> tuple[float, float, int]:
    """The median longest stall of a turn with a ~25,000-token read and of one with a one-line
    read, on ``model_id``, and the big result's tokens."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n", encoding="utf-8")
        rng = random.Random(5)
        for turn in range(STALL_ROUNDS):  # new text each turn: nothing of it counted yet
            lines = (
                f"{rng.getrandbits(64):016x} " + " ".join(rng.choice(WORDS) for _ in range(10))
                for _ in range(4_000)
            )
            (root / f"big-{turn}.txt").write_text("\n".join(lines), encoding="utf-8")
            (root / f"tiny-{turn}.txt").write_text(f"line {turn}\n", encoding="utf-8")
        provider = ReadingProvider()
        main_model = MainModel("bench", model_id, provider, ModelInfo(1_000_000, 8192))
        request = SessionRequest(
            root, model=main_model, session_id="s", record=False, delegation=None, sink=NullSink()
        )
        runner = build_session(request).runner
        await runner.run(Message("user", "warm up: read tiny-0.txt"))
        big: list[float] = []
        tiny: list[float] = []
        for turn in range(STALL_ROUNDS):
            for name, samples in ((f"big-{turn}.txt", big), (f"tiny-{turn}.txt", tiny)):
                text = f"turn {turn}: read {name}"
                samples.append(await longest_stall(runner.run(Message("user", text))))
        result = next(m for m in reversed(runner.conversation) if len(m.content) > 10_000)
        tokens = runner.context.estimator.count_text(model_id, result.content)
        return statistics.median(big), statistics.median(tiny), tokens


async def stall_ratios() -> bool:
    """Print the stall ratios (gpt-4o's for information); True when Claude's missed."""
    print(f"longest event-loop stall while a turn's read result arrives ({STALL_ROUNDS} rounds):")
    missed = False
    for model_id in (CLAUDE, "gpt-4o"):
        big, tiny, tokens = await stalls(model_id)
        ratio = big / tiny
        verdict = "(information)"
        if model_id == CLAUDE:
            missed = ratio >= STALL_TARGET
            verdict = f"(target < {STALL_TARGET:g}x): {'MISSED' if missed else 'met'}"
        print(
            f"  {model_id}: {tokens:,}-token result {big * 1000:.1f} ms / one-line result "
            f"{tiny * 1000:.1f} ms = {ratio:.2f}x {verdict}"
        )
    return missed


async def main(stall_only: bool) -> int:
    missed = await stall_ratios()
    if stall_only:
        return 1 if missed else 0
    for model_id in ("gpt-4o", "offline"):
        samples, messages, tokens = await measure(model_id)
        print(f"{model_id}: {TURNS} turns, {messages} messages, ~{tokens:,} prompt tokens")
        print(f"{'turn':>6} {'first call per turn':>22}")
        for turn, seconds in samples.items():
            print(f"{turn:>6} {seconds * 1000:>19.3f} ms")
        ratio = samples[MARKS[-1]] / samples[MARKS[0]]
        verdict = "met" if ratio < TARGET else "MISSED"
        print(
            f"{model_id}: turn {MARKS[-1]} / turn {MARKS[0]}: {ratio:.2f}x "
            f"(target < {TARGET}x): {verdict}"
        )
        missed = missed or ratio >= TARGET
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main("--stall" in sys.argv[1:])))
