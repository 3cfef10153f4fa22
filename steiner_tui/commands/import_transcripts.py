"""``steiner-tui import [PATH] [--json]``: read Claude Code, Codex and Gemini CLI transcripts.

PATH is a transcript or a folder; without it, ``~/.claude/projects``, ``~/.codex/sessions`` and
``~/.gemini/tmp``.
Each session is saved read-only in the sessions folder (``steiner-tui capture open`` and the
workbench open it by id) and reported: requests with their context, cache-read share, output
tokens and model; what its requests cost (the import screen's line: the config's prices,
else the price table); compactions; sub-agents and the tool call that started them; what tool
results cost the most; unknown record types and unreadable lines. ``--json`` prints
``{"sessions": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from steiner_tui import paths
from steiner_tui.commands import refuse
from steiner_tui.commands.headless_io import load_project_config
from steiner_tui.engine.prices import PriceOverrides
from steiner_tui.importers.discover import default_paths, import_paths
from steiner_tui.importers.figures import chart_rows, session_cost
from steiner_tui.importers.model import ImportedSession
from steiner_tui.importers.store import save_import
from steiner_tui.plain import json_text, one_line, printable
from steiner_tui.units import count, counted

__all__ = ["run"]


def _print(
    console: Console, session: ImportedSession, prices: PriceOverrides, indent: str = ""
) -> None:
    requests = session.requests
    context = sum(r.context_tokens for r in requests)
    read = sum(r.cache_read_tokens for r in requests)
    output = sum(r.output_tokens for r in requests)
    models = sorted({r.model for r in requests if r.model})
    share = f"{read / context:.0%}" if context else "-"
    console.print(
        Text(
            printable(
                f"{indent}{session.id}  {session.source} {session.version}  "
                f"{counted(len(requests), 'request')}"
                f" · input tokens, all requests {count(context)} (cache read {share})"
                f" · output {count(output)}"
                f" · max {count(max((r.context_tokens for r in requests), default=0))}"
                f" · {', '.join(models) or '-'}"
            )
        )
    )
    window = session.window
    if window.tokens:
        trigger = (
            f" · compacts at {count(window.trigger)} ({window.trigger_source})"
            if window.trigger
            else ""
        )
        console.print(Text(f"{indent}  window {count(window.tokens)} ({window.source}){trigger}"))
    else:
        console.print(Text(printable(f"{indent}  window {window.source}")))
    rows = chart_rows(
        [r.to_json() for r in requests], [g.to_json() for g in session.generations], prices=prices
    )
    cost = session_cost([row for row in rows if not row.compaction])
    console.print(Text(printable(f"{indent}  {cost}")))
    if session.link is not None:
        link = session.link
        console.print(
            Text(
                printable(
                    f"{indent}  started by {link.tool or '?'} {link.tool_use_id} "
                    f"{link.description}".rstrip()
                )
            )
        )
    for generation in session.generations:
        console.print(
            Text(
                printable(
                    f"{indent}  compaction after request {generation.after_request}: trigger "
                    f"{generation.trigger or 'not recorded'}, before "
                    f"{count(generation.pre_tokens) if generation.pre_tokens is not None else '?'}"
                    f" tokens, summary {count(len(generation.summary))} characters"
                )
            )
        )
    if session.unknown_records:
        kinds = ", ".join(f"{k} ×{n}" for k, n in sorted(session.unknown_records.items()))
        console.print(Text(printable(f"{indent}  unknown record types (skipped): {kinds}")))
    for problem in session.problems:
        console.print(Text(printable(f"{indent}  {problem.said()}")))
    for warning in session.warnings:
        console.print(Text(printable(f"{indent}  {warning}")))
    for agent in session.subagents:
        _print(console, agent, prices, indent + "  ")
    for agent in session.own_calls:
        _print(console, agent, prices, indent + "  ")


def _ranking(console: Console, session: ImportedSession) -> None:
    if not session.ranking:
        return
    table = Table(title=Text(one_line(f"What costs the most: {session.id}")))
    for name, right in (
        ("tool", False),
        ("file or command", False),
        ("bytes", True),
        ("results", True),
    ):
        table.add_column(name, justify="right" if right else "left", overflow="fold")
    for row in session.ranking[:10]:
        target = row.target.splitlines()[0] if row.target else "-"
        table.add_row(
            Text(one_line(row.tool)), Text(one_line(target[:120])), count(row.bytes), str(row.count)
        )
    console.print(table)


def run(args: argparse.Namespace) -> int:
    """Import ``args.path`` (default: the agents' folders) and report."""
    given = getattr(args, "path", None)
    targets = [Path(given).expanduser()] if given else default_paths(Path.home())
    if given and not targets[0].exists():
        return refuse(f"{targets[0]} does not exist", "import")
    result = import_paths(targets)
    base = paths.sessions_dir()
    kept = []
    for session in result.sessions:
        try:
            save_import(base, session)
        except (
            ValueError,
            OSError,
        ) as error:  # one session's bad id or a full disk: the rest go on
            print(printable(f"not saved {session.id}: {error}"), file=sys.stderr)
            continue
        kept.append(session)
    for path, reason in result.skipped:
        print(printable(f"skipped {path}: {reason}"), file=sys.stderr)
    if args.json:
        print(
            json_text(
                json.dumps(
                    {"sessions": [s.to_json() for s in kept]},
                    indent=1,
                    ensure_ascii=False,
                )
            )
        )
        return 0
    prices = load_project_config(Path(args.project)).price_overrides
    console = Console(markup=False, highlight=False)
    if not kept:
        console.print(
            Text(printable(f"No transcripts found in {', '.join(str(t) for t in targets)}."))
        )
    for session in kept:
        _print(console, session, prices)
        _ranking(console, session)
    return 0
