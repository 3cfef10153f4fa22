"""Engine work per turn over a 200-turn session against an instant fake provider.

Prints the time the engine spends per model call — assembly, estimation, fit and snapshot —
at turns 20, 50, 100 and 200, and the ratio of turn 200 to turn 20 (target: under 2x, i.e.
work grows with the new messages, not with the session).

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
from steiner_tui.agent.session_factory import SessionSpec, build_runner
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
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.tools.executor import ToolExecutor
from steiner_tui.tools.registry import default_tools

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


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n", encoding="utf-8")
        provider = InstantProvider()
        main_model = MainModel("bench", "gpt-4o", provider, provider.model_info("gpt-4o"))
        runner = build_runner(
            SessionSpec(root, main_model, session_id="bench"),
            estimator=RequestEstimator(default_encoding_loader(None)),
            tools=ToolExecutor(default_tools()),
            sink=NullSink(),
        )
        rng = random.Random(11)
        samples: dict[int, float] = {}
        for turn in range(1, 201):
            text = " ".join(rng.choice(WORDS) for _ in range(500))
            await runner.run(Message("user", f"turn {turn}: {text}"))
            if turn in (20, 50, 100, 200):
                # The median of repeated measurements of the *next* request's engine work.
                samples[turn] = statistics.median(engine_work(runner) for _ in range(15))
        tokens = runner.prepare().estimate.tokens
    print(f"session: 200 turns, {len(runner.conversation)} messages, ~{tokens:,} prompt tokens")
    print(f"{'turn':>6} {'engine work per call':>22}")
    for turn, seconds in samples.items():
        print(f"{turn:>6} {seconds * 1000:>19.3f} ms")
    ratio = samples[200] / samples[20]
    print(f"ratio turn 200 / turn 20: {ratio:.2f}x (target < 2x)")


if __name__ == "__main__":
    asyncio.run(main())
