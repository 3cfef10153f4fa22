"""``steiner-tui watch [PATH] [--agent claude|codex] [--json]``: follow a running session.

Opens the workbench on a Claude Code session or a Codex rollout that the agent is still
writing (default: the newest transcript of the current project, or the first to start when
it has none yet, then each new one, ``importers.follow``) and follows it as lines are
appended: the chart, the requests, the sub-agents and ranking, the conversation (``v``) and,
when opened, the lineage. No proxy is needed. ``--json`` prints one JSON line per new request
instead (context, cache read, output, cost when known else null, the cache cause with the
dollars of its rewrite, its model's window, the compaction before it), for status lines and
scripts, until Ctrl-C (and so does a watch whose stdin or stdout is not a terminal: ``watch |
jq``); a last request that no later line settles is printed once the
transcript has ended (``importers.follow``).
Costs use the config's ``[models."<ref>"] price`` for a request's model id before the built-in
table. The workbench's modules are imported only for the workbench, so ``--json`` never loads
Textual.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

from steiner_tui.commands import not_terminals, refuse
from steiner_tui.commands.headless_io import load_project_config
from steiner_tui.engine.prices import PriceOverrides
from steiner_tui.importers.follow import (
    NEW_SESSION_S,
    ProjectSessions,
    TranscriptFollower,
    newest_transcript,
    request_lines,
    watched_project,
)
from steiner_tui.plain import printable
from steiner_tui.units import counted

__all__ = ["run"]


def _print_new(
    follower: TranscriptFollower, printed: int, prices: PriceOverrides, *, ended: bool
) -> int:
    """Print the requests settled after the first ``printed``; how many are printed now."""
    settled = follower.settled(ended=ended)
    session = follower.session
    if session is None:
        return printed
    for line in request_lines(session, range(printed + 1, len(settled) + 1), prices):
        print(json.dumps(line, ensure_ascii=False), flush=True)
    return max(printed, len(settled))


def _print_requests(follower: TranscriptFollower, prices: PriceOverrides) -> int:
    """One line per settled request after those settled at the start, until Ctrl-C; a last
    request no later line settles is printed once the transcript has ended (idle, or Ctrl-C)."""
    # Ctrl-C stops the watch between two of its steps, never inside one: a request printed
    # but not yet counted would be printed again. A second Ctrl-C ends it at once.
    stop = threading.Event()

    def stopping(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = signal.signal(signal.SIGINT, stopping)
    try:
        _follow(follower, prices, stop)
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGINT, previous)
    return 0


def _follow(follower: TranscriptFollower, prices: PriceOverrides, stop: threading.Event) -> None:
    """``_print_requests``' loop, until ``stop`` is set: then the rest, the last request too."""
    from watchfiles import watch

    printed = len(follower.settled())
    # Said once everything already written is read: a script (or a test) appends after it.
    print(
        f"steiner-tui watch: following {follower.path} ({counted(printed, 'request')} so far)",
        file=sys.stderr,
        flush=True,
    )
    said, restarts = "", 0
    for _ in watch(follower.path.parent, stop_event=stop, **follower.watch_arguments()):
        newer = follower.new_session()
        if newer is not None:  # the session followed has ended: its last request too
            _print_new(follower, printed, prices, ended=True)
            follower.switch(newer)
            printed = 0
            print(
                printable(
                    f"steiner-tui watch: a new session of this project: {newer}; "
                    "following it, its requests from #1"
                ),
                file=sys.stderr,
                flush=True,
            )
        try:
            follower.poll()
        except (OSError, ValueError) as exc:
            failed = _unreadable(follower.path, exc)
            if failed != said:  # once, not at every poll while the file is missing
                print(failed, file=sys.stderr, flush=True)
            said = failed
            continue
        said = ""
        if follower.restarts != restarts:  # its numbers start again: so does the printing
            restarts, printed = follower.restarts, 0
            print(
                printable(
                    f"steiner-tui watch: {follower.path} was cut shorter or replaced: "
                    "its requests from #1"
                ),
                file=sys.stderr,
                flush=True,
            )
        _say_skipped(follower)
        printed = _print_new(follower, printed, prices, ended=follower.idle())
    try:
        follower.poll()
    except (OSError, ValueError):
        return
    _say_skipped(follower)
    _print_new(follower, printed, prices, ended=True)


def _say_skipped(follower: TranscriptFollower) -> None:
    """Each unreadable line read since the last call, once, on stderr."""
    for line in follower.skipped_lines():
        print(printable(f"steiner-tui watch: {line}"), file=sys.stderr, flush=True)


def _unreadable(path: Path, exc: Exception) -> str:
    """What the watch says of a followed file it cannot read now."""
    if isinstance(exc, FileNotFoundError):
        return printable(f"steiner-tui watch: {path} is gone; waiting for it to come back")
    return printable(f"steiner-tui watch: cannot read {path}: {exc}; waiting for it to change")


def _first_session(project: ProjectSessions) -> Path | None:
    """The first transcript the project gets (None: Ctrl-C came first)."""
    home = project.home
    try:
        print(
            printable(
                f"steiner-tui watch: no transcript of {project.cwd} yet in "
                f"{home / '.claude' / 'projects'} or {home / '.codex' / 'sessions'}; "
                "waiting for a session to start (Ctrl-C stops)"
            ),
            file=sys.stderr,
            flush=True,
        )
        while (path := project.newest()) is None:
            time.sleep(NEW_SESSION_S)
    except KeyboardInterrupt:
        return None
    return path


def run(args: argparse.Namespace) -> int:
    """Follow ``args.path`` (default: the newest transcript of the current project, then each
    new one)."""
    home, here = Path.home(), Path.cwd()
    cwd = here if args.path else watched_project(home, here, args.agent)
    if cwd != here:
        print(f"steiner-tui watch: the sessions of {cwd}, the folder of this repository with "
              f"some ({here} has none)", file=sys.stderr)  # fmt: skip
    also = (here,) if cwd != here else ()  # a session started here later is followed too
    project = None if args.path else ProjectSessions(home, cwd, args.agent, also)
    path = Path(args.path).expanduser() if args.path else newest_transcript(home, cwd, args.agent)
    waited = path is None and project is not None
    if path is None and project is not None:
        path = _first_session(project)
        if path is None:
            return 0
    assert path is not None
    if not path.exists():
        return refuse(f"{path} does not exist", "watch")
    if path.is_dir():  # "[Errno 21] Is a directory" was all it said
        return refuse(
            f"{path} is a folder: give a transcript file (a Claude Code session's .jsonl or a "
            "Codex rollout), or nothing for this project's newest",
            "watch",
        )
    follower = TranscriptFollower(path, project=project)
    try:
        if not waited:  # a session that started while the watch waited is followed from #1
            follower.poll()
    except (OSError, ValueError) as exc:
        return refuse(str(exc), "watch")
    prices = load_project_config(Path(args.project)).price_overrides
    if args.json or (streams := not_terminals()):
        if not args.json:  # piped (watch | jq): the lines, not screens drawn into the pipe
            print(f"steiner-tui watch: {streams} not a terminal: one JSON line per request "
                  "(--json)", file=sys.stderr)  # fmt: skip
        return _print_requests(follower, prices)
    from steiner_tui.app.readonly import ReadOnlyApp

    ReadOnlyApp(transcript=follower, prices=prices).run()
    return 0
