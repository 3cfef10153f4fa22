"""Summary fidelity of the offline extractive summarizer through repeated compactions.

A scripted session (``fidelity_session.py``) plants 30 facts in its early turns. Each round
compacts the way the engine's stage does: the older turns go to the offline model as a summary
request (the engine's instruction and summary cap), the summary gets a history note, and the new
generation is ``[summary] + the retained turns``; then 20 filler turns are added. After each
compaction the table shows the share of the 30 facts still present in the active generation.
Target: at least 80% after three compactions (normal stage). The emergency run is a stress
reading (shorter summaries, one retained turn), not a target.

Run: ``uv run python benchmarks/bench_summary_fidelity.py``
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fidelity_session import (
    FACTS,
    build_session,
    fact_share,
    filler_turns,
    present_facts,
)
from steiner_tui.engine.budget import CompactionMode, summary_max_tokens
from steiner_tui.engine.compaction.archive import HISTORY_NOTE_MARKER
from steiner_tui.engine.compaction.summary_request import compaction_instruction
from steiner_tui.engine.compaction.turns import (
    EMERGENCY_RETAINED_TURNS,
    NORMAL_RETAINED_TURNS,
    split_for_retention,
)
from steiner_tui.engine.messages import Message, to_provider_message
from steiner_tui.engine.provider import ChatRequest, StreamText
from steiner_tui.providers.offline import OFFLINE_MODEL_INFO, OfflineProvider
from steiner_tui.providers.offline.textutil import heuristic_tokens, prompt_chars

COMPACTIONS = 3
FILLER_BETWEEN = 20
TARGET = 0.80


class Row(NamedTuple):
    """One compaction's measurements."""

    compaction: int
    tokens_before: int
    summary_tokens: int
    cap: int
    retained_messages: int
    share: float


PREAMBLE = Message("system", "You are a coding agent working in the user's repository.")


async def _summarize(provider: OfflineProvider, request: ChatRequest) -> str:
    parts = [e.text async for e in provider.stream(request) if isinstance(e, StreamText)]
    return "".join(parts)


async def run_fidelity(mode: CompactionMode) -> tuple[list[Row], list[Message]]:
    """Compact the scripted session three times in ``mode``; rows and the final generation."""
    info = OFFLINE_MODEL_INFO
    cap = summary_max_tokens(mode, info.context_window, info.max_output)
    keep = NORMAL_RETAINED_TURNS if mode == "normal" else EMERGENCY_RETAINED_TURNS
    provider = OfflineProvider(Path.cwd())
    conversation = build_session()
    rows: list[Row] = []
    for n in range(1, COMPACTIONS + 1):
        before = heuristic_tokens(prompt_chars(conversation))
        summarized, retained = split_for_retention(conversation, keep)
        request = ChatRequest(
            model=provider.model,
            messages=(
                PREAMBLE,
                *(to_provider_message(m) for m in summarized),
                Message("user", compaction_instruction(mode)),
            ),
            max_tokens=cap,
            compaction=True,
        )
        summary = await _summarize(provider, request)
        summary_tokens = heuristic_tokens(len(summary))
        # The engine's history note (``with_history_note``): the next summary must drop it.
        summary += f"\n\n{HISTORY_NOTE_MARKER} sessions/bench/history.md, compaction {n}]"
        conversation = [Message("summary", summary), *retained]
        rows.append(Row(n, before, summary_tokens, cap, len(retained), fact_share(conversation)))
        if n < COMPACTIONS:
            conversation += filler_turns(100 * n, FILLER_BETWEEN)
    return rows, conversation


def _table(title: str, rows: Sequence[Row]) -> None:
    print(title)
    print(
        f"{'compaction':>10} {'tokens before':>13} {'summary tok':>11} {'cap':>5} "
        f"{'retained msgs':>13} {'facts kept':>10} {'share':>6}"
    )
    for n, before, summary, cap, retained, share in rows:
        kept = round(share * len(FACTS))
        print(
            f"{n:>10} {before:>13} {summary:>11} {cap:>5} {retained:>13} "
            f"{kept:>7}/{len(FACTS)} {share:>6.0%}"
        )


def main() -> int:
    """Run both modes, print the tables and the lost facts; non-zero when under target."""
    normal, final = asyncio.run(run_fidelity("normal"))
    _table("Normal stage (3 retained turns), offline summary cap:", normal)
    lost = [f for f in FACTS if f not in present_facts(final)]
    print("lost after 3 compactions:", ", ".join(f"{f.kind}:{f.probe}" for f in lost) or "none")
    stress, stressed = asyncio.run(run_fidelity("emergency"))
    print()
    _table("Stress: emergency stage every time (1 retained turn, half budget):", stress)
    lost = [f for f in FACTS if f not in present_facts(stressed)]
    print("lost under stress:", ", ".join(f"{f.kind}:{f.probe}" for f in lost) or "none")
    share = normal[-1].share
    print(
        f"\nafter {COMPACTIONS} compactions: {share:.0%} of facts kept "
        f"(target {TARGET:.0%}): {'PASS' if share >= TARGET else 'FAIL'}"
    )
    return 0 if share >= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
