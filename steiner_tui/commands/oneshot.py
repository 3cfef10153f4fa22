"""``steiner-tui oneshot "TASK"``: plan, build and verify phases, each its own saved session."""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from pathlib import Path

from steiner_tui import paths
from steiner_tui.agent.clock import SystemClock
from steiner_tui.agent.from_config import SessionInputs, session_spec_from_config
from steiner_tui.agent.headless import DEFAULT_PHASES, PhaseResult, SessionRecorder, run_oneshot
from steiner_tui.agent.tool_status import ToolStatusBook
from steiner_tui.commands.headless_io import (
    HeadlessPermission,
    ProgressSink,
    load_project_config,
    make_estimator,
)
from steiner_tui.config import ConfigError
from steiner_tui.engine.compaction.archive import HistoryArchive
from steiner_tui.sessions.history_archive import FileHistoryArchive
from steiner_tui.sessions.writer import SessionLog

__all__ = ["run"]


def _archive_for(session_id: str, tool_status: ToolStatusBook) -> HistoryArchive:
    return FileHistoryArchive(paths.sessions_dir() / session_id, tool_status=tool_status)


def _recorder_for(session_id: str) -> SessionRecorder | None:
    """The session log of one phase (saved as the app saves its sessions)."""
    try:
        return SessionLog.create(paths.sessions_dir() / session_id, clock=SystemClock().now)
    except OSError as error:
        print(f"warning: phase session {session_id} is not saved: {error}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    project = Path(args.project).resolve()
    if not project.is_dir():
        print(f"steiner-tui: project folder {project} does not exist", file=sys.stderr)
        return 2
    phases = tuple(args.phases.split(",")) if args.phases else DEFAULT_PHASES
    unknown = [p for p in phases if p not in DEFAULT_PHASES]
    if unknown:
        print(
            f"steiner-tui: unknown phase(s) {', '.join(unknown)}; known: plan, build, verify",
            file=sys.stderr,
        )
        return 2
    config = load_project_config(project)
    base_id = f"oneshot-{uuid.uuid4().hex[:8]}"
    inputs = SessionInputs(session_id=base_id, model_ref=args.model)
    try:
        spec = session_spec_from_config(config, project, paths.config_dir(), inputs)
    except ConfigError as error:
        print(f"steiner-tui: {error}", file=sys.stderr)
        return 2

    def announce(phase: str) -> None:
        print(f"== phase: {phase}", file=sys.stderr, flush=True)

    coro = run_oneshot(
        spec,
        args.task,
        estimator=make_estimator(),
        sink=ProgressSink(),
        permission=HeadlessPermission(allow=args.yes),
        archive_for=_archive_for,
        phases=phases,
        on_phase=announce,
        recorder_for=_recorder_for,
    )
    try:
        results: list[PhaseResult] = asyncio.run(coro)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    for phase in results:
        print(f"## {phase.phase}\n\n{phase.result.reply or phase.result.error}\n")
    return 0 if results and all(p.result.status == "done" for p in results) else 1
