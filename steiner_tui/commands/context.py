"""``steiner-tui context [--json] [--model REF] [PATH]``: what the next request of a new session
sends, per source.

The report is the app's context panel in text: the session is built by the one session factory
from the project's configuration (a broken file is an error, as in the app), with the app's
tools, delegation, skill roots and ``[skills] enabled``, and the request is the session's dry
run of its next request (``Session.preview``), so its blocks, hashes and tool list are those the
app's (and ``exec``'s) first request sends; the enabled skills' envelopes are the last user
message, which the first prompt follows. Nothing is recorded.

It prints each block's source, path, role, bytes, tokens (the panel's figure: a message's
framing is counted with its first block) and truncation; each message's role, bytes and hash;
what each source costs (the panel's rows); the tool list's bytes; the token estimate; and the
model window (context size, soft threshold, hard limit); and what costs the most, largest first
(``Runner.cost_ranking``: each AGENTS.md and context file, each tool definition, each skill...).
``--json`` prints one object with the keys ``request``, ``blocks``, ``block_message_count``,
``messages``, ``sources``, ``tools_bytes``, ``estimate``, ``window``, ``top`` (those rows),
``price`` (the model's dollars per million tokens and the table's date, null: unknown) and
``cache`` (what the provider's cache would reuse of the request, as ``--events`` says it for
each request sent: ``reused_tokens``, ``rewritten_tokens``, ``cause``, ``detail``,
``cost_usd``; a new session's first request has nothing cached).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import msgspec
from rich.console import Console
from rich.table import Table
from rich.text import Text

from steiner_tui import paths
from steiner_tui.agent.cache_diagnostics import params_key
from steiner_tui.agent.session import Session, SessionRequest
from steiner_tui.agent.session_factory import build_session
from steiner_tui.commands import refuse
from steiner_tui.commands.headless_io import (
    keep_compiled_templates,
    make_estimator,
    project_folder,
)
from steiner_tui.config import ConfigError, load_config
from steiner_tui.engine.costs import CostItem
from steiner_tui.engine.events import ListSink, RequestSnapshot, WarningEvent
from steiner_tui.engine.messages import messages_bytes
from steiner_tui.engine.prices import PRICES_AS_OF
from steiner_tui.engine.prompt.sources import label_of
from steiner_tui.engine.serialize import to_jsonable
from steiner_tui.plain import one_line, printable
from steiner_tui.units import byte_count, count, token_count

__all__ = ["ContextReport", "build_report", "run"]


class ContextReport(msgspec.Struct, frozen=True):
    """The figures the command prints, as plain JSON-ready data."""

    data: dict[str, Any]
    warnings: tuple[str, ...]


def _block_tokens(snapshot: RequestSnapshot) -> list[int]:
    """Each block's tokens as the context panel counts them (its source row's figure; a second
    block of the same source and path is counted in the first one's)."""
    rows = {(r.source, r.path): r.tokens for r in snapshot.sources if not r.name}
    seen: set[tuple[str, str]] = set()
    tokens: list[int] = []
    for block in snapshot.blocks:
        key = (block.source, block.path)
        tokens.append(rows.get(key, 0) if key not in seen else 0)
        seen.add(key)
    return tokens


def _data(session: Session, snapshot: RequestSnapshot, top: tuple[CostItem, ...]) -> dict[str, Any]:
    model = session.runner.model
    budget = model.budget
    return {
        "request": {
            "index": snapshot.index,
            "model": snapshot.model,
            "provider": snapshot.provider,
            "dry_run": True,
        },
        "blocks": [
            {
                "source": block.source,
                "path": block.path,
                "role": block.role,
                "bytes": block.byte_size,
                "tokens": tokens,
                "truncated": block.truncated,
            }
            for block, tokens in zip(snapshot.blocks, _block_tokens(snapshot), strict=True)
        ],
        "block_message_count": snapshot.block_message_count,
        "messages": [
            {"role": message.role, "bytes": messages_bytes([message]), "hash": digest}
            for message, digest in zip(snapshot.messages, snapshot.message_hashes, strict=True)
        ],
        "sources": [
            {
                "source": row.source,
                "path": row.path,
                "name": row.name,
                "bytes": row.bytes,
                "tokens": row.tokens,
                "truncated": row.truncated,
            }
            for row in snapshot.sources
        ],
        "tools_bytes": snapshot.tools_bytes,
        "estimate": {
            "model": snapshot.model,
            "tokens": snapshot.estimated_prompt_tokens,
            "raw_tokens": snapshot.raw_prompt_tokens,
            "strategy": snapshot.estimate_strategy,
            "confidence": snapshot.estimate_confidence,
            "tokenizer": session.runner.context.estimator.choice(snapshot.model).encoding,
        },
        "window": {
            "context_size": budget.context_size,
            "soft_threshold": budget.soft_threshold,
            "hard_limit": budget.hard_limit,
            "safety_margin": budget.safety_margin,
            "max_output": budget.max_output,
            "source": model.window_origin,
            "doctor": session.runner.window_doctor().as_json(),
        },
        "top": [item.as_json() for item in top],
        "price": None
        if model.price is None
        else {**to_jsonable(model.price), "as_of": PRICES_AS_OF},
        "cache": to_jsonable(
            session.runner.cache.preview(
                snapshot,
                snapshot.time,
                price=model.price,
                params=params_key(model.params, model.extra_params),
            )
        ),
    }


def build_report(request: SessionRequest) -> ContextReport:
    """Build the session ``request`` asks for (unrecorded) and report its next request.

    Raises:
        ConfigError: the model cannot be resolved.
        ValueError: the project's context configuration is invalid (e.g. an escaping path).
    """
    sink = ListSink()
    session = build_session(
        SessionRequest(
            request.project_root,
            request.config,
            config_dir=request.config_dir,
            env=request.env,
            model=request.model,
            record=False,
            session_date=request.session_date,
            sink=sink,
            clock=request.clock,
            estimator=request.estimator,
        )
    )
    try:
        asyncio.run(session.runner.learn_limits())  # a local server's window, as the app asks
        session.runner.check_window()
        snapshot = session.preview()
        top = session.runner.cost_ranking(snapshot)
    finally:
        session.close()
    warnings = [f"config: {warning}" for warning in request.config.warnings]
    warnings += [
        f"{event.code}: {event.message}" for event in sink.events if isinstance(event, WarningEvent)
    ]
    return ContextReport(_data(session, snapshot, top), tuple(warnings))


def _table(title: str, columns: list[tuple[str, bool]], rows: list[tuple[str, ...]]) -> Table:
    table = Table(title=title)
    for name, right in columns:
        table.add_column(name, justify="right" if right else "left", overflow="fold")
    for row in rows:
        table.add_row(*(Text(one_line(cell)) for cell in row))  # data: never markup, nor controls
    return table


def _print_tables(report: ContextReport) -> None:
    data = report.data
    console = Console(markup=False, highlight=False)
    blocks = _table(
        "Blocks (dry run)",
        [
            ("source", False),
            ("path", False),
            ("role", False),
            ("bytes", True),
            ("tokens", True),
            ("truncated", False),
        ],
        [
            (
                label_of(row["source"]),
                row["path"] or "-",
                row["role"],
                count(row["bytes"]),
                count(row["tokens"]),
                "yes" if row["truncated"] else "no",
            )
            for row in data["blocks"]
        ],
    )
    messages = _table(
        "Messages",
        [("#", True), ("role", False), ("bytes", True), ("hash", False)],
        [
            (str(index), row["role"], count(row["bytes"]), row["hash"])
            for index, row in enumerate(data["messages"])
        ],
    )
    sources = _table(
        "Sources (as the context panel counts them)",
        [("source", False), ("path or skill", False), ("bytes", True), ("tokens", True)],
        [
            (
                label_of(row["source"]),
                row["name"] or row["path"] or "-",
                count(row["bytes"]),
                count(row["tokens"]),
            )
            for row in data["sources"]
        ],
    )
    top = _table(
        "What costs the most",
        [("tokens", True), ("kind", False), ("what", False)],
        [(count(row["tokens"]), row["kind"], row["label"]) for row in data["top"]],
    )
    for table in (blocks, messages, sources, top):
        console.print(table)
    request, estimate, window = data["request"], data["estimate"], data["window"]
    console.print(
        Text(
            one_line(
                f"request #{request['index']} (dry run): {request['provider']}/{request['model']}"
            )
        )
    )
    console.print(f"tools: {byte_count(data['tools_bytes'])}")
    console.print(
        f"estimate ({estimate['model']}): {token_count(estimate['tokens'])} "
        f"(raw {count(estimate['raw_tokens'])}, {estimate['strategy']}, {estimate['confidence']}, "
        f"tokenizer {estimate['tokenizer']})"
    )
    console.print(
        f"window: context {count(window['context_size'])} (source: {window['source']}), "
        f"soft threshold {count(window['soft_threshold'])}, hard limit "
        f"{count(window['hard_limit'])} (safety margin {count(window['safety_margin'])}), "
        f"max output {count(window['max_output'])}"
    )


def run(args: argparse.Namespace) -> int:
    """Print the context report of the project at ``args.path`` (default: ``--project``)."""
    keep_compiled_templates()
    raw = args.path if getattr(args, "path", None) else getattr(args, "project", ".")
    root = project_folder(raw, "context")
    if root is None:
        return 2
    try:
        request = SessionRequest(
            root,
            # As the app loads it: a broken file is an error.
            load_config(root, os.environ, trust_project=getattr(args, "trust_project", False)),
            config_dir=paths.config_dir(),
            env=os.environ,
            model=getattr(args, "model", None),
            estimator=make_estimator(),
        )
        report = build_report(request)
    except ConfigError as exc:
        return refuse(f"configuration error: {exc}", "context")
    except ValueError as exc:
        return refuse(str(exc), "context")
    for warning in report.warnings:
        print(printable(f"warning: {warning}"), file=sys.stderr)
    if args.json:
        print(json.dumps(report.data, indent=2))
    else:
        _print_tables(report)
    return 0
