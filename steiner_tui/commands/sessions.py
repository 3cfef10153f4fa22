"""``steiner-tui sessions``: list, delete, evict and fork saved sessions.

* ``list``: a table of every session (id, project, last activity, model, generations, size,
  title), most recently active first; sessions whose log is unreadable are marked.
* ``delete ID``: remove the session's folder (log, meta, ``history.md``).
* ``evict [--keep N]``: keep the N most recently active sessions (default: ``[sessions] keep``
  from config, 50 when unset) and remove the rest.
* ``fork ID [--generation G | --message N]``: copy a session up to generation G, or up to the
  first N messages of its active generation, into a new id.

Exit status: 0 on success, 1 when the session is missing or cannot be changed, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table

from steiner_tui import paths
from steiner_tui.config import ConfigError, load_config
from steiner_tui.sessions.fork import fork_session
from steiner_tui.sessions.loader import SessionLoadError
from steiner_tui.sessions.meta import format_size
from steiner_tui.sessions.store import DEFAULT_KEEP, SessionInfo, SessionNotFoundError, SessionStore

__all__ = ["execute", "run"]


def _when(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _print_list(rows: list[SessionInfo], out: TextIO) -> None:

    if not rows:
        print("no saved sessions", file=out)
        return
    table = Table(title=f"Sessions ({len(rows)})")
    for name, justify in (
        ("id", "left"),
        ("project", "left"),
        ("last activity", "left"),
        ("model", "left"),
        ("generations", "right"),
        ("size", "right"),
        ("title", "left"),
    ):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        meta = row.meta
        model = f"{meta.alias}/{meta.model}" if meta.alias else meta.model
        table.add_row(
            row.session_id,
            meta.project_root or "-",
            _when(row.last_activity),
            model or "-",
            str(meta.generations),
            format_size(meta.size_bytes),
            f"[{row.problem}]" if row.problem else meta.title,
        )
    Console(file=out, width=160, color_system=None).print(table)


def _keep_from_config(project: Path) -> int:
    try:
        return load_config(project, {}).sessions_keep
    except ConfigError:
        return DEFAULT_KEEP


def execute(args: argparse.Namespace, base: Path, out: TextIO, err: TextIO) -> int:
    """Run one ``sessions`` sub-command against the sessions folder ``base``."""
    store = SessionStore(base)
    action = getattr(args, "sessions_command", None) or "list"
    try:
        if action == "list":
            _print_list(store.list(), out)
        elif action == "delete":
            store.delete(args.id)
            print(f"deleted session {args.id}", file=out)
        elif action == "evict":
            keep = args.keep
            if keep is None:
                keep = _keep_from_config(Path(getattr(args, "project", ".")).resolve())
            result = store.evict(keep)
            print(f"kept the newest {keep}; removed {len(result.removed)}", file=out)
            for session_id in result.removed:
                print(f"  removed {session_id}", file=out)
            for session_id, error in result.failed:
                print(f"steiner-tui sessions: cannot remove {session_id}: {error}", file=err)
            return 1 if result.failed else 0
        elif action == "fork":
            fork = fork_session(
                store,
                args.id,
                clock=lambda: datetime.now().astimezone(),
                generation=args.generation,
                message=args.message,
            )
            active = fork.lineage.active
            print(
                f"forked {args.id} into {fork.session_id} "
                f"(generation {active.id}, {len(active.messages)} messages)",
                file=out,
            )
            for problem in fork.source_problems:
                print(f"warning: {args.id}: {problem}", file=err)
            print(f"resume it with: steiner-tui --resume {fork.session_id}", file=out)
        else:
            print(f"steiner-tui sessions: unknown action {action!r}", file=err)
            return 2
    except ValueError as exc:
        print(f"steiner-tui sessions: {exc}", file=err)
        return 2
    except (SessionNotFoundError, SessionLoadError, OSError) as exc:
        print(f"steiner-tui sessions: {exc}", file=err)
        return 1
    return 0


def run(args: argparse.Namespace) -> int:
    """Entry point for ``steiner-tui sessions ...`` (sessions under ``CONFIG/sessions``)."""
    return execute(args, paths.sessions_dir(), sys.stdout, sys.stderr)
