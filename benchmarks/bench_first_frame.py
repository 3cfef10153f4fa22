"""Start-up after the imports: from "every module imported" to the screen a user sees.

``bench_startup.py`` times a whole launch, most of which is importing. This times the rest, the
work Textual and the workbench do between the imports and the screen: each program runs in a
pseudo-terminal of 120x36 (as in ``bench_startup.py``: a fresh home, a copy of the sample
project), started by ``first_frame_child.py``, which imports what the program imports, notes
the time (``time.perf_counter``, the system's monotonic clock, the same in both processes), then
runs the app. The clock runs from that note to the bytes of a screen, recognised by text it draws.

Two ratios against the bare Textual app with a Header and a Footer (``bare_app.py``) in the same
run, with the targets ``bench_startup.py`` sets for the whole launch:

1. steiner-tui's first frame of a new session ("Context", the context panel's title) against
   the bare app's first frame ("BareApp"): < 1.5x.
2. The first frame with the context panel filled ("dry run" in its title): < 2x.
3. Resuming a session of ``RESUMED`` messages (``long_session``), a word typed as its first
   frame shows: that word on the screen, in the prompt: < 10x. What is typed meanwhile waits
   for the session to open and the conversation to show (a frame drawn in between would
   show it).

The imports themselves are printed for information (median, least and most of each), as are
the absolute times. A missed target makes the script exit with 1.

Run: ``uv run python benchmarks/bench_first_frame.py`` (``--runs N``, 9 by default).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_startup import PROJECT, Ratio, fresh_env, report, shown
from long_session import save_session

HERE = Path(__file__).resolve().parent
RUNS = 9
RESUMED = 10_000
TYPED = b"zqxj"


def launch(
    program: str,
    markers: tuple[bytes, ...],
    project: Path,
    env: dict[str, str],
    *session: str,
    typed: bytes = b"",
) -> tuple[float, dict[bytes, float]]:
    """The import time and, for each marker, the seconds from the imports' end to it
    (``typed`` is typed at the first marker)."""
    stamp = project.parent / "stamp"
    stamp.unlink(missing_ok=True)
    argv = [sys.executable, str(HERE / "first_frame_child.py"), program, str(stamp), *session]
    launched = time.perf_counter()
    times = shown(argv, markers, project, env, typed)
    started, imported = map(float, stamp.read_text().split())
    return imported - started, {m: launched + t - imported for m, t in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=RUNS)
    args = parser.parse_args()
    times: dict[str, list[float]] = {
        "bare_imports": [], "ours_imports": [], "bare": [], "first": [], "filled": [],
        "typed": [],
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        project = home / "project"
        shutil.copytree(PROJECT, project)
        env = fresh_env(home)
        ours = (b"Context", b"dry run")
        session = save_session(home / "config" / "steiner", RESUMED, project)
        resumed = (b"Context", TYPED)
        launch("bare", (b"BareApp",), project, env)  # once each first: the OS caches the files
        launch("ours", ours, project, env)
        launch("ours", resumed, project, env, session, typed=TYPED)
        for _ in range(args.runs):
            imports, bare = launch("bare", (b"BareApp",), project, env)
            times["bare_imports"].append(imports)
            times["bare"].append(bare[b"BareApp"])
            imports, new = launch("ours", ours, project, env)
            times["ours_imports"].append(imports)
            times["first"].append(new[b"Context"])
            times["filled"].append(new[b"dry run"])
            times["typed"].append(
                launch("ours", resumed, project, env, session, typed=TYPED)[1][TYPED]
            )
    median = {name: statistics.median(values) for name, values in times.items()}
    lines = {
        "bare_imports": "bare Textual app, imports                    ",
        "ours_imports": "steiner-tui, imports                         ",
        "bare": "bare Textual app, imports done -> first frame",
        "first": "steiner-tui, imports done -> first frame     ",
        "filled": "steiner-tui, imports done -> panel filled    ",
        "typed": f"resuming {RESUMED:,}, imports done -> typed shown",
    }
    ratios = [
        Ratio("first frame / bare app (after imports)", median["first"] / median["bare"], 1.5),
        Ratio("panel filled / bare app (after imports)", median["filled"] / median["bare"], 2.0),
        Ratio(
            f"resumed {RESUMED:,}: typed shown / bare app (after imports)",
            median["typed"] / median["bare"],
            10.0,
        ),
    ]
    return report(f"after the imports ({args.runs} runs each", times, lines, ratios)


if __name__ == "__main__":
    sys.exit(main())
