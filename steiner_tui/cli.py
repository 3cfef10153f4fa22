"""Command-line entry point: argument parsing only.

Each sub-command lives in its own module under ``steiner_tui.commands`` and is imported only
when chosen, so ``steiner-tui --version`` never pays for Textual or the SDKs.

``steiner-tui PATH`` opens the workbench on ``PATH``, like ``steiner-tui --project PATH``:
argparse cannot put an optional positional before sub-commands, so ``main`` takes a first
positional argument that names no command as the project folder before parsing.

The chosen command's module is imported with the garbage collector paused (``import_command``).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from urllib.parse import urlsplit

from steiner_tui import __version__
from steiner_tui.gc_pause import gc_paused
from steiner_tui.process_guard import guard_process

__all__ = ["build_parser", "import_command", "main", "parse_arguments", "split_project_path"]


_TRUST_HELP = (
    "trust the project's .steiner/config.toml for this run (its providers, permissions and "
    "keymap apply; see docs/security.md)"
)


def _trust_option(command: argparse.ArgumentParser) -> None:
    # SUPPRESS: absent after the command, the flag given before it still counts.
    command.add_argument(
        "--trust-project", action="store_true", default=argparse.SUPPRESS, help=_TRUST_HELP
    )


def _resume_option(command: argparse.ArgumentParser, dest: str, what: str) -> None:
    command.add_argument(
        "--resume",
        dest=dest,
        nargs="?",
        const="latest",
        default=None,
        metavar="ID",
        help=f"{what} (default: the project's most recent one)",
    )
    command.add_argument(  # Claude Code's name for it
        "-c",
        "--continue",
        dest=dest,
        action="store_const",
        const="latest",
        help="resume the project's most recent session (--resume with no ID)",
    )


def _port(value: str) -> int:
    """A TCP port from the command line (0: any free one)."""
    if not value.isdecimal() or int(value) > 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port (0 to 65535)")
    return int(value)


def _upstream(value: str) -> str:
    """An API base URL from the command line: http or https, with a host."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an http(s) URL (e.g. http://127.0.0.1:8080)"
        )
    return value


def _run_options(command: argparse.ArgumentParser, model_help: str) -> None:
    """The options of a command that runs a task (``exec``, ``oneshot``)."""
    command.add_argument("--model", default=None, help=model_help)
    command.add_argument(
        "--yes", action="store_true", help="allow write, edit and bash without asking"
    )
    _trust_option(command)
    command.add_argument(
        "--compaction",
        choices=("auto", "ask", "off"),
        default=None,
        help="compact by itself, ask first (refused: nobody can answer), or never by itself",
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser."""
    parser = argparse.ArgumentParser(
        prog="steiner-tui",
        usage=(  # two lines, as argparse wraps a usage it writes (aligned after "usage: ")
            "%(prog)s [-h] [--version] [--project PATH | PATH] [--resume [ID] | -c]\n"
            "                   [--model REF] [--trust-project] [COMMAND] ..."
        ),
        description="A workbench for LLM coding sessions that shows and steers their context.",
        epilog="With no command: open the workbench on the project (PATH or --project).",
    )
    parser.add_argument("--version", action="version", version=f"steiner-tui {__version__}")
    parser.add_argument("--project", default=".", help="project root (default: current folder)")
    _resume_option(parser, "resume", "resume a saved session")
    parser.add_argument(
        "--model",
        dest="app_model",
        default=None,
        metavar="REF",
        help="the workbench's model, e.g. offline or local/qwen2.5-coder:7b (default: the "
        "configured one; a resumed session's last)",
    )
    parser.add_argument("--trust-project", action="store_true", help=_TRUST_HELP)
    # Without ``prog`` each command's usage and errors would begin with the usage above.
    sub = parser.add_subparsers(dest="command", prog="steiner-tui")

    ctx = sub.add_parser("context", help="print what the next request sends, per source")
    ctx.add_argument("path", nargs="?", default=None, help="project directory (default: .)")
    ctx.add_argument("--json", action="store_true", help="print one JSON object")
    ctx.add_argument("--model", default=None, help="model reference (default: the configured)")
    _trust_option(ctx)

    ex = sub.add_parser("exec", help="run one task to completion and print the answer")
    _resume_option(ex, "resume_session", "continue a saved session")
    ex.add_argument(
        "prompt", nargs="?", default=None, help="the task (omitted or -: read from stdin)"
    )
    ex.add_argument("--skill", action="append", help="a skill to include (repeatable)")
    ex.add_argument("--mode", choices=("build", "plan"), default="build")
    ex.add_argument("--events", default=None, help="append every engine event to this JSONL file")
    ex.add_argument("--no-delegate", action="store_true", help="run without sub-agents")
    _run_options(ex, "model reference, e.g. anthropic/claude-...")

    one = sub.add_parser("oneshot", help="run a task through plan, build and verify phases")
    one.add_argument("task", help="the task")
    one.add_argument("--phases", default="", help="comma-separated subset of plan,build,verify")
    _run_options(one, "model reference")

    shots = sub.add_parser("screenshots", help="regenerate the SVG and PNG screenshots")
    shots.add_argument("--out", default="screenshots", help="output folder (default: screenshots)")

    cap = sub.add_parser("capture", help="record an agent's requests through a local proxy")
    cap.add_argument("--port", type=_port, default=8765, help="port on 127.0.0.1 (default 8765)")
    cap.add_argument(
        "--upstream", type=_upstream, default=None, help="API base URL (default: the real APIs)"
    )
    cap_sub = cap.add_subparsers(dest="capture_command")
    cap_sub.add_parser("list", help="list captures, newest first")
    cap_show = cap_sub.add_parser("show", help="print a capture's requests")
    cap_show.add_argument("id", help="capture id")
    cap_show.add_argument("--json", action="store_true", help='print {"requests": [...]}')
    cap_open = cap_sub.add_parser("open", help="open a capture or an import in the workbench")
    cap_open.add_argument("id", help="capture or imported session id")

    imp = sub.add_parser("import", help="read Claude Code, Codex and Gemini CLI transcripts")
    imp.add_argument(
        "path", nargs="?", default=None, help="file or folder (default: the agents' folders)"
    )
    imp.add_argument("--json", action="store_true", help='print {"sessions": [...]}')

    watch = sub.add_parser("watch", help="follow a running Claude Code or Codex session")
    watch.add_argument(
        "path",
        nargs="?",
        default=None,
        help="transcript (default: the newest of this project in ~/.claude or ~/.codex)",
    )
    watch.add_argument("--agent", choices=("claude", "codex"), default=None, help="whose")
    watch.add_argument(
        "--json", action="store_true", help="print one JSON line per new request until Ctrl-C"
    )

    ses = sub.add_parser("sessions", help="list, delete, evict or fork saved sessions")
    ses_sub = ses.add_subparsers(dest="sessions_command")
    ses_sub.add_parser("list", help="list saved sessions, most recent first")
    ses_del = ses_sub.add_parser("delete", help="delete a session's folder")
    ses_del.add_argument("id", help="session id")
    ses_del.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    ses_evict = ses_sub.add_parser("evict", help="keep the newest N sessions, delete the rest")
    ses_evict.add_argument("--keep", type=int, default=None, help="how many to keep")
    ses_evict.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    ses_fork = ses_sub.add_parser("fork", help="copy a session into a new id")
    ses_fork.add_argument("id", help="session id")
    ses_at = ses_fork.add_mutually_exclusive_group()
    ses_at.add_argument("--generation", type=int, default=None, help="last generation kept")
    ses_at.add_argument(
        "--message", type=int, default=None, help="messages of the active generation kept"
    )
    return parser


_COMMANDS = {
    "app": "steiner_tui.commands.app",
    "capture": "steiner_tui.commands.capture",
    "import": "steiner_tui.commands.import_transcripts",
    "context": "steiner_tui.commands.context",
    "exec": "steiner_tui.commands.exec",
    "oneshot": "steiner_tui.commands.oneshot",
    "sessions": "steiner_tui.commands.sessions",
    "screenshots": "steiner_tui.commands.screenshots",
    "watch": "steiner_tui.commands.watch",
}


_SUBCOMMANDS = frozenset(_COMMANDS) - {"app"}
_TAKES_VALUE = ("--project", "--resume", "--model")
"""Top-level options whose next argument is their value (``--resume``'s is optional)."""


def split_project_path(argv: Sequence[str]) -> list[str]:
    """``argv`` with a leading positional project path turned into ``--project PATH``.

    Only a positional that comes before any command and names none is a path: ``steiner-tui
    ~/src/app``, ``steiner-tui --resume abc ~/src/app``. Everything after a command is its own.
    """
    args = list(argv)
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return args
        if arg.startswith("-"):
            if arg in _TAKES_VALUE and "=" not in arg:
                following = args[index + 1] if index + 1 < len(args) else ""
                takes = arg != "--resume" or not (
                    following.startswith("-") or following in _SUBCOMMANDS
                )
                index += 2 if takes else 1
            else:
                index += 1
            continue
        if arg in _SUBCOMMANDS:
            return args
        return [*args[:index], "--project", arg, *args[index + 1 :]]
    return args


def import_command(module_name: str) -> ModuleType:
    """Import a command's module with the garbage collector paused, then freeze what it made.

    Speed: importing the workbench makes some 58,000 objects that live as long as the program;
    collecting meanwhile frees nothing and walks them over and over (the first frame took 7-20 %
    longer, ``benchmarks/bench_startup.py``). ``gc.freeze`` keeps them out of later full
    collections too.
    """
    try:
        with gc_paused():
            return importlib.import_module(module_name)
    finally:
        gc.freeze()


_TAKES_RESUME = frozenset({"exec"})
"""Commands with ``--resume`` and ``-c`` of their own (``resume_session``)."""
_TAKES_MODEL = frozenset({"exec", "oneshot", "context"})
"""Commands with ``--model`` of their own."""


def parse_arguments(argv: Sequence[str]) -> argparse.Namespace:
    """``argv`` parsed, the project path made ``--project``.

    The workbench's --resume, -c and --model written before a command count for a command
    that has them, as if written after it (where one written after wins), and are refused by
    one that has not: ``--resume ID exec "…"`` started a new session, exec never reading it.
    """
    parser = build_parser()
    args = parser.parse_args(split_project_path(argv))
    command = args.command
    if command is None:
        return args
    if args.resume is not None:
        if command not in _TAKES_RESUME:
            parser.error(f"--resume and -c are not options of {command}")
        if args.resume_session is None:
            args.resume_session = args.resume
    if args.app_model is not None:
        if command not in _TAKES_MODEL:
            parser.error(f"--model is not an option of {command}")
        if args.model is None:
            args.model = args.app_model
    return args


def main(argv: Sequence[str] | None = None) -> int:
    guard_process()  # before any key is read: commands the model runs cannot read our memory
    args = parse_arguments(sys.argv[1:] if argv is None else argv)
    module_name = _COMMANDS[args.command or "app"]  # argparse accepts only these commands
    module = import_command(module_name)
    try:
        result: int = module.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped reading (``| head``): what is left to print has nowhere to go.
        # stdout is pointed at /dev/null so the flush at exit cannot raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
