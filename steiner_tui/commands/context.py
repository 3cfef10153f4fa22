"""``steiner-tui context [--json] [PATH]``: the per-source report of a dry-run request.

Assembles the request the next turn would send for the project (empty conversation, offline
model, the built-in tools) and prints each block's source, path, role, bytes, tokens and
truncation; each message's role, bytes and hash; the tool list's bytes; the token estimate; and
the model window (context size, soft threshold, hard limit). ``--json`` prints one object with
the keys ``blocks``, ``messages``, ``tools_bytes``, ``estimate`` and ``window``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from steiner_tui import paths
from steiner_tui.engine.budget import ModelTokenBudget
from steiner_tui.engine.events import ListSink, WarningEvent
from steiner_tui.engine.messages import messages_bytes
from steiner_tui.engine.models import lookup_model
from steiner_tui.engine.prompt.assembler import AssembledPrompt, AssemblyOptions, assemble
from steiner_tui.engine.prompt.files import LocalFileReader
from steiner_tui.engine.prompt.preamble import CachedSystemPreamble
from steiner_tui.engine.prompt.project_context import load_project_context_spec
from steiner_tui.engine.prompt.static_cache import StaticContextCache
from steiner_tui.engine.skills.discovery import skill_roots
from steiner_tui.engine.snapshots import hash_messages
from steiner_tui.engine.tokens import RequestEstimator, default_encoding_loader
from steiner_tui.engine.tooldefs import tools_bytes
from steiner_tui.resources import bundled_skills_dir
from steiner_tui.tools.registry import default_tool_definitions

__all__ = ["ContextReport", "build_report", "run"]

MODEL = "offline"


@dataclass(frozen=True, slots=True)
class ContextReport:
    """The figures the command prints, as plain JSON-ready data."""

    data: dict[str, Any]
    warnings: tuple[str, ...]


def build_report(root: Path, now: datetime) -> ContextReport:
    """Assemble a dry run for ``root`` and measure it.

    Raises:
        ValueError: the project's context configuration is invalid (e.g. an escaping path).
    """
    reader = LocalFileReader()
    sink = ListSink()
    options = AssemblyOptions(
        project_root=root,
        global_agents_path=paths.global_agents_md(),
        project_context=load_project_context_spec(root, reader, sink),
        skill_roots=skill_roots(bundled_skills_dir(), paths.config_dir(), root),
        scope=f"context:{root}",
    )
    prompt: AssembledPrompt = assemble(
        options,
        (),
        cache=StaticContextCache(reader),
        preamble=CachedSystemPreamble(),
        session_date=now,
        sink=sink,
    )
    tools = default_tool_definitions()
    estimator = RequestEstimator(default_encoding_loader(None))
    estimate = estimator.estimate(MODEL, prompt.messages, tools)
    budget = ModelTokenBudget.for_model(lookup_model(MODEL))
    hashes = hash_messages(prompt.messages)
    data: dict[str, Any] = {
        "blocks": [
            {
                "source": block.source,
                "path": block.path,
                "role": block.role,
                "bytes": block.byte_size,
                "tokens": estimator.count_text(MODEL, block.content),
                "truncated": block.truncated,
            }
            for block in prompt.blocks
        ],
        "messages": [
            {"role": message.role, "bytes": messages_bytes([message]), "hash": digest}
            for message, digest in zip(prompt.messages, hashes, strict=True)
        ],
        "tools_bytes": tools_bytes(tools),
        "estimate": {
            "model": MODEL,
            "tokens": estimate.tokens,
            "raw_tokens": estimate.raw_tokens,
            "strategy": estimate.strategy,
            "confidence": estimate.confidence,
        },
        "window": {
            "context_size": budget.context_size,
            "soft_threshold": budget.soft_threshold,
            "hard_limit": budget.hard_limit,
            "safety_margin": budget.safety_margin,
            "max_output": budget.max_output,
        },
    }
    warnings = tuple(
        f"{event.code}: {event.message}" for event in sink.events if isinstance(event, WarningEvent)
    )
    return ContextReport(data, warnings)


def _print_tables(report: ContextReport) -> None:
    data = report.data
    console = Console(markup=False, highlight=False)  # paths and hashes are data, not markup
    blocks = Table(title="Blocks (dry run)")
    blocks.add_column("source")
    blocks.add_column("path", overflow="fold")
    blocks.add_column("role")
    blocks.add_column("bytes", justify="right")
    blocks.add_column("tokens", justify="right")
    blocks.add_column("truncated")
    for row in data["blocks"]:
        cells = (
            row["source"],
            row["path"] or "-",
            row["role"],
            str(row["bytes"]),
            str(row["tokens"]),
            "yes" if row["truncated"] else "no",
        )
        blocks.add_row(*(Text(cell) for cell in cells))
    messages = Table(title="Messages")
    messages.add_column("#", justify="right")
    messages.add_column("role")
    messages.add_column("bytes", justify="right")
    messages.add_column("hash")
    for index, row in enumerate(data["messages"]):
        numbers = (str(index), row["role"], str(row["bytes"]), row["hash"])
        messages.add_row(*(Text(cell) for cell in numbers))
    console.print(blocks)
    console.print(messages)
    estimate, window = data["estimate"], data["window"]
    console.print(f"tools: {data['tools_bytes']} bytes")
    console.print(
        f"estimate ({estimate['model']}): {estimate['tokens']} tokens "
        f"(raw {estimate['raw_tokens']}, {estimate['strategy']}, {estimate['confidence']})"
    )
    console.print(
        f"window: context {window['context_size']}, soft threshold {window['soft_threshold']}, "
        f"hard limit {window['hard_limit']} (safety margin {window['safety_margin']}), "
        f"max output {window['max_output']}"
    )


def run(args: argparse.Namespace) -> int:
    """Print the context report of the project at ``args.path`` (default: ``--project``)."""
    raw = args.path if getattr(args, "path", None) else getattr(args, "project", ".")
    root = Path(raw).expanduser().resolve()
    if not root.is_dir():
        print(f"steiner-tui context: {root} is not a folder", file=sys.stderr)
        return 2
    try:
        report = build_report(root, datetime.now().astimezone())
    except ValueError as exc:
        print(f"steiner-tui context: {exc}", file=sys.stderr)
        return 2
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.json:
        print(json.dumps(report.data, indent=2))
    else:
        _print_tables(report)
    return 0
