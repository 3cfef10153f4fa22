"""Summary fidelity through the real runner, with the offline model answering and summarizing.

A whole interactive session is driven through ``InteractiveDriver`` (built by
``session_factory``) with ``OfflineProvider`` as the main model on an 8k window: the offline
model answers every turn (reading the files the messages name) and writes the extractive
summaries when the runner compacts. The first 17 user messages plant the 30 facts of
``fidelity_session.FACTS`` (file paths, commands, numbers, decisions, preferences); filler
requests about other files follow until the session has compacted ``ROUNDS`` times. After each
compaction the table shows the facts still present in the active generation (summary + retained
messages) against the facts planted so far (the small window compacts before planting ends) and
against all 30. Target: at least 80% of the planted facts kept through the first three
compactions.

After the 17 planting messages come the user messages of ``planted_session`` (decisions, TODOs,
pasted errors and preferences among lorem pastes and repeated text). At each compaction a second
table reads the summary per kind: planted items so far in their own section (or still in a
retained turn) are kept, in another section misfiled, elsewhere dropped; bullets that quote
filler or the offline model's own replies (it answers every turn, disclaimer included) are
counted. Targets through every compaction: each kind kept >= 95%, nothing misfiled, no decoy
bullet.

Run: ``uv run python benchmarks/bench_fidelity_runner.py``
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.fidelity_session import FACTS, Fact, present_facts
from benchmarks.planted_session import DECOYS, KINDS, PLANTED, Planted, Score, score, user_plants
from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.compaction_driver import CompactionSettings
from steiner_tui.agent.interactive import InteractiveDriver
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.events import CompactionApplied, EngineEvent, WarningEvent
from steiner_tui.engine.messages import Message
from steiner_tui.providers.offline import OFFLINE_MODEL_INFO, OfflineProvider
from steiner_tui.providers.offline.textutil import heuristic_tokens
from steiner_tui.sessions.history_archive import FileHistoryArchive

WINDOW = 8192
COMPACTIONS = 3
"""The target holds through this many compactions."""
ROUNDS = 5
"""Compactions run (and shown), at least: the session goes on until every plant was sent."""
MAX_FILLER = 200
TARGET = 0.80
KIND_TARGET = 0.95
USER_PLANTS = tuple(user_plants())
RUNNER_PLANTED = tuple(p for p in PLANTED if any(p.probe in text for text in USER_PLANTS))
"""The planted items a user message carries (errors from bash need a model that runs bash)."""

PLANTING = (
    "We are adding multi-currency support to the billing service. The rounding bug is in "
    "services/billing/invoice_totals.py; please start there.",
    "I prefer small commits with one logical change each. Keep answers short; I read them on "
    "my phone.",
    "The public API allows 250 requests per minute per key. The limits live in "
    "config/rate_limits.toml.",
    "We decided to store money as integer cents instead of floats. The reasoning is in "
    "docs/adr/0007-money-as-integers.md.",
    "Start the database for the tests with `docker compose up -d postgres`. The staging "
    "database listens on port 6543, not the default.",
    "The schema change is migrations/0042_add_currency.sql. We decided to keep the currency "
    "column nullable until the backfill finishes.",
    "Apply it to staging with `make migrate DB=staging`.",
    "Let's use Decimal with ROUND_HALF_EVEN for display rounding. Invoices over 10,000 EUR "
    "need a second approval.",
    "The regression test lives in tests/billing/test_rounding.py; run "
    "`pytest tests/billing -k rounding -x` to check it.",
    "Please don't add new dependencies without asking me first.",
    "We'll go with httpx instead of requests for the payment client. We decided to put the "
    "retry logic in payments/client.py.",
    "Always run the linter before you say you're done: `ruff check services/billing`.",
    "To see who touched billing recently, use `git log --oneline -5 -- services/billing`.",
    "We have 37 merchants still on the legacy plan. Amounts are stored with 4 decimal places "
    "internally.",
    "The backfill script is scripts/backfill_currency.py; always try "
    "`python scripts/backfill_currency.py --dry-run` first.",
    "Never touch the files under vendor/. Use Google style docstrings in new code.",
    "The nightly job must finish within 45 minutes. We agreed to ship the migration behind "
    "the feature flag billing_v2.",
)
"""Seventeen user messages carrying the 30 planted facts."""
PLANTED_TURNS = len(PLANTING) + len(USER_PLANTS)

FILLER = (
    "Can you tidy up the docstrings in {path}?",
    "Rename helper_3 to scale_amount in {path} and update its callers.",
    "What does helper_7 in {path} return for negative values?",
    "Add type hints to the remaining functions of {path}.",
)
PLANTED_FILES = (
    "services/billing/invoice_totals.py",
    "config/rate_limits.toml",
    "tests/billing/test_rounding.py",
    "scripts/backfill_currency.py",
)


class Row(NamedTuple):
    """One compaction's measurements."""

    compaction: int
    user_turn: int
    modes: str
    before: int
    after: int
    summary_tokens: int
    retained: int
    planted: int
    kept: int
    share: float
    """Kept facts over planted facts."""


def _code(path: str, lines: int = 30) -> str:
    body = [f'"""Module {path}."""', ""]
    for i in range(lines):
        body.append(f"def helper_{i}(value: int) -> int:")
        body.append(f"    return value * {i} + {lines - i}")
    return "\n".join(body) + "\n"


def _project(root: Path) -> Path:
    for path in PLANTED_FILES:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_code(path, 12), encoding="utf-8")
    for i in range(MAX_FILLER):
        target = root / f"services/catalog/module_{i:03d}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_code(target.name), encoding="utf-8")
    return root


@dataclass
class _Recorder:
    """Measures the active generation the moment a compaction is adopted."""

    driver: InteractiveDriver | None = None
    user_turn: int = 0
    sent: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    lost: list[list[Fact]] = field(default_factory=list)
    scores: list[Score] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def emit(self, event: EngineEvent) -> None:
        if isinstance(event, WarningEvent):
            self.warnings.append(f"{event.code}: {event.message}")
        if not isinstance(event, CompactionApplied) or self.driver is None:
            return
        active = self.driver.lineage.active
        present = present_facts(active.messages)
        planted = present_facts([Message("user", "\n".join(self.sent))])
        outcome = event.outcome
        self.rows.append(
            Row(
                len(self.rows) + 1,
                self.user_turn,
                "+".join(outcome.modes),
                outcome.before_tokens,
                outcome.after_tokens,
                heuristic_tokens(len(active.summary)),
                len(active.messages) - 1,
                len(planted),
                len(present),
                len(present) / len(planted),
            )
        )
        self.lost.append([f for f in planted if f not in present])
        sent = "\n".join(self.sent).lower()
        so_far = [p for p in RUNNER_PLANTED if p.probe.lower() in sent]
        retained = "\n".join(m.content for m in active.messages[1:] if m.role == "user")
        self.scores.append(score(active.summary, so_far, retained))


async def run_session(workdir: Path, max_output: int) -> _Recorder:
    """Drive the session until ``ROUNDS`` compactions happened (or the filler ran out)."""
    project = _project(workdir / "project")
    provider = OfflineProvider(project)
    info = msgspec.structs.replace(OFFLINE_MODEL_INFO, context_window=WINDOW, max_output=max_output)
    main = MainModel("offline", "offline", provider, info, prompt_cache_key="bench")
    recorder = _Recorder()
    archive = FileHistoryArchive(workdir / "config" / "sessions" / "bench")
    request = SessionRequest(
        project,
        model=main,
        session_id="bench",
        record=False,
        delegation=None,
        compaction=CompactionSettings(archive=archive),
        sink=recorder,
        clock=ManualClock(),
    )
    driver = build_session(request).driver
    recorder.driver = driver
    messages = [*PLANTING, *USER_PLANTS]
    messages += [
        FILLER[i % len(FILLER)].format(path=f"services/catalog/module_{i:03d}.py")
        for i in range(MAX_FILLER)
    ]
    for text in messages:
        recorder.user_turn += 1
        recorder.sent.append(text)
        result = await driver.submit(text)
        if result.status != "done":
            raise SystemExit(
                f"turn {recorder.user_turn} ended with {result.status}: {result.error}"
            )
        if len(recorder.rows) >= ROUNDS and recorder.user_turn >= PLANTED_TURNS:
            break
    return recorder


def _table(rows: list[Row]) -> None:
    print(
        f"{'compaction':>10} {'user turn':>9} {'stages':>16} {'before':>7} {'after':>6} "
        f"{'summary tok':>11} {'retained':>8} {'kept/planted':>12} {'share':>6} {'of 30':>6}"
    )
    for row in rows:
        print(
            f"{row.compaction:>10} {row.user_turn:>9} {row.modes:>16} {row.before:>7} "
            f"{row.after:>6} {row.summary_tokens:>11} {row.retained:>8} "
            f"{row.kept:>9}/{row.planted:<2} {row.share:>6.0%} {row.kept / len(FACTS):>6.0%}"
        )


def _kinds_table(scores: list[Score]) -> bool:
    """Per compaction and kind: planted items kept/misfiled/dropped; True when targets met."""
    print(f"{'compaction':>10}  {'figure':<22} {'value':>6}  {'detail':<34} {'target':<20} result")
    met_all = True
    for number, reading in enumerate(scores, start=1):
        for kind in KINDS:
            kept, misfiled = len(reading.kept[kind]), len(reading.misfiled[kind])
            total = kept + misfiled + len(reading.dropped[kind])
            if not total:
                continue
            share = kept / total
            met = share >= KIND_TARGET and misfiled == 0
            met_all = met_all and met
            detail = f"kept {kept}/{total}, dropped {total - kept - misfiled}, misfiled {misfiled}"
            print(
                f"{number:>10}  {kind + 's kept':<22} {share:>6.0%}  {detail:<34} "
                f"{f'>= {KIND_TARGET:.0%}, 0 misfiled':<20} {'met' if met else 'MISSED'}"
            )
        counts = [len(reading.decoys[group]) for group in DECOYS]
        met = not any(counts)
        met_all = met_all and met
        detail = ", ".join(
            f"{group.split()[0]} {n}" for group, n in zip(DECOYS, counts, strict=True)
        )
        print(
            f"{number:>10}  {'decoy bullets':<22} {sum(counts):>6}  {detail:<34} {'0':<20} "
            f"{'met' if met else 'MISSED'}"
        )
    if scores:
        last = scores[-1]
        lost: list[Planted] = [p for k in KINDS for p in (*last.misfiled[k], *last.dropped[k])]
        print(
            f"  misfiled or dropped after {len(scores)}:",
            "; ".join(p.probe for p in lost) or "none",
        )
        for group, lines in last.decoys.items():
            for line in lines[:3]:
                print(f"  {group} bullet: {line[:110]}")
    return met_all


CONFIGS = (
    (1024, "max output 1024: the 70% soft trigger compacts, normal stages"),
    (4096, "max output 4096 (the offline default): the 4096 reserve's hard fit compacts first"),
)


def main() -> int:
    """Run both configurations, print the tables and what was lost; non-zero under target."""
    failed = False
    for max_output, title in CONFIGS:
        with tempfile.TemporaryDirectory() as tmp:
            recorder = asyncio.run(run_session(Path(tmp), max_output))
        print(f"Offline model through the runner, {WINDOW}-token window, {title}:")
        _table(recorder.rows)
        for row, lost in zip(recorder.rows, recorder.lost, strict=True):
            names = ", ".join(f"{f.kind}:{f.probe}" for f in lost) or "none"
            print(f"  lost after compaction {row.compaction}: {names}")
        for warning in recorder.warnings:
            print("  warning:", warning)
        if len(recorder.rows) < COMPACTIONS:
            print(f"only {len(recorder.rows)} compactions happened: FAIL\n")
            failed = True
            continue
        share = min(row.share for row in recorder.rows[:COMPACTIONS])
        verdict = "PASS" if share >= TARGET else "FAIL"
        failed = failed or share < TARGET
        print(
            f"lowest share through {COMPACTIONS} compactions: {share:.0%} of planted facts kept "
            f"(target {TARGET:.0%}): {verdict}"
        )
        print("Planted among filler, read from each summary:")
        kinds_met = _kinds_table(recorder.scores)
        failed = failed or not kinds_met
        verdict = "met" if kinds_met else "MISSED"
        print(f"planted items in their sections, every compaction: {verdict}\n")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
