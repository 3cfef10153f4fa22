"""``steiner-tui sessions``: list, delete, evict and fork saved sessions.

* ``list``: a table of every session (``SessionInfo.cells``: id, project, last activity, model,
  active generation, messages, size, title), most recently active first; sessions whose log is
  unreadable are marked, and a session open in a running app says so.
* ``delete ID [--yes]``: remove the session's folder (log, meta, ``history.md``).
* ``evict [--keep N] [--yes]``: keep the N most recently active sessions (default: ``[sessions]
  keep`` from config, 50 when unset) and remove the rest.
* ``fork ID [--generation G | --message N]``: copy a session up to generation G, or up to the
  first N messages of its active generation, into a new id.

Deleting asks first on a terminal and needs ``--yes`` otherwise; a session open in a running
app is never removed (its lock, ``sessions.lock``). Everything printed is data shown as text,
never read as Rich markup (a title holding ``[/]`` prints as it is).

Exit status: 0 on success, 1 when the session is missing, open or cannot be changed, 2 on bad
input (a bad id, a bad configuration, or no confirmation).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from steiner_tui import paths
from steiner_tui.config import ConfigError, load_config
from steiner_tui.plain import one_line, printable
from steiner_tui.sessions.errors import SessionBusyError
from steiner_tui.sessions.fork import fork_session, remove_stale_forks
from steiner_tui.sessions.loader import SessionLoadError
from steiner_tui.sessions.store import (
    LIST_COLUMNS,
    LIST_GIVE_WAY,
    LIST_RIGHT,
    SessionInfo,
    SessionNotFoundError,
    SessionStore,
)
from steiner_tui.units import counted

__all__ = ["execute", "run"]


_TITLE_ROOM = 30


def _print_list(rows: list[SessionInfo], store: SessionStore, out: TextIO) -> None:
    if not rows:
        print("no saved sessions", file=out)
        return
    cells = []
    for row in rows:
        cell = dict(zip(LIST_COLUMNS, row.cells(), strict=True))
        if store.is_open(row.session_id):
            cell["id"] += " (open)"
        cells.append(cell)
    # On a terminal, its width: columns give way to the title, which is cut with "…" rather
    # than every cell folded onto more lines. A pipe gets every column, 160 wide, folded.
    terminal = out.isatty()
    width = shutil.get_terminal_size().columns if terminal else 160
    widths = {c: max(len(c), *(len(r[c]) for r in cells)) for c in LIST_COLUMNS}
    shown = list(LIST_COLUMNS)
    for column in LIST_GIVE_WAY if terminal else ():  # a column: its width and " │ ", the table 1
        if sum(widths[c] + 3 for c in shown if c != "title") + _TITLE_ROOM + 4 <= width:
            break
        shown.remove(column)
    room = width - sum(widths[c] + 3 for c in shown if c != "title") - 4
    table = Table(title=Text(f"Sessions ({len(rows)})"))
    for name in shown:
        cut = terminal and name == "title"
        table.add_column(
            name,
            justify="right" if name in LIST_RIGHT else "left",
            overflow="ellipsis" if cut else "fold",
            no_wrap=cut,
            min_width=widths[name] if terminal and not cut else None,
            max_width=max(_TITLE_ROOM, room) if cut else None,
        )
    for row_cells in cells:
        table.add_row(*(Text(row_cells[c]) for c in shown))  # data, never markup
    Console(file=out, width=width, color_system=None, markup=False).print(table)


def _keep_from_config(project: Path) -> int:
    """``[sessions] keep``.

    Raises:
        ConfigError: the configuration is invalid (reported like every command reports it).
    """
    return load_config(project, {}).sessions_keep


def _confirm(question: str, args: argparse.Namespace, answers: TextIO | None, err: TextIO) -> bool:
    """True with ``--yes``, or when the person at the terminal answers yes."""
    if getattr(args, "yes", False):
        return True
    if answers is None or not answers.isatty():
        print(f"steiner-tui sessions: {question} Pass --yes to confirm.", file=err)
        return False
    print(f"{question} [y/N] ", end="", file=err, flush=True)
    return answers.readline().strip().lower() in ("y", "yes")


def _delete(
    store: SessionStore, args: argparse.Namespace, answers: TextIO | None, out: TextIO, err: TextIO
) -> int:
    row = store.info(args.id)  # raises when missing or invalid
    if store.is_open(args.id):
        raise SessionBusyError(f"session {args.id!r} is open in a running steiner-tui; not deleted")
    title = f" ({row.meta.title})" if row.meta.title else ""
    if not _confirm(f"Delete session {args.id}{title}?", args, answers, err):
        return 2
    store.delete(args.id)
    print(f"deleted session {args.id}", file=out)
    return 0


def _evict(
    store: SessionStore, args: argparse.Namespace, answers: TextIO | None, out: TextIO, err: TextIO
) -> int:
    keep = args.keep
    if keep is None:
        keep = _keep_from_config(Path(getattr(args, "project", ".")).resolve())
    candidates = [r for r in store.evict_candidates(keep) if not store.is_open(r.session_id)]
    if candidates:
        print(f"would remove {len(candidates)} session(s):", file=out)
        for row in candidates:
            print(f"  {row.session_id}  {one_line(row.meta.title)}", file=out)
        if not _confirm(f"Remove {len(candidates)} session(s)?", args, answers, err):
            return 2
    result = store.evict(keep)
    print(f"kept the newest {keep}; removed {len(result.removed)}", file=out)
    for session_id in result.removed:
        print(f"  removed {session_id}", file=out)
    for session_id in result.busy:
        print(f"  kept {session_id}: it is open in a running steiner-tui", file=out)
    for session_id, error in result.failed:
        print(printable(f"steiner-tui sessions: cannot remove {session_id}: {error}"), file=err)
    return 1 if result.failed else 0


def execute(
    args: argparse.Namespace,
    base: Path,
    out: TextIO,
    err: TextIO,
    answers: TextIO | None = None,
) -> int:
    """Run one ``sessions`` sub-command against the sessions folder ``base``.

    Args:
        args: the parsed command line.
        base: the sessions folder.
        out: where results go.
        err: where errors and questions go.
        answers: where a confirmation is read from (a terminal); None: never asked.

    Returns:
        The exit status.
    """
    store = SessionStore(base)
    remove_stale_forks(base)  # forks killed before they were renamed into place
    action = getattr(args, "sessions_command", None) or "list"
    try:
        if action == "list":
            _print_list(store.list(), store, out)
        elif action == "delete":
            return _delete(store, args, answers, out, err)
        elif action == "evict":
            return _evict(store, args, answers, out, err)
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
                f"(generation {active.id}, {counted(len(active.messages), 'message')})",
                file=out,
            )
            for problem in fork.source_problems:
                print(printable(f"warning: {args.id}: {problem}"), file=err)
            print(f"resume it with: steiner-tui --resume {fork.session_id}", file=out)
        else:
            print(f"steiner-tui sessions: unknown action {action!r}", file=err)
            return 2
    except ConfigError as exc:
        print(f"steiner-tui sessions: configuration error: {exc}", file=err)
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
    return execute(args, paths.sessions_dir(), sys.stdout, sys.stderr, sys.stdin)
