"""Engine work per turn over a 200-turn session against an instant fake provider.

After each turn the next request is prepared once, as the runner does before its next model
call: assembly, estimation, fit and snapshot over a conversation that just gained the turn's
reply, which no request has counted yet. That first (uncached) call is the figure: the
median of the first calls of the turns around 20, 50, 100 and 200, for a tokenizer model
(gpt-4o, o200k) and for the offline default (the character heuristic). Target: turn 200 /
turn 20 under 1.5x, work grows with the new messages, not with the session. A miss is printed
as MISSED and the script exits 1.

Run: ``uv run python benchmarks/bench_turns.py``
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from steiner_tui.agent.model import MainModel
from steiner_tui.agent.runner import Runner
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import EngineEvent
from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import (
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
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


async def main() -> int:
    missed = False
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
    raise SystemExit(asyncio.run(main()))
