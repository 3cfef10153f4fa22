"""Session log size, resume time and memory at 1k / 2k / 4k / 10k messages (issue 14).

Drives the real ``SessionLog`` with real-shaped traffic: each turn is a user message, an
assistant tool call, a tool result holding a real source file of this repository (1-40 KB, or
a bash-like listing), and a short reply; every assistant message follows a request snapshot of
the whole conversation, as the runner sends it. No compaction happens, the worst case for the
log. Each size is written, then resumed (``load_session``) in a fresh interpreter that reports
the resume time and the resident memory it added: its resident memory after the load minus
that just before, its imports done, a collection run and the C heap's free memory handed back
to the system first. Without that last step the figure depended on how much memory the
imports had freed (compiling modules, for one) for the load to reuse: the same log measured
1.6x or 3.0x depending on whether the checkout's bytecode was cached.

Printed per size: log bytes (``session.jsonl`` and ``session.text``, the large texts it keeps
outside JSON), distinct message text bytes, their ratio (target < 1.05x; on chatty
traffic, a question and a reply of prose per turn, < 1.1x at the largest size). Message text is
what the model reads of each message: its role, its content, and each tool call's name and
arguments (compact JSON); the ratio over role and content alone (as measured before tool calls
were counted) is printed beside it as information. resume
seconds, resident memory after resume / message text (target < 3x), and resume time at 10k /
at 1k (target < 12x, linear). Each target says plainly whether it was met, and the exit status
is 1 when one was missed.

Run: ``uv run python benchmarks/bench_session_log.py [sizes...]``. Set ``STEINER_BENCH_SRC`` to
another checkout's root to measure that version's log format (the "before" figures).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, os.environ.get("STEINER_BENCH_SRC", str(Path(__file__).resolve().parents[1])))

from steiner_tui.engine.compaction.fallback import LastMainRequest
from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.events import MessageAppended
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.snapshots import build_request_snapshot
from steiner_tui.sessions.writer import SessionLog

HERE = Path(__file__).resolve().parent
SOURCE = Path(sys.path[0])
"""The checkout measured: ``STEINER_BENCH_SRC``, or this one (first on the import path)."""

SIZES = (1000, 2000, 4000, 10000)
LOG_TARGET, CHATTY_TARGET, MEMORY_TARGET, LINEAR_TARGET = 1.05, 1.1, 3.0, 12.0
"""Log bytes / message text: file-heavy traffic, chatty traffic; memory; resume linearity."""


@dataclass
class _Model:
    alias: str = "bench"
    model: str = "bench-model"
    prompt_cache_key: str = "steiner-bench"


@dataclass
class _State:
    turn: int = 0


@dataclass
class _Runner:
    """What ``SessionLog`` reads from a runner."""

    lineage: Any
    model: _Model = field(default_factory=_Model)
    state: _State = field(default_factory=_State)
    project_root: Path = HERE.parent
    last_main_request: Any = None


def _payloads() -> list[str]:
    files = sorted(p for p in (SOURCE / "steiner_tui").rglob("*.py") if p.stat().st_size > 1000)
    texts = [p.read_text(encoding="utf-8")[:40_000] for p in files]
    listing = "\n".join(
        f"-rw-r--r-- 1 dev dev {len(t):>6} {p.name}" for p, t in zip(files, texts, strict=True)
    )
    return [*texts, listing]


_CHATTY = (
    "the parser keeps spans on every token so the error names the line and the column where "
    "it went wrong and the tests check each path through read write edit and grep"
)
CHATTY_WORDS = _CHATTY.split()


def write_log(directory: Path, messages: int, *, chatty: bool = False) -> tuple[int, int]:
    """Write a session of ``messages`` messages; return the distinct message text bytes (role,
    content, tool calls' names and arguments) and those of roles and contents alone.

    ``chatty``: no tools, a question of a line or two and a reply of a paragraph or three per
    turn (where each record's framing weighs most), instead of a file read per turn.
    """

    @dataclass
    class Estimate:
        tokens: int = 0
        raw_tokens: int = 0
        strategy: str = "bench"
        confidence: str = "low"

    clock = datetime(2026, 9, 13, tzinfo=UTC)
    log = SessionLog.create(directory, clock=lambda: clock)
    runner = _Runner(ConversationLineage(), last_main_request=LastMainRequest())
    log.bind(runner)  # type: ignore[arg-type]
    payloads = _payloads()
    conversation: list[Message] = []
    text_bytes = calls_bytes = 0
    index = 0

    def append(message: Message) -> None:
        nonlocal text_bytes, calls_bytes
        conversation.append(message)
        runner.lineage = ConversationLineage.start(conversation)
        text_bytes += len(message.content.encode()) + len(message.role)
        calls_bytes += sum(len(c.name) + len(c.arguments_json) for c in message.tool_calls)
        log.emit(MessageAppended(message))

    def request() -> None:
        nonlocal index
        snapshot = build_request_snapshot(
            request_id=f"bench-{index}",
            index=index,
            model="bench-model",
            provider="bench",
            time=clock + timedelta(seconds=index),
            messages=conversation,
            blocks=(),
            block_message_count=0,
            tools=(),
            max_tokens=4096,
            estimate=Estimate(),
        )
        index += 1
        log.emit(snapshot)

    turn = 0
    words = random.Random(3)

    def prose(count: int) -> str:
        return " ".join(words.choice(CHATTY_WORDS) for _ in range(count))

    while chatty and len(conversation) < messages:
        turn += 1
        runner.state.turn = turn
        append(Message("user", f"turn {turn}: {prose(words.randint(8, 60))}?", turn=turn))
        request()
        append(Message("assistant", prose(words.randint(40, 400)), turn=turn))
    while len(conversation) < messages:
        turn += 1
        runner.state.turn = turn
        append(Message("user", f"turn {turn}: what does the next file do?", turn=turn))
        request()
        call = ToolCall(f"c{turn}", "read", {"path": f"file{turn}.py"})
        append(Message("assistant", "Reading it.", tool_calls=(call,), turn=turn))
        payload = payloads[turn % len(payloads)]
        append(Message("tool", payload, name="read", tool_call_id=call.id, turn=turn))
        request()
        append(Message("assistant", f"It is module {turn}; it does its job.", turn=turn))
    log.close()
    return text_bytes + calls_bytes, text_bytes


RESUME = """
import ctypes, gc, json, sys, time
sys.path.insert(0, sys.argv[2])
from pathlib import Path
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
from steiner_tui.sessions.loader import load_session
import steiner_tui.sessions.records, steiner_tui.engine.messages
gc.collect()
ctypes.CDLL("libc.so.6").malloc_trim(0)  # memory freed by the imports is not counted as held
before = rss()
start = time.perf_counter()
loaded = load_session(Path(sys.argv[1]))
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rss": rss() - before,
                  "messages": len(loaded.lineage.active.messages),
                  "problems": len(loaded.problems)}))
"""


RESUME_BUILD = """
import json, pickle, sys, time
sys.path.insert(0, sys.argv[2])
from pathlib import Path
import orjson
from steiner_tui.agent.session import SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.engine.templates import cache_compiled_templates
from steiner_tui.sessions.loader import load_session
directory = Path(sys.argv[1])
cache_compiled_templates(directory.parent.parent / "templates")  # as the app does at launch
start = time.process_time()
with (directory / "session.jsonl").open("rb") as log:
    for line in log:
        orjson.loads(line)
texts = directory / "session.text"
if texts.is_file():  # the log's large texts, outside JSON: read and decoded as a parser would
    texts.read_bytes().decode()
parse = time.process_time() - start
start = time.process_time()
loaded = load_session(directory)
load = time.process_time() - start
start = time.process_time()
request = SessionRequest(Path(sys.argv[3]), config_dir=directory.parent.parent, resume=loaded,
                         delegation=None)
session = build_session(request)
session.preview()  # usable: the next request assembled, every hash of it known
build = time.process_time() - start
start = time.process_time()
session.runner.state.tracker  # built at its first use (the first tool call): shown beside
tracker = time.process_time() - start
session.close()
print(json.dumps({"orjson": parse, "load": load, "build": build, "tracker": tracker}))
"""
"""One resume to a usable session in a fresh interpreter, its imports done first: processor
seconds of an orjson parse of the log line by line, plus reading and decoding its
``session.text`` (the baseline: the texts the lines would otherwise hold as JSON strings), of
``load_session``, and of building the session from it (``build_session``, then the dry run of
its next request). The file tracker, which a resumed session builds at its first tool call,
is built right after, its time given beside (``tracker``, not part of ``build``).

"Its imports" are what the app has imported when it resumes. The app loads the session before
its first frame and builds it after (``commands.app``, ``app.workbench_session``); of the
modules the timed part imports, it had imported only ``pickle`` by then, so that one is
imported first (jinja2, imported with the first render, is not: its import stays timed). The
interpreter keeps compiled bytecode (``resume_to_usable``), as an installed app's does: without
it, as where ``PYTHONDONTWRITEBYTECODE`` is set, every resume compiled jinja2 from source
(about 40 ms). It keeps compiled prompt templates and their last renders too, in the folder
above the sessions, as the app keeps them in the user cache dir
(``commands.headless_io.keep_compiled_templates``): the first resume imports jinja2 and renders
the preamble, the others read the render back without jinja2 (about 16 ms less)."""


def resume_to_usable(directory: Path, project: Path) -> dict[str, float]:
    """``RESUME_BUILD`` over the session in ``directory`` (its project ``project``), the
    bytecode kept in the folder above its sessions (the first resume compiles it)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(directory.parent.parent / "bytecode")
    out = subprocess.run(
        [sys.executable, "-c", RESUME_BUILD, str(directory), str(SOURCE), str(project)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, float] = json.loads(out.stdout.splitlines()[-1])
    return result


def log_size(directory: Path) -> int:
    """Bytes of a session's log: ``session.jsonl`` and, when it has one, ``session.text``."""
    files = (directory / "session.jsonl", directory / "session.text")
    return sum(f.stat().st_size for f in files if f.is_file())


def resume(directory: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", RESUME, str(directory), str(SOURCE)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def verdict(value: float, target: float) -> str:
    return f"{value:.2f}x ({'met' if value < target else 'MISSED'}: target < {target}x)"


def main(argv: list[str]) -> int:
    sizes = tuple(int(a) for a in argv) or SIZES
    print(f"source: {SOURCE}")
    missed = 0
    times: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            directory = Path(tmp) / f"bench{size}"
            started = time.perf_counter()
            text, contents = write_log(directory, size)
            written = time.perf_counter() - started
            log_bytes = log_size(directory)
            result = resume(directory)
            times[size] = result["seconds"]
            log_ratio, memory_ratio = log_bytes / text, result["rss"] / text
            missed += log_ratio >= LOG_TARGET
            missed += memory_ratio >= MEMORY_TARGET
            print(
                f"{size:>6} messages: log {log_bytes / 1e6:8.1f} MB, text {text / 1e6:6.1f} MB, "
                f"log/text {verdict(log_ratio, LOG_TARGET)} ({log_ratio:.3f}x; over role and "
                f"content alone: {log_bytes / contents:.3f}x, information); written in "
                f"{written:.1f}s; "
                f"resume {result['seconds']:.2f}s, rss +{result['rss'] / 1e6:.0f} MB, "
                f"rss/text {verdict(memory_ratio, MEMORY_TARGET)}; "
                f"{result['messages']} messages, {result['problems']} problems",
                flush=True,
            )
        size = max(sizes)
        directory = Path(tmp) / f"chatty{size}"
        text, _ = write_log(directory, size, chatty=True)  # no tool calls
        log_ratio = log_size(directory) / text
        missed += log_ratio >= CHATTY_TARGET
        print(
            f"{size:>6} chatty messages: text {text / 1e6:6.1f} MB, "
            f"log/text {verdict(log_ratio, CHATTY_TARGET)} ({log_ratio:.3f}x)"
        )
    if 1000 in times and 10000 in times:
        linear = times[10000] / times[1000]
        missed += linear >= LINEAR_TARGET
        print(f"resume at 10k / at 1k: {verdict(linear, LINEAR_TARGET)}")
    print("all targets met" if not missed else f"{missed} target(s) MISSED")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
