"""Sub-command implementations, one module per command (``cli`` imports the one chosen), and
``refuse``: how every command says why it stops."""

from __future__ import annotations

import sys

from steiner_tui.plain import printable

__all__ = ["refuse"]


def refuse(message: str, command: str = "") -> int:
    """Say on stderr why ``steiner-tui [command]`` stops (``message`` as text, ``printable``);
    returns the exit status, 2."""
    print(printable(f"steiner-tui{' ' + command if command else ''}: {message}"), file=sys.stderr)
    return 2
