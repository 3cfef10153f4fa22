"""Slash commands typed in the prompt: the catalog and the parser.

A prompt starting with ``/`` is a command, not a message; ``//`` sends a literal ``/`` (for a
message that starts with a path). Unknown commands are an error the screen shows as a notice.
"""

from __future__ import annotations

import difflib
from types import MappingProxyType
from typing import Final

import msgspec

from steiner_tui.errors import SteinerError

__all__ = ["ALIASES", "SLASH_COMMANDS", "SlashCommand", "UnknownSlashCommand", "parse_slash"]

SLASH_COMMANDS: Final = MappingProxyType(
    {
        "compact": ("[focus]", "summarize the conversation now, optionally steering the summary"),
        "compaction": (
            "[auto|ask|off] [save]",
            "set the compaction mode; save writes it, once confirmed",
        ),
        "pin": ("[N]", "pin message #N: every compaction keeps it verbatim (no N: list them)"),
        "unpin": ("N", "unpin message #N"),
        "pins": ("", "list the pinned messages"),
        "whatif": (
            "[tokens] [save]",
            "simulate another soft threshold; save writes it, once confirmed",
        ),
        "context": ("", "expand the context-budget panel (Enter there opens the inspector)"),
        "lineage": ("", "browse compaction generations"),
        "skills": ("[name]", "toggle skill NAME; alone, focus the skill sidebar"),
        "model": ("[name]", "switch to a configured model; alone, show the model and limits"),
        "sessions": ("[id]", "resume session ID; alone, list the saved sessions"),
        "history": (
            "[words]",
            "find a prompt sent in this project; Enter or Tab puts it in the prompt",
        ),
        "clear": ("", "start a new conversation (not while a run is generating)"),
        "help": ("", "show keys and commands"),
        "quit": ("", "save the session and quit, as Ctrl+Q does"),
    }
)
"""Command name -> (argument synopsis, description)."""

ALIASES: Final = MappingProxyType(
    {
        "exit": "quit",
        "resume": "sessions",
        "new": "clear",
        "reset": "clear",
        "cost": "context",
        "tokens": "context",
        "status": "model",
    }
)
"""Other agents' names for a command, answered as it (Claude Code's ``/resume``, ``/cost`` and
``/status``, Codex's ``/new``, aider's ``/tokens`` and ``/reset``, everyone's ``/exit``): not
listed, but typing one completes to the command it is here."""


class SlashCommand(msgspec.Struct, frozen=True):
    """A parsed command: its name and the rest of the line."""

    name: str
    argument: str = ""


class UnknownSlashCommand(SteinerError, ValueError):
    """The prompt named a command that does not exist."""

    def __init__(self, name: str) -> None:
        close = difflib.get_close_matches(name, [*SLASH_COMMANDS, *ALIASES], n=1, cutoff=0.75)
        if close:  # a typo: the command meant, and where the rest are
            meant = ALIASES.get(close[0], close[0])
            other = f" (/{close[0]})" if close[0] != meant else ""
            hint = f"did you mean /{meant}{other}? (/help lists every command; // sends a /)"
        else:
            known = ", ".join(f"/{n}" for n in SLASH_COMMANDS)
            hint = f"try {known} (start with // to send a /)"
        super().__init__(f"unknown command /{name} — {hint}")
        self.name = name


def parse_slash(text: str) -> SlashCommand | str:
    """Parse a submitted prompt.

    Returns:
        A ``SlashCommand``, or the text to send as a message (``//x`` becomes ``/x``).

    Raises:
        UnknownSlashCommand: for ``/name`` that is not in ``SLASH_COMMANDS``.
    """
    stripped = text.strip()
    if not stripped.startswith("/"):
        return text
    if stripped.startswith("//"):
        return stripped[1:]
    name, _, argument = stripped[1:].partition(" ")
    name = name.strip().lower()
    name = ALIASES.get(name, name)
    if name not in SLASH_COMMANDS:
        raise UnknownSlashCommand(name)
    return SlashCommand(name, argument.strip())
