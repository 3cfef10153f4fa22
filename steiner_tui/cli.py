"""Command-line entry point: argument parsing only.

Each sub-command lives in its own module under ``steiner_tui.commands`` and is imported only
when chosen, so ``steiner-tui --version`` never pays for Textual or the SDKs.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from steiner_tui import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="steiner-tui",
        description="A workbench for LLM coding sessions that shows and steers their context.",
    )
    parser.add_argument("--version", action="version", version=f"steiner-tui {__version__}")
    parser.add_argument("--project", default=".", help="project root (default: current folder)")
    sub = parser.add_subparsers(dest="command")

    ctx = sub.add_parser("context", help="print the per-source report of a dry-run request")
    ctx.add_argument("path", nargs="?", default=None, help="project directory (default: .)")
    ctx.add_argument("--json", action="store_true", help="print one JSON object")

    ex = sub.add_parser("exec", help="run one task to completion and print the answer")
    ex.add_argument("prompt", help="the task")
    ex.add_argument("--skill", action="append", help="a skill to include (repeatable)")
    ex.add_argument("--model", default=None, help="model reference, e.g. anthropic/claude-...")
    ex.add_argument("--mode", choices=("build", "plan"), default="build")
    ex.add_argument("--yes", action="store_true", help="allow write, edit and bash without asking")
    ex.add_argument("--events", default=None, help="append every engine event to this JSONL file")

    one = sub.add_parser("oneshot", help="run a task through plan, build and verify phases")
    one.add_argument("task", help="the task")
    one.add_argument("--phases", default="", help="comma-separated subset of plan,build,verify")
    one.add_argument("--model", default=None, help="model reference")
    one.add_argument("--yes", action="store_true", help="allow write, edit and bash without asking")
    return parser


_COMMANDS = {
    "context": "steiner_tui.commands.context",
    "exec": "steiner_tui.commands.exec",
    "oneshot": "steiner_tui.commands.oneshot",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "app"
    module_name = _COMMANDS.get(command)
    if module_name is None:
        parser.error(f"unknown command {command!r}")
    module = importlib.import_module(module_name)
    result: int = module.run(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
