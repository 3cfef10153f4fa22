"""``steiner-tui capture``: record what an agent sends to its model API.

* ``capture [--port N] [--upstream URL]`` runs the proxy on 127.0.0.1 until Ctrl-C and prints
  one line per request (never a header or a key). Point Claude Code at it with
  ``ANTHROPIC_BASE_URL=http://127.0.0.1:N``, Codex with a ``[model_providers]`` entry whose
  ``base_url`` is ``http://127.0.0.1:N/v1`` (README, "Capture and import").
* ``capture list`` lists captures, newest first, the id first on each line; on a terminal the
  upstream is cut with "…" to fit its width (a pipe gets each line whole).
* ``capture show ID [--json]`` prints each request's blocks, tools, messages, usage and prefix
  (``--json``: ``{"requests": [...]}``).
* ``capture open ID`` opens it in the workbench, read-only, following it while it grows.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import TextIO

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text

from steiner_tui import paths
from steiner_tui.capture.proxy import CaptureProxy, ProxyEvent
from steiner_tui.capture.report import capture_report
from steiner_tui.capture.store import (
    CaptureNotFoundError,
    CaptureWriter,
    list_captures,
    read_capture,
)
from steiner_tui.commands import refuse
from steiner_tui.plain import json_text, one_line, printable
from steiner_tui.units import count, counted

__all__ = ["log_line", "run"]


def log_line(event: ProxyEvent) -> str:
    usage = event.usage
    figures = (
        f"context {count(usage.context_tokens)} (cache read {count(usage.cache_read_tokens)}, "
        f"created {count(usage.cache_creation_tokens)}) · output {count(usage.output_tokens)}"
        if usage is not None
        else "no usage"
    )
    cut = f" · cut short: {event.cut}" if event.cut else ""
    return one_line(
        f"#{event.seq} {event.method} {event.path} → {event.status} · request "
        f"{count(event.request_bytes)} B · reply {count(event.reply_bytes)} B · {figures}{cut}"
    )


async def _serve(port: int, upstream: str | None) -> int:
    writer = CaptureWriter(paths.sessions_dir(), upstream or "")
    proxy = CaptureProxy(
        writer,
        upstream,
        on_event=lambda e: print(log_line(e), flush=True),
        on_problem=lambda text: print(f"warning: {one_line(text)}", file=sys.stderr, flush=True),
    )
    try:
        bound = await proxy.start(port=port)
    except OSError as exc:
        writer.close()
        print(f"steiner-tui capture: cannot listen on 127.0.0.1:{port}: {exc}", file=sys.stderr)
        return 1
    print(f"capture {writer.capture_id} listening on http://127.0.0.1:{bound}", flush=True)
    print(f"  upstream: {upstream or 'https://api.anthropic.com, https://api.openai.com'}")
    print(f"  Claude Code: ANTHROPIC_BASE_URL=http://127.0.0.1:{bound} claude")
    print(f'  Codex: [model_providers.capture] base_url = "http://127.0.0.1:{bound}/v1"')
    print(f"  open it: steiner-tui capture open {writer.capture_id}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await proxy.stop()
        writer.close()
    return 0


def _list(out: TextIO) -> int:
    captures = list_captures(paths.sessions_dir())
    if not captures:
        print("no captures yet (steiner-tui capture starts one)", file=out)
    width = shutil.get_terminal_size().columns if out.isatty() else 0
    for info in captures:
        created = info.created.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        damaged = f"  {len(info.problems)} unreadable (capture show)" if info.problems else ""
        head = one_line(f"{info.capture_id}  {created}  {counted(info.requests, 'request')}  ")
        upstream, damaged = one_line(info.upstream or "-"), one_line(damaged)
        room = width - cell_len(head) - cell_len(damaged)
        if width and cell_len(upstream) > room:
            upstream = set_cell_size(upstream, max(0, room - 1)) + "…"
        print(head + upstream + damaged, file=out)
    return 0


def _show(capture_id: str, as_json: bool) -> int:
    try:
        info, recorded = read_capture(paths.sessions_dir(), capture_id)
    except (ValueError, CaptureNotFoundError) as exc:
        return refuse(str(exc), "capture")
    for problem in info.problems:  # what was skipped; the rest is shown
        print(printable(f"steiner-tui capture: {info.directory}: {problem}"), file=sys.stderr)
    report = capture_report(recorded)
    if as_json:
        print(json_text(json.dumps(report, indent=1, ensure_ascii=False)))
        return 0
    # soft_wrap: one line per request and per block whatever the width (piped, or to grep).
    console = Console(markup=False, highlight=False, soft_wrap=True)
    for request in report["requests"]:
        usage = request["usage"] or {}
        prefix = request["prefix"]
        console.print(
            Text(
                one_line(
                    f"#{request['seq']} {request['api']} {request['model']} · "
                    f"{count(request['bytes']['total'])} B · {len(request['tools'])} tools "
                    f"({count(request['tools_bytes'])} B) · {len(request['messages'])} messages · "
                    f"input {count(usage.get('input_tokens', 0))} cache read "
                    f"{count(usage.get('cache_read_tokens', 0))} created "
                    f"{count(usage.get('cache_creation_tokens', 0))} output "
                    f"{count(usage.get('output_tokens', 0))} · prefix "
                    f"{prefix['matching_messages']} messages"
                    + (f", broken by {prefix['broken_by']}" if prefix["broken_by"] else "")
                    + (
                        f" · reply cut short: {request['reply']['cut']}"
                        if request["reply"] and request["reply"]["cut"]
                        else ""
                    )
                )
            )
        )
        for block in request["blocks"]:
            mark = " (cache breakpoint)" if block["cache_control"] else ""
            path = f" {block['path']}" if block["path"] else ""
            console.print(
                Text(
                    one_line(
                        f"    {block['where']}: {block['source']}{path} "
                        f"{count(block['bytes'])} B{mark}"
                    )
                )
            )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the proxy, or list, show or open captures."""
    command = getattr(args, "capture_command", None)
    if command == "list":
        return _list(sys.stdout)
    if command == "show":
        return _show(args.id, args.json)
    if command == "open":
        from steiner_tui.commands.capture_open import open_capture  # Textual only for `open`

        return open_capture(args.id, Path(args.project))
    try:
        return asyncio.run(_serve(args.port, args.upstream))
    except KeyboardInterrupt:
        return 0
