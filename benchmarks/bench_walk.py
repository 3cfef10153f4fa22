"""``grep`` and ``glob`` over a 200,000-file project, against a plain ``os.walk`` loop.

Generates a project in a temporary folder: 200,000 files in nested folders, most of them in
folders the tools skip (``third_party/`` and ``build/``, ignored by the root ``.gitignore``, and a
``node_modules/``), plus ignored ``*.log`` files and one negated back, binary files (a NUL byte
near the start) and large text files (4 MiB, two over the 10 MiB limit). Then it times, best of
``REPEAT`` runs on a warm cache:

- the tools: ``grep`` for a rare literal (a full scan), a case-insensitive regex limited by a
  ``*.py`` glob, a common word (stops at the 200-match cap), ``glob`` for ``**/*.py`` (every file
  walked, the count kept) and for ``src/**/test_*.py``;
- the floor, in turn with each tool run: a plain ``os.walk`` that prunes the ignored folder
  names, ``open().read()``, a skip of large and binary files, ``decode`` and one ``re.search``
  per file, then one per line of a file that matched, stopping at 200 matching lines (for
  ``glob``: one ``re.match`` per path, then ``sorted``); it honours no ``.gitignore`` line but
  the folders, checks no file type and formats no result, so it is about the least a plain
  Python walk does;
- GNU ``grep -rIn`` and ``find`` with the same folders excluded, for information, when present.

Target: each tool run <= ``TARGET`` x its floor. ``--compare CHECKOUT`` also times the tools of
another checkout (say ``/work/main``, the "before") over the same tree, prints after / before,
and checks that both return the same text for every workload (a difference counts as missed).
Ratios are of CPU seconds (user + system) of the process, which a shared, busy machine disturbs
far less than wall time: the tools are single-threaded and the tree is in the page cache, so
on an idle machine wall time is about the CPU time. Wall times are printed for information
only; a missed target is printed as MISSED and exits 1.

Run: ``uv run python benchmarks/bench_walk.py [--compare CHECKOUT] [--files N]``.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

sys.path.insert(0, os.environ.get("STEINER_BENCH_SRC", str(Path(__file__).resolve().parents[1])))

from steiner_tui.tools.base import ToolResult
from steiner_tui.tools.files import MAX_FILE_BYTES
from steiner_tui.tools.glob import glob_files
from steiner_tui.tools.grep import MATCH_CAP, grep

HERE = Path(__file__).resolve().parent
SOURCE = Path(sys.path[0])
"""The checkout whose tools are measured: ``STEINER_BENCH_SRC``, or this one."""
FILES = 200_000
REPEAT = 3
TARGET = 1.5
IGNORED_DIRS = ("third_party", "build", "node_modules", ".git")
GITIGNORE = "# generated\nthird_party/\n/build\n*.log\n!keep.log\n*.tmp\n"
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "value",
    "result",
    "config",
    "handler",
    "request",
    "response",
    "import",
    "return",
    "session",
    "buffer",
    "parse",
    "render",
    "token",
    "stream",
    "cache",
    "index",
    "window",
]
RARE = "needle_7f3a"


class GrepCase(msgspec.Struct, frozen=True):
    """One ``grep`` call: the tool's arguments."""

    pattern: str
    glob: str | None = None
    case_insensitive: bool = False


GREP_CASES = {
    "grep rare literal": GrepCase(RARE),
    "grep -i regex, glob *.py": GrepCase(r"def\s+handle_[a-z]+_42\b", "*.py", True),
    "grep common word (cap)": GrepCase(r"\bimport\b"),
}
GLOB_CASES: dict[str, str] = {
    "glob **/*.py": "**/*.py",
    "glob src/**/test_*.py": "src/**/test_*.py",
}


def _source_text(rng: random.Random, lines: int) -> str:
    out = []
    for _ in range(lines):
        out.append("    " * rng.randint(0, 2) + " ".join(rng.choices(WORDS, k=rng.randint(3, 10))))
    return "\n".join(out) + "\n"


def make_tree(root: Path, total: int) -> None:
    """Write the project: about 55% ignored, 1% binary, 12 large files, the rest source."""
    rng = random.Random(7)
    (root / ".gitignore").write_text(GITIGNORE)
    texts = [_source_text(rng, rng.randint(10, 80)) for _ in range(64)]

    def write_many(base: str, count: int, suffixes: tuple[str, ...], fan: int = 20) -> None:
        for i in range(count):
            folder = root / base / f"p{i // (fan * fan) % 50}" / f"m{i // fan % fan}"
            if i % fan == 0:
                folder.mkdir(parents=True, exist_ok=True)
            name = f"f{i}{suffixes[i % len(suffixes)]}"
            text = texts[i % len(texts)]
            if i % 997 == 0:
                text += f"{RARE} = {i}\n"
            if i % 1999 == 0:
                text += "def handle_request_42(x):\n"
            if base == "src" and i % 7 == 0:
                name = f"test_{name}"
            (folder / name).write_text(text)

    ignored = total * 55 // 100
    write_many("third_party", ignored * 70 // 100, (".js", ".py", ".json"))
    write_many("node_modules", ignored * 20 // 100, (".js",))
    write_many("build", ignored * 10 // 100, (".py", ".o"))
    binary = total // 100
    large = 12
    logs = 1_000
    visible = total - ignored - binary - large - logs
    write_many("src", visible * 85 // 100, (".py", ".ts", ".md", ".txt"))
    write_many("docs", visible - visible * 85 // 100, (".md", ".rst"))
    blob = bytes(rng.randrange(256) for _ in range(8192)) + b"\0" + RARE.encode()
    for i in range(binary):
        folder = root / "assets" / f"a{i // 200}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"img{i}.bin").write_bytes(blob[i % 64 :] + b"\0")
    for i in range(logs):
        folder = root / "logs" / f"l{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ("keep.log" if i % 100 == 0 else f"run{i}.log")).write_text(texts[i % 64])
    big = "".join(texts) * 1
    for i in range(large):
        mib = 12 if i < 2 else 4
        chunk = big * (mib * 1024 * 1024 // len(big) + 1)
        (root / "data").mkdir(exist_ok=True)
        (root / "data" / f"large{i}.txt").write_text(chunk[: mib * 1024 * 1024] + f"{RARE}\n")


class Timing(msgspec.Struct):
    """Best-of times of a workload, wall-clock and this process's CPU (user + system)."""

    wall: float = float("inf")
    cpu: float = float("inf")

    def add(self, run: Callable[[], object], children: bool = False) -> None:
        """Time one ``run()`` (``children``: count its child processes' CPU instead)."""
        cpu_start, wall_start = _cpu(children), time.perf_counter()
        run()
        self.wall = min(self.wall, time.perf_counter() - wall_start)
        self.cpu = min(self.cpu, _cpu(children) - cpu_start)


class Measured(msgspec.Struct):
    """One workload in one checkout: the tool, the floor timed in turn with it, the result."""

    tool: Timing
    floor: Timing
    content: str


def _cpu(children: bool) -> float:
    """CPU seconds so far: the process's own with its waited-for children's (``grep`` runs
    ripgrep as a child; ``children`` alone for a command timed by itself)."""
    total = 0.0
    for who in (
        (resource.RUSAGE_CHILDREN,)
        if children
        else (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    ):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _alternate(tool: Callable[[], ToolResult], floor: Callable[[], object]) -> Measured:
    """``REPEAT`` rounds of the floor then the tool, so a change in the machine's load
    between them (it is shared) weighs on both alike."""
    results: list[ToolResult] = []
    measured = Measured(Timing(), Timing(), "")
    for _ in range(REPEAT):
        measured.floor.add(floor)
        measured.tool.add(lambda: results.append(tool()))
    measured.content = results[-1].content
    return measured


def measure_tools(tree: Path) -> dict[str, Measured]:
    """Each workload's timings and result text, with ``SOURCE``'s tools (run in a child)."""
    out: dict[str, Measured] = {}
    for label, case in GREP_CASES.items():
        call = functools.partial(
            grep, tree, case.pattern, glob=case.glob, case_insensitive=case.case_insensitive
        )
        flags = re.IGNORECASE if case.case_insensitive else 0
        floor = functools.partial(floor_grep, tree, case.pattern, case.glob is not None, flags)
        out[label] = _alternate(call, floor)
    for label, pattern in GLOB_CASES.items():
        out[label] = _alternate(
            functools.partial(glob_files, tree, pattern),
            functools.partial(floor_glob, tree, pattern),
        )
    return out


def _tools_in_child(source: Path, tree: Path) -> dict[str, Measured]:
    argv = [sys.executable, __file__, "--child", str(tree)]
    env = {**os.environ, "STEINER_BENCH_SRC": str(source.resolve())}
    done = subprocess.run(argv, check=True, capture_output=True, env=env)
    return msgspec.json.decode(done.stdout, type=dict[str, Measured])


def _floor_walk(tree: Path) -> Iterator[tuple[str, str]]:
    for folder, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in sorted(filenames):
            yield os.path.join(folder, name), name  # noqa: PTH118 (the plain loop)


def floor_grep(tree: Path, pattern: str, only_py: bool, flags: int) -> int:
    """Matching lines by the plainest loop: walk, read, skip what the tool skips (over 10 MiB,
    a NUL byte in the first 8 KiB), decode, one search per file, then one per line of a file
    that matched, stopping at ``MATCH_CAP`` lines as the tool does."""
    regex = re.compile(pattern, flags)
    found = 0
    for path, name in _floor_walk(tree):
        if only_py and not name.endswith(".py"):
            continue
        with open(path, "rb") as handle:  # noqa: PTH123 (the plain loop)
            data = handle.read()
        if len(data) > MAX_FILE_BYTES or b"\0" in data[:8192]:
            continue
        text = data.decode("utf-8", errors="replace")
        if regex.search(text) is None:
            continue
        for line in text.splitlines():
            found += regex.search(line) is not None
            if found >= MATCH_CAP:
                return found
    return found


def floor_glob(tree: Path, pattern: str) -> int:
    """Matching paths by the plainest loop: walk, one match per relative path, sorted."""
    regex = re.compile(
        pattern.replace(".", r"\.").replace("**/", "(?:.*/)?").replace("*", "[^/]*") + r"\Z"
    )
    start = len(str(tree)) + 1
    return len(sorted(p[start:] for p, _ in _floor_walk(tree) if regex.match(p[start:])))


def gnu_grep(tree: Path, pattern: str) -> Timing | None:
    if not shutil.which("grep"):
        return None
    excludes = [f"--exclude-dir={d}" for d in IGNORED_DIRS] + ["--exclude=*.log"]
    argv = ["grep", "-rIn", *excludes, "-E", pattern, str(tree)]
    timing = Timing()
    for _ in range(REPEAT):
        timing.add(lambda: subprocess.run(argv, capture_output=True, check=False), True)
    return timing


def gnu_find(tree: Path) -> Timing | None:
    if not shutil.which("find"):
        return None
    prune = [arg for d in IGNORED_DIRS for arg in ("-name", d, "-o")]
    argv = ["find", str(tree), "(", *prune[:-1], ")", "-prune", "-o", "-name", "*.py", "-print"]
    timing = Timing()
    for _ in range(REPEAT):
        timing.add(lambda: subprocess.run(argv, capture_output=True, check=False), True)
    return timing


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compare", type=Path, help="another checkout: the 'before' tools")
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        sys.stdout.buffer.write(msgspec.json.encode(measure_tools(args.child)))
        return 0
    with tempfile.TemporaryDirectory(prefix="bench_walk_") as tmp:
        tree = Path(tmp) / "project"
        tree.mkdir()
        start = time.perf_counter()
        make_tree(tree, args.files)
        count = sum(len(f) for _, _, f in os.walk(tree))
        print(f"tree: {count:,} files in {time.perf_counter() - start:.1f}s", flush=True)
        floor_grep(tree, RARE, False, 0)  # warm the cache
        after = _tools_in_child(HERE.parent, tree)
        before = _tools_in_child(args.compare, tree) if args.compare else None
        return report(tree, after, before)


def report(tree: Path, after: dict[str, Measured], before: dict[str, Measured] | None) -> int:
    """Print the table (ratios of CPU seconds; wall seconds for information) and the verdict."""
    missed = 0
    header = f"{'workload':26} {'tool cpu':>9} {'(wall)':>8} {'floor cpu':>9} {'tool/floor':>10}"
    if before:
        header += f" {'before cpu':>10} {'(wall)':>8} {'after/before':>12} {'same':>5}"
    print(header)
    for label, now in after.items():
        ratio = now.tool.cpu / now.floor.cpu
        ok = ratio <= TARGET
        missed += not ok
        line = (
            f"{label:26} {now.tool.cpu:8.3f}s {now.tool.wall:7.3f}s {now.floor.cpu:8.3f}s "
            f"{ratio:9.2f}x"
        )
        if before:
            old = before[label]
            same = "yes" if old.content == now.content else "NO"
            missed += same != "yes"
            line += (
                f" {old.tool.cpu:9.3f}s {old.tool.wall:7.3f}s "
                f"{now.tool.cpu / old.tool.cpu:11.3f}x {same:>5}"
            )
        print(line + ("" if ok else f"  MISSED (target <= {TARGET}x the floor)"))
    grep_time = gnu_grep(tree, RARE)
    if grep_time is not None:
        mine = after["grep rare literal"].tool
        print(
            f"GNU grep -rIn (rare literal): {grep_time.cpu:.3f}s cpu, {grep_time.wall:.3f}s wall; "
            f"grep tool / GNU grep: {mine.cpu / grep_time.cpu:.2f}x cpu, "
            f"{mine.wall / grep_time.wall:.2f}x wall (information)"
        )
    find_time = gnu_find(tree)
    if find_time is not None:
        mine = after["glob **/*.py"].tool
        print(
            f"GNU find -name '*.py': {find_time.cpu:.3f}s cpu, {find_time.wall:.3f}s wall; "
            f"glob tool / find: {mine.cpu / find_time.cpu:.2f}x cpu, "
            f"{mine.wall / find_time.wall:.2f}x wall (information)"
        )
    print("all targets met" if not missed else f"{missed} target(s) MISSED")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
