"""How a message mentions a project path after ``@``: written by the prompt's completion, read
back by the offline model.

A path goes in as it is (``@src/app.py``); one with a space in it goes in quoted, as Claude Code
writes it (``@"docs/my notes.md"``), so the mention ends where the path does. Textual-free, so
the providers read mentions the way the workbench writes them.
"""

from __future__ import annotations

import re

__all__ = ["QUOTED_MENTION", "written"]

QUOTED_MENTION = re.compile(r'(?:^|(?<=\s))@"([^"\n]+)"')
"""A quoted mention at the start of a word; its group is the path."""


def written(path: str) -> str:
    """``path`` as a mention writes it after the ``@``."""
    return f'"{path}"' if any(c.isspace() for c in path) else path
