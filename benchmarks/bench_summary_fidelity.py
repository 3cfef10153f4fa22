"""Summary fidelity of the offline extractive summarizer through repeated compactions.

Part 1: a scripted session (``fidelity_session.py``) plants 30 facts in its early turns. Each
round compacts the way the engine's stage does: the older turns go to the offline model as a
summary request (the engine's instruction and summary cap), the summary gets a history note, and
the new generation is ``[summary] + the retained turns``; then 20 filler turns are added. After
each compaction the table shows the share of the 30 facts still present in the active
generation. Target: at least 80% after three compactions (normal stage). The emergency run is a
stress reading (shorter summaries, one retained turn), not a target.

Part 2: decisions, TODOs, errors and preferences planted among filler text
(``planted_session.py``: lorem pastes, repeated text, file contents, the offline model's own
replies), compacted ``COMPACTIONS`` times with routine work and more filler in between. Per
generation and kind it prints how many planted items sit in their own section (kept), in another
section (misfiled) or nowhere (dropped), and how many bullets quote filler, the model's own
boilerplate or a file's contents. Targets, in both stages: each kind kept >= 95%, nothing
misfiled, no decoy bullet, every summary within its cap. A missed target prints as missed and
the script exits non-zero.

Run: ``uv run python benchmarks/bench_summary_fidelity.py``
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
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
from benchmarks.planted_session import (
    DECOYS,
    KINDS,
    PLANTED,
    Score,
    build_planted_session,
    noise_turns,
    score,
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
KIND_TARGET = 0.95
"""Share of each planted kind kept in its own section, every generation."""
NOISE_BETWEEN = 20


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


async def _compact(
    provider: OfflineProvider, conversation: list[Message], mode: CompactionMode, n: int
) -> tuple[str, list[Message], int]:
    """One compaction as the engine's stage does it: the summary, the new generation, the cap."""
    info = OFFLINE_MODEL_INFO
    cap = summary_max_tokens(mode, info.context_window, info.max_output)
    keep = NORMAL_RETAINED_TURNS if mode == "normal" else EMERGENCY_RETAINED_TURNS
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
    # The engine's history note (``with_history_note``): the next summary must drop it.
    noted = f"{summary}\n\n{HISTORY_NOTE_MARKER} sessions/bench/history.md, compaction {n}]"
    return summary, [Message("summary", noted), *retained], cap


async def run_fidelity(mode: CompactionMode) -> tuple[list[Row], list[Message]]:
    """Compact the scripted session three times in ``mode``; rows and the final generation."""
    provider = OfflineProvider(Path.cwd())
    conversation = build_session()
    rows: list[Row] = []
    for n in range(1, COMPACTIONS + 1):
        before = heuristic_tokens(prompt_chars(conversation))
        summary, conversation, cap = await _compact(provider, conversation, mode, n)
        retained = len(conversation) - 1
        share = fact_share(conversation)
        rows.append(Row(n, before, heuristic_tokens(len(summary)), cap, retained, share))
        if n < COMPACTIONS:
            conversation += filler_turns(100 * n, FILLER_BETWEEN)
    return rows, conversation


class Generation(NamedTuple):
    """One compaction of the planted session: the summary's size, its cap and its score."""

    number: int
    summary_tokens: int
    cap: int
    score: Score


async def run_planted(mode: CompactionMode, root: Path) -> list[Generation]:
    """Compact the planted session ``COMPACTIONS`` times in ``mode`` (``root``: its project)."""
    provider = OfflineProvider(root)
    conversation = build_planted_session(root)
    out: list[Generation] = []
    for n in range(1, COMPACTIONS + 1):
        summary, conversation, cap = await _compact(provider, conversation, mode, n)
        out.append(Generation(n, heuristic_tokens(len(summary)), cap, score(summary)))
        conversation += noise_turns(root, 100 * n, NOISE_BETWEEN)
    return out


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def _line(gen: int, figure: str, value: str, extra: str, target: str, met: bool) -> str:
    return f"{gen:>10}  {figure:<22} {value:>6}  {extra:<34} {target:<20} {_verdict(met)}"


def _planted_table(title: str, generations: Sequence[Generation]) -> bool:
    """Print per-generation, per-kind figures with their targets; True when all were met."""
    print(title)
    print(f"{'generation':>10}  {'figure':<22} {'value':>6}  {'detail':<34} {'target':<20} result")
    all_met = True
    for gen in generations:
        for kind in KINDS:
            kept, misfiled = len(gen.score.kept[kind]), len(gen.score.misfiled[kind])
            dropped = len(gen.score.dropped[kind])
            share = kept / (kept + misfiled + dropped)
            met = share >= KIND_TARGET and misfiled == 0
            all_met = all_met and met
            total = kept + misfiled + dropped
            detail = f"kept {kept}/{total}, dropped {dropped}, misfiled {misfiled}"
            target = f">= {KIND_TARGET:.0%}, 0 misfiled"
            print(_line(gen.number, f"{kind}s kept", f"{share:.0%}", detail, target, met))
        for group in DECOYS:
            count = len(gen.score.decoys[group])
            all_met = all_met and count == 0
            print(_line(gen.number, f"{group} bullets", str(count), "", "0", count == 0))
        within = gen.summary_tokens <= gen.cap
        all_met = all_met and within
        share = gen.summary_tokens / gen.cap
        detail = f"{gen.summary_tokens}/{gen.cap} tokens"
        print(_line(gen.number, "summary size / cap", f"{share:.0%}", detail, "<= 100%", within))
    last = generations[-1]
    lost = [
        f"{p.kind}:{p.probe}"
        for kind in KINDS
        for p in (*last.score.misfiled[kind], *last.score.dropped[kind])
    ]
    print(f"  misfiled or dropped after {last.number}:", "; ".join(lost) or "none")
    for group, lines in last.score.decoys.items():
        for line in lines[:3]:
            print(f"  {group} bullet: {line[:110]}")
    return all_met


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
    """Run both parts in both modes; print tables and what was lost; non-zero on a miss."""
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
    facts_met = share >= TARGET
    print(
        f"\nafter {COMPACTIONS} compactions: {share:.0%} of facts kept "
        f"(target {TARGET:.0%}): {_verdict(facts_met)}"
    )
    counts = ", ".join(f"{sum(p.kind == k for p in PLANTED)} {k}s" for k in KINDS)
    planted_met = True
    for mode, title in (("normal", "normal stage"), ("emergency", "emergency stage every time")):
        with tempfile.TemporaryDirectory() as tmp:
            generations = asyncio.run(run_planted(mode, Path(tmp)))
        print()
        heading = f"Planted among filler ({counts}), {title}:"
        planted_met = _planted_table(heading, generations) and planted_met
    print(f"\nplanted items in their sections, every generation: {_verdict(planted_met)}")
    return 0 if facts_met and planted_met else 1


if __name__ == "__main__":
    raise SystemExit(main())
