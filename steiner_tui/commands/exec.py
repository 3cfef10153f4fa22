"""``steiner-tui exec [--resume [ID]] "PROMPT"``: run one task to completion, print the answer.

Without a prompt (or with ``-``) the prompt is read from standard input when it is not a
terminal: ``echo "what changed?" | steiner-tui exec``.

The run is saved as a session, as the app saves its sessions (``sessions list`` shows it and
``steiner-tui --resume ID`` opens it). ``--resume ID`` continues a saved session headless, and
``--resume`` alone the project's most recent one: the same runner, log and compaction path, the
conversation and the prompt cache key restored exactly; a last turn that ended in an error says
that error first. With a single word after ``--resume`` that word is the prompt, not an id.

The answer streams to stdout as the model writes it; progress goes to stderr: each request as
it is sent, tool calls, sub-agents, warnings, an error once, labelled once with the model, and
the session's id at the end.

Exit status: 0 when the model answered, 1 on a provider or context error, 2 on bad input (a
bad configuration, an unknown session), 130 when interrupted (Ctrl-C stops streaming cleanly).

The session is built by the one session factory from the loaded configuration, as the app's
is: the same preamble, tools and ``[skills] enabled`` (delivered as envelopes with the prompt);
``--skill`` adds static skill blocks and ``--mode`` a mode notice when it differs from the
session's. So the first request of ``exec`` is the app's, and ``steiner-tui context`` shows it.

The model may delegate to sub-agents (``--no-delegate`` turns the ``delegate`` tool off); each
child's state changes go to stderr with the other progress lines, and children still running
when the command ends are cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TextIO

import msgspec

from steiner_tui import paths
from steiner_tui.agent.delegation import SubAgentUpdated
from steiner_tui.agent.event_log import JsonlEventLog
from steiner_tui.agent.headless import run_exec
from steiner_tui.agent.runner import RunResult
from steiner_tui.agent.session import DEFAULT_DELEGATION, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.commands import refuse
from steiner_tui.commands.headless_io import (
    HeadlessPermission,
    ProgressSink,
    ReplyPrinter,
    keep_compiled_templates,
    load_project_config,
    make_estimator,
    project_folder,
)
from steiner_tui.engine.events import EngineEvent, EventSink, FanoutSink
from steiner_tui.plain import printable
from steiner_tui.sessions.errors import (
    SessionBusyError,
    SessionLoadError,
    SessionNotFoundError,
    busy_hint,
)
from steiner_tui.sessions.loader import LoadedSession
from steiner_tui.sessions.resume import LATEST, find_session, resumed_project

__all__ = ["SubAgentProgress", "run"]


class SubAgentProgress(msgspec.Struct):
    """Writes one stderr line each time a sub-agent changes state (queued, running, done...)."""

    stream: TextIO = sys.stderr
    states: dict[str, str] = msgspec.field(default_factory=dict)

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


def prompt_and_resume(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """``(prompt, resume)`` from the command line: a lone word after ``--resume`` is the prompt.

    ``resume`` is None (a new session), ``"latest"`` or a session id.
    """
    prompt, resume = getattr(args, "prompt", None), getattr(args, "resume_session", None)
    if prompt is None and resume not in (None, LATEST):
        return resume, LATEST
    return prompt, resume


def run(args: argparse.Namespace) -> int:
    keep_compiled_templates()
    project = project_folder(args.project, "exec")
    if project is None:
        return 2
    prompt, resume = prompt_and_resume(args)
    if prompt in (None, "-") and not sys.stdin.isatty():
        prompt = sys.stdin.read().strip()  # `… | steiner-tui exec` (or `exec -`)
    if not prompt or prompt == "-":
        print(
            "steiner-tui exec: a prompt is required (as an argument, or on stdin)", file=sys.stderr
        )
        return 2
    loaded: LoadedSession | None = None
    if resume is not None:
        try:
            loaded = find_session(project, resume, paths.sessions_dir())
        except (ValueError, SessionNotFoundError, SessionLoadError) as error:
            return refuse(str(error))
        project = resumed_project(loaded, project)
    config = load_project_config(project, trust_project=getattr(args, "trust_project", False))
    event_log = JsonlEventLog(Path(args.events)) if args.events else None
    printer, progress = ReplyPrinter(), ProgressSink()
    sink: EventSink = FanoutSink((printer, progress, SubAgentProgress()))
    if event_log is not None:
        sink = FanoutSink((sink, event_log))
    request = SessionRequest(
        project,
        config,
        config_dir=paths.config_dir(),
        model=args.model,
        resume=loaded,
        static_skills=tuple(args.skill or ()),
        delegation=None if args.no_delegate else DEFAULT_DELEGATION,
        sink=sink,
        permission=HeadlessPermission(allow=args.yes),
        estimator=make_estimator(),
        compaction_mode=getattr(args, "compaction", None),
    )
    try:
        session = build_session(request)
    except (ValueError, SessionNotFoundError, SessionLoadError) as error:
        busy = loaded if isinstance(error, SessionBusyError) else None
        hint = f"; {busy_hint(busy.session_id)}" if busy is not None else ""
        return refuse(f"{error}{hint}")
    except OSError as error:
        return refuse(f"cannot save the session: {error}")
    for notice in session.notices:  # what the workbench shows at start: resume, log, config
        print(printable(f"steiner-tui: {notice}"), file=sys.stderr)
    ended = [error for error in session.logged_errors if not error.warning][-1:]
    if ended and ended[0].position == len(session.runner.conversation):
        # The workbench shows it in place in the conversation; here it is said once.
        said = f"steiner-tui: the last turn ended in an error: {ended[0].message}"
        print(printable(said), file=sys.stderr)
    if resume is None or args.mode != "build":  # a resumed session keeps its mode by default
        session.driver.set_mode(args.mode)  # a notice goes out when the mode changes
    try:
        result: RunResult = asyncio.run(run_exec(session, prompt))
    except KeyboardInterrupt:
        printer.finish()
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        session.close()
        if event_log is not None:
            event_log.close()
    printer.finish()
    print(f"session: {session.session_id}", file=sys.stderr)
    if session.log is not None and session.log.failure:
        # Said as a warning when it happened; the run's record is not whole.
        print(printable(f"steiner-tui: {session.log.failure}"), file=sys.stderr)
        return 1
    if result.status == "done":
        return 0
    if not progress.errors:  # an error the runner reported is already on stderr
        print(printable(f"steiner-tui: {result.error}"), file=sys.stderr)
    return 1
