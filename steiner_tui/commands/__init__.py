"""Sub-command implementations, one module per command (``cli`` imports the one chosen),
``refuse``: how every command says why it stops, and ``not_terminals``: whether a screen can be
opened at all."""

from __future__ import annotations

import sys

from steiner_tui.plain import printable

__all__ = ["not_terminals", "refuse"]


def refuse(message: str, command: str = "") -> int:
    """Say on stderr why ``steiner-tui [command]`` stops (``message`` as text, ``printable``);
    returns the exit status, 2."""
    print(printable(f"steiner-tui{' ' + command if command else ''}: {message}"), file=sys.stderr)
    return 2


def not_terminals() -> str:
    """Which standard streams are not a terminal, as said before "not one" ("stdin is",
    "stdout is", "stdin and stdout are"; "": both are). A Textual app needs both: with output
    to a file it draws its screens into the file, with input from a pipe it waits for keys
    that never come."""
    names = [
        name
        for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout))
        if stream is None or not stream.isatty()
    ]
    return " and ".join(names) + (" are" if len(names) > 1 else " is") if names else ""
