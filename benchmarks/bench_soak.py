"""Soak: the real runner, session log and snapshot store to 10,000 messages (issue 14).

A scripted instant model drives real-shaped traffic through the real runner, its real tools,
the real ``SessionLog`` of this checkout and a ``SnapshotStore``: most turns read a real source
file of this repository (1-40 KB; each pass over the files from another line, so no read
repeats one before it), some run a bash command, every turn ends with a small reply, four
messages a turn. It runs for the offline model (the character heuristic) and for gpt-4o
(tiktoken's o200k), each with a window large enough that nothing compacts: the worst case for
per-turn work.

Engine work per turn is the processor time this process spends on the turn (one ``run``, whose
first model call is uncached: every turn is new) minus the processor time spent inside the
provider's stream and inside tool execution: assembly, estimation, fit, snapshots, events, the
session log and the snapshot store. Processor time, not wall time, because on a shared machine
the wall time of a 2 ms turn is dominated by waiting for a core and for the disk (the log's
fsync on each turn boundary, an append whose cost does not depend on the conversation): those
waits swing a single window by 3x and more between runs. The wall-time figures (the same turns,
disk and scheduling waits included) are printed beside it as information. The small figure
comes from a second session of the same traffic in the same process: once the soak is
``WINDOW_TURNS`` turns short of its size and the second session ``WINDOW_TURNS / 2`` turns short
of 100 messages, their turns alternate (one small, one large), so a burst of load from elsewhere
weighs on both figures alike. Printed: the median engine work of those turns in each session
(around 100 messages, and the last ones up to 10,000), and their ratio (target at most
``PER_TURN_TARGET``: work depends on the new messages only). Beside each, around 100, 1,000 and
10,000 messages: tiktoken (o200k) encoding that turn's new text once, measured right after the
turn (target: engine work at most ``TIKTOKEN_TARGET`` times it), and a naive peer recounting
the whole conversation's text with tiktoken (printed as how many times the engine it takes).

The soak's other figures are measured on what it wrote, with the measurements of the benchmarks
that own them: session log bytes (``session.jsonl`` and ``session.text``) / distinct message text
(role, content and tool calls' names and arguments, as ``bench_session_log`` counts it), and resume
time at 10,000 / at 1,000 messages and resident memory after resume / message text, each resume in
a fresh interpreter (``bench_session_log.resume``: the resident memory that interpreter holds after
loading the session minus what it held just before, its imports done and the memory they freed
handed back, i.e. what resuming costs) over the soak's own log and over a copy of it taken at 1,000
messages, each resumed ``RESUMES`` times in alternation with the other (the median time and the
median memory), with the checkout's bytecode written first (``compile_source``). The loader leaves
message hashes to be computed when asked for, so the memory a resumed session holds once it has
rebuilt every hash of the last request (as it does before its first request) is printed beside it
as information. Inspector open time at 10,000 / at 100 requests (``bench_inspector.open_ratio``) is
measured over stores filled with the soak's requests (replayed from the first when the soak made
fewer than 10,000).

Each figure says its target and whether it met; a miss makes the script exit 1.

Run: ``uv run python benchmarks/bench_soak.py [messages]`` (default 10000).
"""

from __future__ import annotations

import asyncio
import compileall
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_inspector import open_ratio, replayed  # noqa: E402
from bench_session_log import RESUME, SOURCE, log_size, resume, resume_to_usable  # noqa: E402

from steiner_tui.agent.clock import ManualClock  # noqa: E402
from steiner_tui.agent.model import MainModel  # noqa: E402
from steiner_tui.agent.runner import Runner  # noqa: E402
from steiner_tui.agent.session import SessionRequest  # noqa: E402
from steiner_tui.agent.session_factory import build_session  # noqa: E402
from steiner_tui.engine.messages import Message, ToolCall  # noqa: E402
from steiner_tui.engine.provider import (  # noqa: E402
    ChatRequest,
    ModelInfo,
    ProviderEvent,
    StreamDone,
    StreamText,
    StreamToolCall,
    StreamUsage,
)
from steiner_tui.engine.snapshots import SnapshotStore  # noqa: E402
from steiner_tui.engine.tokens import default_encoding_loader  # noqa: E402
from steiner_tui.sessions.writer import SessionLog  # noqa: E402
from steiner_tui.tools.base import PermissionDecision, PermissionRequest, ToolContext  # noqa: E402
from steiner_tui.tools.executor import ToolExecutor  # noqa: E402
from steiner_tui.tools.registry import default_tools  # noqa: E402

MESSAGES = 10_000
CHECKPOINT = 1_000
"""Messages at which a copy of the session log is kept (the smaller resume)."""
INSPECTOR_SMALL, INSPECTOR_LARGE = 100, 10_000
PER_TURN_TARGET = 1.2
TIKTOKEN_TARGET = 2.0
"""Engine work per turn / tiktoken encoding the turn's new text, at each of the three sizes."""
EARLY = 100
"""Messages at which the first engine-work figure is taken."""
MIDDLE = 1_000
"""Messages at which the large soak's middle engine-work figure is taken."""
WINDOW_TURNS = 25
"""Turns per median (around 100 messages, and the last ones)."""
MESSAGES_PER_TURN = 4
ENCODER = default_encoding_loader(None).get("o200k_base")
"""tiktoken's o200k encoding (gpt-4o's), the baseline of the engine's work per turn."""
RESUMES = 5
"""Resumes of each log, the two logs in alternation: the time and the memory are the medians
(one resume of 20-150 ms in a fresh interpreter is at the mercy of whatever else the machine
runs at that moment; every resume is a new process, so none is a cache hit)."""


def _sources() -> list[str]:
    files = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "steiner_tui").rglob("*.py")
        if 1_000 <= p.stat().st_size <= 40_000
    )
    return files


@dataclass
class Timed:
    """Seconds spent outside the engine (provider streams and tool execution): processor
    time of this process, and wall time."""

    outside: float = 0.0
    outside_wall: float = 0.0

    def add(self, cpu_start: float, wall_start: float) -> None:
        self.outside += time.process_time() - cpu_start
        self.outside_wall += time.perf_counter() - wall_start


@dataclass
class SoakProvider:
    """Instant replies: a read of a real file, a bash command every eighth turn, a reply."""

    timed: Timed
    files: list[str]
    alias: str = "bench"
    stateful: bool = False
    turn: int = 0
    calls: int = 0
    replies: list[str] = field(default_factory=list)

    def model_info(self, model: str) -> ModelInfo:
        return ModelInfo(1_000_000_000, 8192)

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        cpu, wall = time.process_time(), time.perf_counter()
        last = request.messages[-1]
        self.calls += 1
        if last.role == "user":
            if self.turn % 8 == 7:
                command = "ls -la steiner_tui/engine steiner_tui/agent"
                call = ToolCall(f"c{self.calls}", "bash", {"command": command})
            else:
                path = self.files[self.turn % len(self.files)]
                # Each pass over the files reads from another line, so no read repeats an
                # earlier one (a repeat is deduplicated to a note): every turn brings new text.
                offset = 1 + self.turn // len(self.files)
                call = ToolCall(f"c{self.calls}", "read", {"path": path, "offset": offset})
            events: list[ProviderEvent] = [StreamText("Looking."), StreamToolCall(call)]
        else:
            events = [StreamText(f"Done with turn {self.turn}: it does what it says.")]
        events += [StreamUsage(request.raw_prompt_tokens or 1, 20), StreamDone()]
        self.timed.add(cpu, wall)
        for event in events:
            yield event


class TimedTools(ToolExecutor):
    """The real tools, their time counted as outside the engine."""

    def __init__(self, timed: Timed) -> None:
        super().__init__(default_tools())
        self.timed = timed

    async def execute(self, call: ToolCall, ctx: ToolContext):  # type: ignore[no-untyped-def]
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            return await super().execute(call, ctx)
        finally:
            self.timed.add(cpu, wall)


async def allow(request: PermissionRequest) -> PermissionDecision:
    return PermissionDecision.ALLOW_ALWAYS


@dataclass
class Soak:
    runner: Runner
    provider: SoakProvider
    timed: Timed
    log: SessionLog
    store: SnapshotStore
    folder: Path = Path()
    work: dict[int, float] = field(default_factory=dict)
    """Engine processor seconds of each turn, keyed by the message count after it."""
    wall: dict[int, float] = field(default_factory=dict)
    """Engine wall seconds of each turn (disk and scheduling waits included), the same keys."""
    checkpoint: Path | None = None
    """A copy of the session folder taken at ``CHECKPOINT`` messages."""
    window: list[int] = field(default_factory=list)
    """The message counts after the turns the per-turn figure is the median of."""
    middle: list[int] = field(default_factory=list)
    """The same, for the turns around ``MIDDLE`` messages (the large soak only)."""
    base: dict[int, float] = field(default_factory=dict)
    """Processor seconds tiktoken (o200k) takes to encode each turn's new text (the baseline
    of the engine's work per turn), keyed as ``work``; only for the turns of a window."""
    naive: dict[int, float] = field(default_factory=dict)
    """Processor seconds a naive peer spends recounting the whole prompt with tiktoken, at the
    end of each window, keyed by the message count."""
    resumed: dict[Path, dict[str, Any]] = field(default_factory=dict)

    @property
    def session_dir(self) -> Path:
        return self.folder / "sessions" / "soak"

    def resume(self, directory: Path) -> dict[str, Any]:
        """``bench_session_log.resume`` of ``directory`` and of the checkpoint, ``RESUMES``
        times each in alternation (once): the median time and the median memory."""
        if directory not in self.resumed:
            folders = list(dict.fromkeys(d for d in (directory, self.checkpoint) if d))
            runs: dict[Path, list[dict[str, Any]]] = {d: [] for d in folders}
            for _ in range(RESUMES):
                for folder in folders:
                    runs[folder].append(resume(folder))
            for folder, results in runs.items():
                self.resumed[folder] = {
                    **results[0],
                    "seconds": statistics.median(r["seconds"] for r in results),
                    "all_seconds": [r["seconds"] for r in results],
                    "rss": statistics.median(r["rss"] for r in results),
                }
        return self.resumed[directory]


def build(folder: Path, model_id: str = "offline") -> Soak:
    timed = Timed()
    provider = SoakProvider(timed, _sources())
    alias = "offline" if model_id == "offline" else "bench"
    model = MainModel(alias, model_id, provider, provider.model_info(model_id))
    clock = ManualClock(datetime(2026, 9, 13, 9, 0, tzinfo=UTC))
    request = SessionRequest(
        ROOT,
        config_dir=folder,
        model=model,
        session_id="soak",
        delegation=None,
        permission=allow,
        clock=clock,
    )
    session = build_session(request)  # recorded in folder/sessions/soak
    runner = session.runner
    runner.tools = TimedTools(timed)  # the same tools, their time counted outside the engine
    assert session.log is not None
    return Soak(runner, provider, timed, session.log, session.snapshots, folder)


async def drive(soak: Soak, messages: int) -> None:
    while len(soak.runner.conversation) < messages:
        await turn(soak)


def _text(messages: Sequence[Message]) -> str:
    return "".join(
        m.content + "".join(json.dumps(c.arguments) for c in m.tool_calls) for m in messages
    )


def encode_seconds(text: str) -> float:
    """Processor seconds tiktoken takes to encode ``text`` once (o200k), as the engine does:
    each text is new when the turn brings it."""
    start = time.process_time()
    ENCODER.encode_ordinary(text)
    return time.process_time() - start


async def turn(soak: Soak, *, baseline: bool = False) -> int:
    """One turn of ``soak``, its engine time recorded (``baseline``: and tiktoken's time for
    the turn's new text); the message count after it."""
    runner = soak.runner
    clock = runner.clock
    before = len(runner.conversation)
    soak.provider.turn += 1
    outside, outside_wall = soak.timed.outside, soak.timed.outside_wall
    cpu, wall = time.process_time(), time.perf_counter()
    result = await runner.run(Message("user", f"turn {soak.provider.turn}: what next?"))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert result.status == "done", result.error
    count = len(runner.conversation)
    soak.work[count] = cpu - (soak.timed.outside - outside)
    soak.wall[count] = wall - (soak.timed.outside_wall - outside_wall)
    if baseline:
        soak.base[count] = encode_seconds(_text(runner.conversation[before:]))
    if soak.checkpoint is None and len(runner.conversation) >= CHECKPOINT:
        soak.log.sync()  # everything so far on disk, then a copy of it
        soak.checkpoint = soak.folder / f"at{CHECKPOINT}"
        shutil.copytree(soak.session_dir, soak.checkpoint)
    if isinstance(clock, ManualClock):
        clock.advance(timedelta(seconds=30))
    return count


async def soak_both(large: Soak, small: Soak, messages: int) -> None:
    """Drive ``large`` to ``messages`` and ``small`` to around ``EARLY``, the last
    ``WINDOW_TURNS`` turns of each taken in alternation (one of ``small``, one of ``large``),
    so that whatever else the machine does at that moment weighs on both figures alike."""
    window = MESSAGES_PER_TURN * WINDOW_TURNS
    if messages > MIDDLE + window:
        await drive(large, MIDDLE - window // 2)
        for _ in range(WINDOW_TURNS):
            large.middle.append(await turn(large, baseline=True))
        large.naive[large.middle[-1]] = naive_seconds(large)
    await drive(large, messages - window)
    await drive(small, EARLY - window // 2)
    for _ in range(WINDOW_TURNS):
        small.window.append(await turn(small, baseline=True))
        large.window.append(await turn(large, baseline=True))
    small.naive[small.window[-1]] = naive_seconds(small)
    large.naive[large.window[-1]] = naive_seconds(large)


def naive_seconds(soak: Soak) -> float:
    """What a naive peer spends per turn: tiktoken over the whole conversation's text."""
    return encode_seconds(_text(soak.runner.conversation))


def median_work(work: dict[int, float], window: list[int]) -> float:
    """The median of ``work`` over the turns ending at the message counts ``window``."""
    return statistics.median(work[c] for c in window)


# -- the figures of the other benchmarks, measured on what the soak wrote -------------------


def message_text(soak: Soak) -> int:
    """Bytes of the distinct message text (role and content)."""
    return sum(len(m.content.encode()) + len(m.role) for m in soak.runner.conversation)


def calls_text(soak: Soak) -> int:
    """Bytes of the tool calls' names and arguments (compact JSON): message text too."""
    messages = soak.runner.conversation
    return sum(len(c.name) + len(c.arguments_json) for m in messages for c in m.tool_calls)


def log_bytes_per_message_text(soak: Soak) -> float | None:
    """Session log bytes (``bench_session_log.log_size``) / distinct message text bytes: role,
    content and tool calls, as bench_session_log counts (over role and content alone printed
    as information)."""
    log = soak.session_dir / "session.jsonl"
    if not log.is_file():
        return None
    size, contents = log_size(soak.session_dir), message_text(soak)
    print(f"session log bytes / role and content alone: {size / contents:.3f}x (information)")
    ratio = size / (contents + calls_text(soak))
    print(f"session log bytes / message text with tool calls: {ratio:.3f}x")
    return ratio


def compile_source() -> None:
    """Write the bytecode of the checkout measured, as an installed app has it.

    What a resume adds to resident memory depends on whether its imports compiled modules:
    compiling leaves freed memory that the load reuses, and the same log measured 1.6x without
    bytecode and 1.9x with it. The figures are taken with bytecode written, the larger.
    """
    compileall.compile_dir(SOURCE / "steiner_tui", quiet=1)


def resume_ratio(soak: Soak) -> float | None:
    """Resume time at 10,000 / at 1,000 messages (target < 12x)."""
    if soak.checkpoint is None:
        return None
    late, early = soak.resume(soak.session_dir), soak.resume(soak.checkpoint)

    def times(result: dict[str, Any]) -> str:
        return ", ".join(f"{t:.3f}" for t in result["all_seconds"])

    print(
        f"resume at {CHECKPOINT:,} messages: {early['seconds']:.3f}s ({times(early)}), at "
        f"{late['messages']:,}: {late['seconds']:.3f}s ({times(late)}) (median of "
        f"{RESUMES}; information)"
    )
    return float(late["seconds"]) / float(early["seconds"])


def memory_after_resume(soak: Soak) -> float | None:
    """Resident memory after resume / message text (target < 3x)."""
    return float(soak.resume(soak.session_dir)["rss"]) / message_text(soak)


HASHED = (
    RESUME
    + """
hashes = loaded.requests[-1].message_hashes if len(loaded.requests) else ()
print(json.dumps({"rss": rss() - before, "hashes": len(hashes)}))
"""
)
"""``bench_session_log.RESUME``, then every hash of the last request rebuilt, as a resumed
session does before its first request (the loader leaves them to be computed when asked)."""


def memory_with_hashes(soak: Soak) -> float:
    """Resident memory after resume with the last request's hashes rebuilt / message text
    (information: the figure a resumed session holds once it goes on)."""
    out = subprocess.run(
        [sys.executable, "-c", HASHED, str(soak.session_dir), str(SOURCE)],
        capture_output=True,
        text=True,
        check=True,
    )
    rss = json.loads(out.stdout.splitlines()[-1])["rss"]
    return float(rss) / message_text(soak)


def inspector_open_ratio(soak: Soak) -> float | None:
    """Inspector open time at 10,000 / at 100 requests (target < 2x)."""
    if len(soak.store) < INSPECTOR_SMALL:
        return None
    snapshots = [soak.store.at(p) for p in range(len(soak.store))]
    small = replayed(snapshots[:INSPECTOR_SMALL], INSPECTOR_SMALL)
    large = soak.store
    if len(large) < INSPECTOR_LARGE:
        large = replayed(snapshots, INSPECTOR_LARGE)
    a, b, ratio = open_ratio(small, large)
    print(
        f"inspector open at {len(small):,} requests: {a * 1000:.1f} ms, at {len(large):,}: "
        f"{b * 1000:.1f} ms (information)"
    )
    return ratio


def verdict(value: float, target: float) -> str:
    return "met" if value < target else "MISSED"


def at_most(value: float, target: float) -> str:
    return "met" if value <= target else "MISSED"


def per_turn_table(large: Soak, small: Soak, model_id: str) -> bool:
    """Engine work per turn against tiktoken encoding the turn's new text, at about 100, 1,000
    and 10,000 messages, and the naive peer's recount of the whole prompt; True when missed."""
    missed = False
    rows = [(small, small.window), (large, large.middle), (large, large.window)]
    print(
        f"{model_id}: {'messages':>13} {'engine ms':>10} {'tiktoken ms':>12} {'ratio':>7} "
        f"{'naive peer ms':>14} {'naive/engine':>13}"
    )
    for soak, window in rows:
        if not window:
            continue
        engine = median_work(soak.work, window)
        base = statistics.median(soak.base[c] for c in window)
        ratio = engine / base
        naive = soak.naive[window[-1]]
        missed = missed or ratio > TIKTOKEN_TARGET
        print(
            f"{model_id}: {f'{window[0]:,}-{window[-1]:,}':>13} {engine * 1000:>10.2f} "
            f"{base * 1000:>12.2f} {ratio:>6.2f}x {naive * 1000:>14.1f} {naive / engine:>12.0f}x"
            f"  engine/tiktoken target <= {TIKTOKEN_TARGET}x: {at_most(ratio, TIKTOKEN_TARGET)}"
        )
    early = median_work(small.work, small.window)
    late = median_work(large.work, large.window)
    ratio = late / early
    size = len(large.runner.conversation)
    print(
        f"{model_id}: engine work per turn {size:,} / {EARLY} messages: {ratio:.2f}x "
        f"(target <= {PER_TURN_TARGET}x): {at_most(ratio, PER_TURN_TARGET)}"
    )
    return missed or ratio > PER_TURN_TARGET


def usable_resume_ratio(soak: Soak) -> float:
    """Resume to a usable session (``load_session`` + build) / an orjson line-by-line parse of
    the same log, its ``session.text`` read and decoded (``bench_session_log.RESUME_BUILD``;
    target <= 2x), the median of ``RESUMES`` resumes in fresh interpreters."""
    runs = [resume_to_usable(soak.session_dir, ROOT) for _ in range(RESUMES)]
    ratios = [(r["load"] + r["build"]) / r["orjson"] for r in runs]
    best = min(runs, key=lambda r: r["load"] + r["build"])
    print(
        f"resume of {len(soak.runner.conversation):,} messages (processor time, fastest of "
        f"{RESUMES}): orjson parse {best['orjson'] * 1000:.0f} ms, load_session "
        f"{best['load'] * 1000:.0f} ms, build {best['build'] * 1000:.0f} ms (information); "
        f"file tracker built at first use (the first tool call, not in the ratio): "
        f"{best['tracker'] * 1000:.0f} ms"
    )
    return statistics.median(ratios)


def main(argv: list[str]) -> int:
    messages = int(argv[0]) if argv else MESSAGES
    models = argv[1].split(",") if len(argv) > 1 else ["offline", "gpt-4o"]
    missed = False
    for model_id in models:
        with tempfile.TemporaryDirectory() as tmp:
            soak = build(Path(tmp), model_id)
            (Path(tmp) / "small").mkdir()
            small = build(Path(tmp) / "small", model_id)
            started = time.perf_counter()
            asyncio.run(soak_both(soak, small, messages))
            total = time.perf_counter() - started
            soak.log.close()
            small.log.close()
            print(
                f"{model_id} soak: {len(soak.runner.conversation):,} messages in "
                f"{soak.provider.turn:,} turns, {len(soak.store):,} requests, {total:.1f}s "
                f"(tools and provider {soak.timed.outside_wall:.1f}s)"
            )
            early_wall = median_work(small.wall, small.window)
            late_wall = median_work(soak.wall, soak.window)
            print(
                f"{model_id}: engine wall time per turn (disk and scheduling waits included) "
                f"at {EARLY} messages: {early_wall * 1000:.2f} ms, at "
                f"{len(soak.runner.conversation):,}: {late_wall * 1000:.2f} ms, "
                f"{late_wall / early_wall:.2f}x (information)"
            )
            missed = per_turn_table(soak, small, model_id) or missed
            if model_id != models[0]:
                continue
            others = (
                (
                    "session log bytes / message text with tool calls (file-heavy)",
                    log_bytes_per_message_text,
                    1.05,
                ),
                ("resume to a usable session / orjson parse of the log", usable_resume_ratio, 2.0),
                (f"resume time {messages:,} / {CHECKPOINT:,} messages", resume_ratio, 12.0),
                ("resident memory after resume / message text", memory_after_resume, 3.0),
                (
                    f"inspector open {max(INSPECTOR_LARGE, len(soak.store)):,} / "
                    f"{INSPECTOR_SMALL} requests",
                    inspector_open_ratio,
                    2.0,
                ),
            )
            compile_source()
            for label, figure, target in others:
                value = figure(soak)
                if value is None:
                    print(f"{label}: not measured here (target < {target}x)")
                    continue
                print(f"{label}: {value:.2f}x (target < {target}x): {verdict(value, target)}")
                missed = missed or value >= target
                if figure is memory_after_resume:
                    print(
                        "resident memory after resume with the last request's hashes rebuilt / "
                        f"message text: {memory_with_hashes(soak):.2f}x (information)"
                    )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
