"""``steiner-tui screenshots [--out screenshots/]``: regenerate the README's screenshots.

One scripted, offline session against a sample project bundled here (written to a temporary
folder) drives the real app headless at 120x36 and saves every screen as SVG and PNG: the main
screen before the first request (the dry-run preview), after an exchange, with a skill toggled,
the request inspector (alone, and comparing requests before and after a compaction), the help,
and, after compactions forced by a small context window and threshold, the context panel
enlarged (``/context``: its chart of tokens per request with the compactions marked), the
lineage browser and its history archive; then a captured Claude Code request in the inspector
and an imported session's tokens-per-request chart (``capture_screenshots``).

The clock, session id, date and scratch folder are fixed, so reruns give the same pictures.
PNGs come from cairosvg, a dev dependency imported only here, after swapping the SVG's font for
DejaVu Sans Mono (installed almost everywhere, unlike Fira Code) with letter spacing that keeps
its glyphs on Textual's cell grid.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import re
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

from textual.pilot import Pilot

from steiner_tui.agent.clock import ManualClock
from steiner_tui.agent.model import MainModel
from steiner_tui.agent.session import SessionRequest
from steiner_tui.app.app import SteinerApp, make_app
from steiner_tui.commands.capture_screenshots import capture_shots
from steiner_tui.config import Config, parse_config
from steiner_tui.engine.provider import ModelInfo
from steiner_tui.providers.offline import OFFLINE_ALIAS, OFFLINE_MODEL, OfflineProvider

__all__ = ["run", "write_sample_project"]

SIZE = (120, 36)
TITLE = "steiner-tui"
START = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
SMALL_WINDOW = 9000
"""Context window (tokens) of the lineage session."""
SMALL_THRESHOLD = 4200
"""Its compaction threshold: a few exchanges cross it and compaction runs on its own."""

_SETTLE_FRAMES = 200
"""At most this many frames are taken while waiting for the screen to settle."""
_SAME_FRAMES = 3
"""The screen has settled when this many frames in a row repeat the one before."""

# Rich draws each cell 0.61 em wide; DejaVu Sans Mono advances 1233/2048 em per glyph.
_CELL_EM = 0.61
_DEJAVU_EM = 1233 / 2048

_SOURCES = ("preamble", "AGENTS.md", "project context", "skills", "session date", "conversation")


def _design_doc() -> str:
    """A longer file: reading it grows the conversation past the small threshold."""
    sections = (
        f"## {n}. {name}\n\nThe {name} share is weighted {n * 3} and capped at {n * 1024} "
        f"bytes; budgetkit/split.py gives it `total * {n * 3} // whole` tokens and hands any "
        f"remainder to the first source. Tests in tests/test_split.py check that shares add up "
        f"to the total, that a weight of 0 gets nothing, and that v1.{n}.0 keeps the rounding.\n"
        for n, name in enumerate(_SOURCES * 3, start=1)
    )
    return "# Design\n\n" + "\n".join(sections)


SAMPLE_PROJECT: dict[str, str] = {
    "README.md": (
        "# budgetkit\n\nA tiny library that splits a token budget between prompt sources.\n\n"
        "Run the tests with `make test`; the entry point is `budgetkit/split.py`.\n"
    ),
    "AGENTS.md": (
        "# Agent instructions\n\n- Keep answers short.\n"
        "- Run `make test` before proposing a change.\n- Never edit `budgetkit/_vendor/`.\n"
    ),
    "NOTES.md": "# Notes\n\nThe release branch is `main`; tags look like `v1.4.2`.\n",
    "Makefile": "test:\n\tpython -m pytest -q tests\n",
    "budgetkit/__init__.py": '"""Split a token budget between prompt sources."""\n',
    "budgetkit/split.py": (
        '"""Share a budget in proportion to each source\'s weight."""\n\n\n'
        "def split(total: int, weights: dict[str, int]) -> dict[str, int]:\n"
        '    """Give each source its share of ``total``; the remainder goes to the first."""\n'
        "    whole = sum(weights.values()) or 1\n"
        "    shares = {name: total * w // whole for name, w in weights.items()}\n"
        "    if shares:\n"
        "        first = next(iter(shares))\n"
        "        shares[first] += total - sum(shares.values())\n"
        "    return shares\n"
    ),
    "tests/test_split.py": (
        "from budgetkit.split import split\n\n\n"
        "def test_split_keeps_the_total() -> None:\n"
        '    assert sum(split(100, {"a": 1, "b": 2}).values()) == 100\n'
    ),
    ".steiner/config.toml": '[context]\nfiles = ["NOTES.md"]\n',
    ".steiner/skills/release-notes/SKILL.md": (
        "---\nname: release-notes\n"
        "description: Write release notes from the commits since the last tag.\n---\n"
        "# Release notes\n\n1. List the commits since the last tag.\n"
        "2. Group them by area and write one line each.\n"
    ),
    "docs/design.md": _design_doc(),
}
"""The bundled sample project: path -> text."""


EXCHANGE = (
    "What does this project do, and how do I run its tests?",
    "Read budgetkit/split.py and explain the remainder rule.",
    "Read docs/design.md and list the weights.",
    "Summarize AGENTS.md in one line.",
)


def write_sample_project(root: Path) -> Path:
    """Write ``SAMPLE_PROJECT`` under ``root`` and return ``root``."""
    for relative, text in SAMPLE_PROJECT.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def png_ready_svg(svg: str) -> str:
    """``svg`` with DejaVu Sans Mono as its font, spaced to Rich's cell width."""
    size_match = re.search(r"\.terminal-matrix \{[^}]*font-size: ([0-9.]+)px", svg)
    font_size = float(size_match.group(1)) if size_match else 20.0
    spacing = (_CELL_EM - _DEJAVU_EM) * font_size
    return re.sub(
        r"font-family: Fira Code, monospace;",
        f'font-family: "DejaVu Sans Mono", monospace;\n        letter-spacing: {spacing:.3f}px;',
        svg,
    )


def _load_cairosvg() -> ModuleType | None:
    try:
        return importlib.import_module("cairosvg")
    except (ImportError, OSError):  # OSError: cairocffi without the cairo library
        return None


async def _settle(pilot: Pilot[None]) -> None:
    """Wait for the workers and the end of any run, then for a few identical frames.

    A finished worker still has work queued on the UI loop (the reply's Markdown stream is
    flushed when the run's end message arrives, and the status line leaves "busy" after it),
    so "workers done" alone can miss the last text.
    """
    app = _app(pilot)
    previous, same = "", 0
    for _ in range(_SETTLE_FRAMES):
        await app.workers.wait_for_complete()
        await pilot.pause(0.01)
        await pilot.wait_for_scheduled_animations()
        if app.workbench.status.busy:
            continue
        frame = app.export_screenshot()
        same = same + 1 if frame == previous else 0
        if same == _SAME_FRAMES:
            return
        previous = frame


def _app(pilot: Pilot[None]) -> SteinerApp:
    app = pilot.app
    assert isinstance(app, SteinerApp)
    return app


async def _send(pilot: Pilot[None], clock: ManualClock, text: str) -> None:
    """Type ``text`` into the prompt and press Enter, then wait for the reply."""
    clock.advance(timedelta(seconds=41))
    editor = _app(pilot).workbench.prompt
    editor.focus()
    editor.load_text(text)
    await pilot.press("enter")
    await _settle(pilot)


QUIET: Config = parse_config(
    [("screenshots", {"ui": {"cursor_blink": False, "watch_files": False}})]
)
"""No cursor blink, no file watcher: every run draws the same frames."""


def _request(project: Path, config: Path, clock: ManualClock, window: int | None) -> SessionRequest:
    main = None
    if window is not None:
        provider = OfflineProvider(project)
        info = ModelInfo(context_window=window, max_output=1024, tokenizer="heuristic")
        main = MainModel(
            OFFLINE_ALIAS, OFFLINE_MODEL, provider, info, threshold_tokens=SMALL_THRESHOLD
        )
    return SessionRequest(
        project,
        QUIET,
        config_dir=config,
        model=main,
        clock=clock,
        session_id="screenshots",
        session_date=START,
    )


Shoot = Callable[[str], None]
Script = Callable[["Pilot[None]", "ManualClock", Shoot], Awaitable[None]]


async def _workbench(pilot: Pilot[None], clock: ManualClock, shoot: Shoot) -> None:
    shoot("main-preview")
    await _send(pilot, clock, EXCHANGE[0])
    shoot("main-exchange")
    _app(pilot).workbench.skills.action_toggle_row(0)
    await _settle(pilot)
    shoot("skills-toggled")
    await _send(pilot, clock, EXCHANGE[1])
    await pilot.press("f2")
    await _settle(pilot)
    shoot("inspector")
    await pilot.press("escape", "f1")
    await _settle(pilot)
    shoot("help")


async def _lineage(pilot: Pilot[None], clock: ManualClock, shoot: Shoot) -> None:
    session = _app(pilot).session
    for text in EXCHANGE:
        await _send(pilot, clock, text)
    if len(session.driver.lineage.generations) < 2:
        await _send(pilot, clock, "/compact keep the file names")
    await _send(pilot, clock, "/context")  # the context panel enlarged: its chart
    budget = _app(pilot).workbench.budget
    budget.scroll_to_widget(budget.query_one("RequestChart"), animate=False, top=True)
    await _settle(pilot)
    shoot("context-chart")
    await _send(pilot, clock, "/context")
    await _send(pilot, clock, "/lineage")
    shoot("lineage")
    await pilot.press("h")
    await _settle(pilot)
    shoot("lineage-history")
    # Compare the last turn before the compaction with the latest one.
    snapshots = session.snapshots.all()
    before = max(
        (i for i, s in enumerate(snapshots) if s.generation_id == "0" and not s.compaction),
        default=0,
    )
    await pilot.press("escape", "escape", "f2")
    await _settle(pilot)
    await pilot.press("m", *["up"] * (len(snapshots) - 1 - before))
    await _settle(pilot)
    shoot("inspector-compare")


async def _capture(
    project: Path, config: Path, window: int | None, script: Script
) -> list[tuple[str, str]]:

    clock = ManualClock(START)
    app = make_app(_request(project, config, clock, window))
    shots: list[tuple[str, str]] = []

    def shoot(name: str) -> None:
        shots.append((name, app.export_screenshot(title=TITLE)))

    async with app.run_test(size=SIZE) as pilot:
        await _settle(pilot)
        await script(pilot, clock, shoot)
    return shots


def run(args: argparse.Namespace) -> int:
    """Regenerate every screenshot into ``args.out`` (SVG and PNG); 0 on success."""
    cairosvg = _load_cairosvg()
    if cairosvg is None:
        print(
            "steiner-tui screenshots: PNG export needs cairosvg, a dev dependency "
            "(install it with `uv sync --group dev`).",
            file=sys.stderr,
        )
        return 2
    out = Path(getattr(args, "out", "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    # A fixed scratch folder: the summary's history note names the archive's path, and a
    # random temporary name would change the summary's hash in the inspector on every run.
    scratch = Path(tempfile.gettempdir()) / "steiner-tui-screenshots"
    shots: list[tuple[str, str]] = []
    try:
        for window, script in ((None, _workbench), (SMALL_WINDOW, _lineage)):
            shutil.rmtree(scratch, ignore_errors=True)
            project = write_sample_project(scratch / "budgetkit")
            config = scratch / "config"
            config.mkdir()
            shots.extend(asyncio.run(_capture(project, config, window, script)))
        shutil.rmtree(scratch, ignore_errors=True)
        shots.extend(asyncio.run(capture_shots(scratch, SIZE, TITLE)))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for name, svg in shots:
        (out / f"{name}.svg").write_text(svg, encoding="utf-8")
        cairosvg.svg2png(bytestring=png_ready_svg(svg).encode(), write_to=str(out / f"{name}.png"))
        print(f"{out / name}.svg, .png")
    return 0
