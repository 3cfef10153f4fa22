"""Start-up as a user sees it: from launching the program to its screen on a terminal.

Each program runs in a pseudo-terminal of 120x36, with a fresh home (no user configuration) and
a copy of the sample project as its working folder: ``steiner-tui`` (the console script, as
``uv run steiner-tui`` runs it, minus uv's own start-up) against ``bare_app.py`` (a bare Textual
app with a Header and a Footer) started by the same Python. The clock runs from the launch to
the moment the bytes of a screen arrive, recognised by text it draws. This includes the
interpreter's start, every import, reading the configuration and the app's frames. Every launch
is a new process (nothing is cached in it); runs alternate and medians are compared.

Three ratios, each with its target:

1. First frame of a new session ("Context", the context panel's border title: at 120 columns
   the workbench docks the context panel beside the conversation, not the skill sidebar)
   against the bare app's first frame ("BareApp" in its header): < 1.5x.
2. The first frame with the context panel filled ("dry run" in its title: the session is open,
   its skills listed and every key works) against the bare app's first frame: < 2x.
3. Resuming a saved session of 2,000 messages (``--resume``) to a usable screen (the context
   panel filled and the newest reply drawn) against 2. for a new session: < 3x.

Absolute times are printed for information. A missed target makes the script exit with 1.

Run: ``uv run python benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

from long_session import save_session

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "app" / "fixtures" / "sample_project"
RUNS = 9
ROWS, COLUMNS = 36, 120
TIMEOUT = 60.0
RESUMED = 2_000
"""Messages in the resumed session (500 turns: its newest reply is "Module 500")."""


def shown(
    argv: list[str], markers: tuple[bytes, ...], cwd: Path, env: dict[str, str], typed: bytes = b""
) -> dict[bytes, float]:
    """Seconds from launching ``argv`` in a pty to the first output holding each marker;
    ``typed`` is typed once the first marker is drawn."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: size the terminal, then become the program
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    seen = b""
    times: dict[bytes, float] = {}
    try:
        while time.perf_counter() - start < TIMEOUT:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # the program ended
                break
            seen += chunk
            now = time.perf_counter() - start
            times.update({m: now for m in markers if m not in times and m in seen})
            if typed and markers[0] in times:
                os.write(fd, typed)
                typed = b""
            if len(times) == len(markers):
                return times
        missing = sorted(set(markers) - set(times))
        raise RuntimeError(f"{argv[-1]} drew no {missing} in {TIMEOUT:.0f} s:\n{seen[-2000:]!r}")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def ours_argv() -> list[str]:
    script = Path(sys.executable).with_name("steiner-tui")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "steiner_tui"]


@dataclass(frozen=True)
class Ratio:
    """One measured ratio against its target."""

    name: str
    value: float
    target: float

    @property
    def met(self) -> bool:
        return self.value < self.target

    def line(self) -> str:
        verdict = "MET" if self.met else "MISSED"
        return f"  {self.name}: {self.value:.2f}x (target < {self.target:g}x) {verdict}"


def report(
    title: str, times: dict[str, list[float]], lines: dict[str, str], ratios: list[Ratio]
) -> int:
    """Print each time (median, least and most) and each ratio; 1 when a target is missed."""
    print(f"{title}, median [least-most] ms, for information):")
    for name, label in lines.items():
        median = statistics.median(times[name]) * 1000
        low, high = min(times[name]) * 1000, max(times[name]) * 1000
        print(f"  {label}  {median:5.0f} [{low:.0f}-{high:.0f}]")
    print("ratios:")
    for ratio in ratios:
        print(ratio.line())
    return 0 if all(ratio.met for ratio in ratios) else 1


def fresh_env(home: Path) -> dict[str, str]:
    """The environment every launch gets: a terminal, and a new ``home`` with no configuration."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "TERM": "xterm-256color",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "LANG": "C.UTF-8",
    }


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        shutil.copytree(PROJECT, project)
        env = fresh_env(home)
        session_id = save_session(home / "config" / "steiner", RESUMED, project)
        bare = [sys.executable, str(HERE / "bare_app.py")]
        resume = [*ours_argv(), "--resume", session_id]
        new_markers, resume_markers = (b"Context", b"dry run"), (b"dry run", b"Module 500")
        # Once each first: the OS caches the files they read.
        shown(bare, (b"BareApp",), project, env)
        shown(ours_argv(), new_markers, project, env)
        shown(resume, resume_markers, project, env)
        times: dict[str, list[float]] = {"bare": [], "first": [], "filled": [], "resumed": []}
        for _ in range(RUNS):
            times["bare"].append(shown(bare, (b"BareApp",), project, env)[b"BareApp"])
            new = shown(ours_argv(), new_markers, project, env)
            times["first"].append(new[b"Context"])
            times["filled"].append(max(new.values()))
            times["resumed"].append(max(shown(resume, resume_markers, project, env).values()))
    median = {name: statistics.median(values) for name, values in times.items()}
    lines = {
        "bare": "bare Textual app (Header+Footer), first frame ",
        "first": "steiner-tui new session, first frame         ",
        "filled": "steiner-tui new session, context panel filled",
        "resumed": f"steiner-tui resuming {RESUMED:,} messages, usable ",
    }
    ratios = [
        Ratio("first frame / bare app", median["first"] / median["bare"], 1.5),
        Ratio("context panel filled / bare app", median["filled"] / median["bare"], 2.0),
        Ratio(
            f"resume of {RESUMED:,} messages / new session",
            median["resumed"] / median["filled"],
            3.0,
        ),
    ]
    return report(f"launch to screen ({RUNS} runs each", times, lines, ratios)


if __name__ == "__main__":
    sys.exit(main())
