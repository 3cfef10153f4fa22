"""Following a transcript an agent is still writing: which file, its complete lines, and the
requests that are settled.

``steiner-tui watch`` opens the newest transcript of the current project (Claude Code's
``~/.claude/projects/<the folder with every other character than a letter or digit made
"-">/*.jsonl``, or the Codex rollout under ``~/.codex/sessions`` whose ``session_meta`` names
the folder) and reads it again whenever it grows. Only complete lines are read: a last line
the agent is still writing waits for its newline. A request is *settled* once a later
request, the end of its turn, or a line of its reply with a ``stop_reason`` is written (Claude
Code writes a reply block by block, its output tokens complete on the last block's line, and
runs tool calls in between, so their results and progress lines come before it; it writes a
``stop_reason`` once the reply has ended); a Codex request is settled when written.

A transcript that stops mid-turn (Claude Code killed, or its last line never followed by a
system line or prompt) would keep its last request unsettled for ever. So a transcript has
*ended* when the watch ends (Ctrl-C) or when no complete line was added for ``WATCH_IDLE_S``
(longer than one reply block takes to stream, so a reply still being written is not cut);
then its last request is settled as it stands.

A watch given no path follows the project, not one file (``cwd``, or the folder above it in
its repository whose sessions there are: ``watched_project``): a transcript of the project that
appears after it started (Claude Code's ``/clear`` or a new ``claude``, a new Codex session;
``ProjectSessions``) is followed from then on, from its start, and the one before it has ended.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from steiner_tui.engine.prices import NO_OVERRIDES, PriceOverrides
from steiner_tui.importers.claude import import_claude_session
from steiner_tui.importers.codex import import_codex_rollout
from steiner_tui.importers.discover import kind_of
from steiner_tui.importers.figures import explained_usage
from steiner_tui.importers.model import ImportedRequest, ImportedSession
from steiner_tui.importers.window import AgentWindow, agent_window

__all__ = [
    "FOLLOW_POLL_MS",
    "NEW_SESSION_S",
    "WATCH_IDLE_S",
    "Agent",
    "ProjectSessions",
    "TranscriptFollower",
    "claude_project_folder",
    "newest_transcript",
    "request_line",
    "request_lines",
    "watched_project",
]

Agent = Literal["claude", "codex"]

_CHUNK = 1 << 16

FOLLOW_POLL_MS = 500
"""How long a follower's file watcher waits for a change before the file is looked at anyway."""
NEW_SESSION_S = 2.0
"""How often a watch given no path looks for a new session of the project (walking 5,000 Codex
rollouts takes about 28 ms)."""
WATCH_IDLE_S = 300.0
"""Seconds without a complete line added after which a transcript has ended."""


def claude_project_folder(home: Path, cwd: Path) -> Path:
    """Where Claude Code keeps the sessions of project ``cwd``."""
    return home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def _codex_cwd(path: Path) -> str:
    """The folder a rollout's ``session_meta`` names ("" when its first line says none)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            record = json.loads(handle.readline())
    except (OSError, ValueError, RecursionError):
        return ""
    payload = record.get("payload") if isinstance(record, dict) else None
    return str(payload.get("cwd", "")) if isinstance(payload, dict) else ""


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _claude_transcripts(home: Path, cwd: Path) -> list[Path]:
    folder = claude_project_folder(home, cwd)
    if not folder.is_dir():
        return []
    return [p for p in folder.glob("*.jsonl") if not p.name.startswith("agent-")]


def _codex_rollouts(home: Path) -> list[Path]:
    """Every Codex rollout, of any project (its first line names the project)."""
    sessions = home / ".codex" / "sessions"
    return list(sessions.rglob("rollout-*.jsonl")) if sessions.is_dir() else []


def watched_project(home: Path, cwd: Path, agent: Agent | None = None) -> Path:
    """The folder whose sessions a watch given no path follows: ``cwd``, or, when ``cwd`` has
    none, the nearest folder above it in the same repository (up to the one holding ``.git``)
    that has one: the agent started at the repository's root, the watch in one of its folders.
    Never a folder above the repository (a home folder's old sessions are not this project's)."""
    top = next((f for f in (cwd, *cwd.parents) if (f / ".git").exists()), None)
    if top is None or newest_transcript(home, cwd, agent) is not None:
        return cwd
    started = {_codex_cwd(p) for p in _codex_rollouts(home)} if agent != "claude" else set()
    for folder in cwd.parents:
        if (agent != "codex" and _claude_transcripts(home, folder)) or str(folder) in started:
            return folder
        if folder == top:
            break
    return cwd


def newest_transcript(home: Path, cwd: Path, agent: Agent | None = None) -> Path | None:
    """The newest transcript of project ``cwd`` by ``agent`` (either agent when None)."""
    found: list[Path] = []
    if agent in (None, "claude"):
        found += _claude_transcripts(home, cwd)
    if agent in (None, "codex"):
        found += [p for p in _codex_rollouts(home) if _codex_cwd(p) == str(cwd)]
    return max(found, key=_mtime, default=None)


class ProjectSessions:
    """The transcripts of project ``cwd`` (and of the folders ``also``: where the watch was
    started, when ``cwd`` is the repository's folder above it) by ``agent`` that appear after
    it is made."""

    def __init__(
        self, home: Path, cwd: Path, agent: Agent | None = None, also: tuple[Path, ...] = ()
    ) -> None:
        self.home, self.cwd, self.agent = home, cwd, agent
        self.folders = (cwd, *also)
        self._seen: set[Path] = set()
        """Every transcript looked at (a rollout's first line is read once)."""
        self.new()

    def new(self) -> list[Path]:
        """The transcripts of the project that appeared since the last call."""
        fresh: list[Path] = []
        if self.agent in (None, "claude"):
            for folder in self.folders:
                fresh += [p for p in _claude_transcripts(self.home, folder) if p not in self._seen]
            self._seen.update(fresh)
        if self.agent in (None, "codex"):
            wanted = {str(folder) for folder in self.folders}
            for path in _codex_rollouts(self.home):
                where = "" if path in self._seen else _codex_cwd(path)
                if where:  # a rollout whose first line is not written yet is looked at again
                    self._seen.add(path)
                    fresh += [path] if where in wanted else []
        return fresh

    def newest(self) -> Path | None:
        """The newest of the transcripts that appeared since the last call, if any did."""
        return max(self.new(), key=_mtime, default=None)


class TranscriptFollower:
    """A transcript read up to its last complete line, again each time it grows."""

    def __init__(
        self,
        path: Path,
        clock: Callable[[], float] = time.monotonic,
        project: ProjectSessions | None = None,
    ) -> None:
        self.path = path
        self.project = project
        """The project whose new sessions are followed in turn (None: ``path`` only)."""
        self._looked = clock()
        self._clock = clock
        self.grown_at = clock()
        """When complete lines were last added (``clock``'s time)."""
        self.end = 0
        """The bytes read: up to and with the last complete line's newline."""
        self.session: ImportedSession | None = None
        self.restarts = 0
        """How many times the file was read again from its start (cut shorter or replaced)."""
        self._inode = -1
        self._said = 0
        """The session's unreadable lines already handed out by ``skipped_lines``."""

    def watched(self, _change: object, path: str) -> bool:
        """Whether a change in the file's folder is to the file (a ``watchfiles`` filter: the
        folder is watched, not the file, which may be deleted, or replaced, at any moment)."""
        return Path(path).name == self.path.name  # the folder is watched without its subfolders

    def watch_arguments(self) -> dict[str, Any]:
        """The arguments of ``watchfiles.watch`` or ``awatch`` that follow the file: its folder
        alone, a change at most every 100 ms, and a look anyway every ``FOLLOW_POLL_MS``."""
        return {
            "watch_filter": self.watched,
            "recursive": False,
            "debounce": 100,
            "step": 20,
            "rust_timeout": FOLLOW_POLL_MS,
            "yield_on_timeout": True,
        }

    def _grown(self) -> bool:
        """Whether complete lines were added since the last read (a file cut shorter or
        replaced, even by a longer one, is read from its start)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._inode = -1  # deleted: what comes in its place is read from its start
            raise
        if stat.st_size < self.end or (self.end and stat.st_ino != self._inode):
            self.end = self._said = 0
            self.restarts += 1
        self._inode = stat.st_ino
        position = self.end
        with self.path.open("rb") as handle:
            handle.seek(position)
            grown = False
            while chunk := handle.read(_CHUNK):
                last = chunk.rfind(b"\n")
                if last >= 0:
                    self.end = position + last + 1
                    grown = True
                    # Whatever follows the last newline of this chunk is read with the next.
                    handle.seek(self.end)
                    position = self.end
                else:
                    position += len(chunk)
        return grown

    def poll(self) -> ImportedSession | None:
        """The session as its complete lines say, or None when none were added.

        Raises:
            OSError: the file cannot be read.
            ValueError: the file is neither a Claude Code session nor a Codex rollout (the
                agents whose transcripts grow by lines).
        """
        if not self._grown():
            return None
        self.grown_at = self._clock()
        kind = kind_of(self.path)
        if kind == "codex":
            self.session = import_codex_rollout(self.path, self.end)
        elif kind == "claude-code":
            self.session = import_claude_session(self.path, self.end)
        else:
            raise ValueError(f"{self.path}: not a Claude Code session or a Codex rollout")
        return self.session

    def new_session(self) -> Path | None:
        """A transcript of the project newer than the one followed (looked for every
        ``NEW_SESSION_S``)."""
        now = self._clock()
        if self.project is None or now - self._looked < NEW_SESSION_S:
            return None
        self._looked = now
        return self.project.newest()

    def switch(self, path: Path) -> None:
        """Follow ``path`` from its start instead."""
        self.path, self.end, self.session, self._inode, self._said = path, 0, None, -1, 0
        self.grown_at = self._clock()

    def skipped_lines(self) -> list[str]:
        """What to say of each line with a problem read since the last call, once (a damaged
        line is skipped, or kept with its bad bytes replaced, and the lines after it are read)."""
        problems = self.session.problems[self._said :] if self.session is not None else ()
        self._said += len(problems)
        after = ", the lines after it are read"
        return [
            f"line {p.line} of {self.path.name}: {p.message}; {p.outcome}{'' if p.kept else after}"
            for p in problems
        ]

    def idle(self) -> bool:
        """Whether no complete line was added for ``WATCH_IDLE_S``: the transcript has ended."""
        return self._clock() - self.grown_at >= WATCH_IDLE_S

    def settled(self, *, ended: bool = False) -> tuple[ImportedRequest, ...]:
        """The requests no later line can change (``ended``: the transcript has ended, its
        last request too)."""
        if self.session is None:
            return ()
        requests = self.session.requests
        if ended:
            return requests
        if requests and not requests[-1].ended:
            return requests[:-1]
        return requests


def request_lines(
    session: ImportedSession, numbers: range, prices: PriceOverrides = NO_OVERRIDES
) -> list[dict[str, Any]]:
    """Requests ``numbers`` (from 1) of ``session`` as ``watch --json`` prints them: priced with
    the config's ``prices`` for their model id, else the table, and their cache cause and the
    dollars its rewrite cost, as the import screen's ``cache`` column (``explained_usage``),
    and the window of their own model (Claude Code sends some requests to Haiku): the session's
    for its latest model, which a Codex rollout records."""
    if not numbers:
        return []
    explained = explained_usage(
        [r.to_json() for r in session.requests[: numbers.stop - 1]],
        [{"after_request": g.after_request} for g in session.generations],
        prices,
    )
    windows: dict[str, AgentWindow] = {session.requests[-1].model: session.window}
    lines = []
    for number in numbers:
        request = session.requests[number - 1]
        window = windows.get(request.model) or windows.setdefault(
            request.model, agent_window(session.source, request.model)
        )
        compaction = next((g for g in session.generations if g.after_request == number - 1), None)
        cost, cache = explained[number - 1]
        lines.append(
            {
                "request": number,
                "time": request.time,
                "model": request.model,
                "context": request.context_tokens,
                "cache_read": request.cache_read_tokens,
                "output": request.output_tokens,
                "cost": round(cost.total_usd, 6) if cost is not None else None,
                "cache": {
                    "cause": cache.cause,
                    "detail": cache.detail,
                    "reused_tokens": cache.reused_tokens,
                    "rewritten_tokens": cache.rewritten_tokens,
                    "cost_usd": cache.cost_usd,
                },
                "window": {"tokens": window.tokens or None, "source": window.source},
                "compaction": (
                    {"trigger": compaction.trigger, "pre_tokens": compaction.pre_tokens}
                    if compaction is not None
                    else None
                ),
            }
        )
    return lines


def request_line(
    session: ImportedSession, number: int, prices: PriceOverrides = NO_OVERRIDES
) -> dict[str, Any]:
    """Request ``number`` (from 1) of ``session`` as ``watch --json`` prints it."""
    return request_lines(session, range(number, number + 1), prices)[0]
