"""Start-up as a user sees it: from launching the program to its first frame on a terminal.

Each program runs in a pseudo-terminal of 120x36, with a fresh home (no user configuration) and
a copy of the sample project as its working folder: ``steiner-tui`` (the console script, as
``uv run steiner-tui`` runs it, minus uv's own start-up) against ``bare_app.py`` (a bare Textual
app with a Header and a Footer) started by the same Python. The clock runs from the launch to
the moment the first frame's bytes arrive: the first output holding the text that frame draws
("BareApp" in the header; "Skills", the sidebar's border title, for steiner-tui). This includes
the interpreter's start, every import, reading the configuration and the app's first frame.
Runs alternate; medians are compared.

steiner-tui builds its session after its first frame (``make_app(..., defer_open=True)``):
the engine's imports, the session (skills, the session log) and the dry-run request of the
context panel come next. For information, the time to that panel's first figures ("dry run" in
its title), when everything is shown and every key works, is printed too.

``bench_ui.py`` measures the app alone (imports excluded) in-process.

Run: ``uv run python benchmarks/bench_startup.py``. Target: ratio < 1.5x.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent / "tests" / "app" / "fixtures" / "sample_project"
RUNS = 9
ROWS, COLUMNS = 36, 120
TIMEOUT = 30.0


def first_frame(argv: list[str], marker: bytes, cwd: Path, env: dict[str, str]) -> float:
    """Seconds from launching ``argv`` in a pty to the first output holding ``marker``."""
    return shown(argv, (marker,), cwd, env)[0]


def shown(
    argv: list[str], markers: tuple[bytes, ...], cwd: Path, env: dict[str, str]
) -> list[float]:
    """Seconds from launching ``argv`` in a pty to the first output holding each marker."""
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: size the terminal, then become the program
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    seen = b""
    times: list[float] = []
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
            while len(times) < len(markers) and markers[len(times)] in seen:
                times.append(now)
            if len(times) == len(markers):
                return times
        missing = markers[len(times)]
        raise RuntimeError(f"{argv[-1]} drew no {missing!r} in {TIMEOUT:.0f} s:\n{seen[-2000:]!r}")
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def ours_argv() -> list[str]:
    script = Path(sys.executable).with_name("steiner-tui")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "steiner_tui"]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        shutil.copytree(PROJECT, project)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "TERM": "xterm-256color",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_CACHE_HOME": str(home / "cache"),
            "XDG_DATA_HOME": str(home / "data"),
            "LANG": "C.UTF-8",
        }
        bare_argv = [sys.executable, str(HERE / "bare_app.py")]
        ours = ours_argv()
        # One launch of each first: the OS caches the files both read.
        first_frame(bare_argv, b"BareApp", project, env)
        first_frame(ours, b"Skills", project, env)
        bare: list[float] = []
        steiner: list[float] = []
        ready: list[float] = []
        for _ in range(RUNS):
            bare.append(first_frame(bare_argv, b"BareApp", project, env))
            frame, filled = shown(ours, (b"Skills", b"dry run"), project, env)
            steiner.append(frame)
            ready.append(filled)
    b, o = statistics.median(bare), statistics.median(steiner)
    r = statistics.median(ready)
    print(f"launch to first frame ({RUNS} runs each, medians):")
    print(f"  bare Textual app (Header+Footer) {b * 1000:.0f} ms, steiner-tui {o * 1000:.0f} ms")
    print(f"  ratio steiner-tui / bare = {o / b:.2f}x (target < 1.5x)")
    print(f"  session open, context panel filled: {r * 1000:.0f} ms ({r / b:.2f}x the bare app)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
