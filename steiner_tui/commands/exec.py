"""``steiner-tui exec "PROMPT"``: run one task to completion and print the answer.

The answer streams to stdout as the model writes it; progress goes to stderr: each request as
it is sent, tool calls, sub-agents, warnings, and an error once, labelled once with the model.

Exit status: 0 when the model answered, 1 on a provider or context error, 2 on bad input,
130 when interrupted (Ctrl-C stops streaming cleanly).

The model may delegate to sub-agents (``--no-delegate`` turns the ``delegate`` tool off); each
child's state changes go to stderr with the other progress lines, and children still running
when the command ends are cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from steiner_tui import paths
from steiner_tui.agent.delegation import DelegationSettings, SubAgentUpdated
from steiner_tui.agent.event_log import JsonlEventLog
from steiner_tui.agent.from_config import SessionInputs, session_spec_from_config
from steiner_tui.agent.headless import run_exec
from steiner_tui.agent.runner import RunResult
from steiner_tui.commands.headless_io import (
    HeadlessPermission,
    ProgressSink,
    ReplyPrinter,
    load_project_config,
    make_estimator,
)
from steiner_tui.config import ConfigError
from steiner_tui.engine.events import EngineEvent, EventSink, FanoutSink
from steiner_tui.tools.permissions import PermissionPolicy

__all__ = ["SubAgentProgress", "run"]


@dataclass(slots=True)
class SubAgentProgress:
    """Writes one stderr line each time a sub-agent changes state (queued, running, done...)."""

    stream: TextIO = sys.stderr
    states: dict[str, str] = field(default_factory=dict)

    def emit(self, event: EngineEvent) -> None:
        if not isinstance(event, SubAgentUpdated):
            return
        info = event.info
        if self.states.get(info.id) == info.state:
            return
        self.states[info.id] = info.state
        line = f"sub-agent {info.id}: {info.state}"
        if info.reason:
            line += f" ({info.reason})"
        print(line, file=self.stream, flush=True)


def run(args: argparse.Namespace) -> int:
    project = Path(args.project).resolve()
    if not project.is_dir():
        print(f"steiner-tui: project folder {project} does not exist", file=sys.stderr)
        return 2
    config = load_project_config(project)
    session_id = f"exec-{uuid.uuid4().hex[:8]}"
    inputs = SessionInputs(
        session_id=session_id,
        mode=args.mode,
        static_skills=tuple(args.skill or ()),
        model_ref=args.model,
    )
    try:
        spec = session_spec_from_config(config, project, paths.config_dir(), inputs)
    except ConfigError as error:
        print(f"steiner-tui: {error}", file=sys.stderr)
        return 2
    policy = PermissionPolicy(HeadlessPermission(allow=args.yes), dict(config.permissions))
    event_log = JsonlEventLog(Path(args.events)) if args.events else None
    printer, progress = ReplyPrinter(), ProgressSink()
    sink: EventSink = FanoutSink((printer, progress, SubAgentProgress()))
    if event_log is not None:
        sink = FanoutSink((sink, event_log))
    delegation = None if args.no_delegate else DelegationSettings()
    coro = run_exec(
        spec,
        args.prompt,
        estimator=make_estimator(),
        sink=sink,
        policy=policy,
        delegation=delegation,
    )
    try:
        result: RunResult = asyncio.run(coro)
    except KeyboardInterrupt:
        printer.finish()
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        if event_log is not None:
            event_log.close()
    printer.finish()
    if result.status == "done":
        return 0
    if not progress.errors:  # an error the runner reported is already on stderr
        print(f"steiner-tui: {result.error}", file=sys.stderr)
    return 1
