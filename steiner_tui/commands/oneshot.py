"""``steiner-tui oneshot "TASK"``: plan, build and verify phases, each its own saved session.

Each phase is built by the one session factory from the loaded configuration (its permissions,
skills and model), as the app's and ``exec``'s sessions are; see ``agent.headless``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from steiner_tui import paths
from steiner_tui.agent.headless import DEFAULT_PHASES, PhaseResult, run_oneshot
from steiner_tui.agent.session import SessionRequest
from steiner_tui.commands import refuse
from steiner_tui.commands.headless_io import (
    HeadlessPermission,
    ProgressSink,
    keep_compiled_templates,
    load_project_config,
    make_estimator,
    project_folder,
)
from steiner_tui.plain import printable
from steiner_tui.sessions.ids import new_session_id

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    keep_compiled_templates()
    project = project_folder(args.project, "oneshot")
    if project is None:
        return 2
    phases = tuple(args.phases.split(",")) if args.phases else DEFAULT_PHASES
    unknown = [p for p in phases if p not in DEFAULT_PHASES]
    if unknown:
        print(
            f"steiner-tui: unknown phase(s) {', '.join(unknown)}; known: plan, build, verify",
            file=sys.stderr,
        )
        return 2
    request = SessionRequest(
        project,
        load_project_config(project, trust_project=getattr(args, "trust_project", False)),
        config_dir=paths.config_dir(),
        model=args.model,
        session_id=f"oneshot-{new_session_id()}",
        sink=ProgressSink(),
        permission=HeadlessPermission(allow=args.yes),
        estimator=make_estimator(),
        compaction_mode=getattr(args, "compaction", None),
    )

    def announce(phase: str) -> None:
        print(f"== phase: {phase}", file=sys.stderr, flush=True)

    coro = run_oneshot(request, args.task, phases=phases, on_phase=announce)
    try:
        results: list[PhaseResult] = asyncio.run(coro)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except ValueError as error:  # ConfigError: the model cannot be resolved
        return refuse(str(error))
    except OSError as error:
        return refuse(f"cannot save the session: {error}")
    for phase in results:
        print(printable(f"## {phase.phase}\n\n{phase.result.reply or phase.result.error}\n"))
    return 0 if results and all(p.result.status == "done" for p in results) else 1
