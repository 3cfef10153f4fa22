"""Completing slash commands in the prompt: command names, then their arguments.

Pure data, no Textual: ``complete`` takes what the prompt holds and what can be named (the
configured models, the skills, the saved sessions, the prompts sent) and returns the candidates
the dropdown under the prompt lists, best first. A candidate is the whole new prompt text, so
accepting one is a single replacement: ``/history``'s candidates are the prompts themselves
(shell's Ctrl+R, Claude Code's history search), newest first, each holding every word typed.
Only a one-line prompt that starts with ``/`` (not ``//``, a literal slash) is completed.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from steiner_tui.app.slash import SLASH_COMMANDS

__all__ = ["Completion", "CompletionSources", "complete"]

MAX_CANDIDATES = 50


class Completion(msgspec.Struct, frozen=True):
    """One candidate: the prompt text it makes, how it is listed and what it is."""

    text: str
    label: str
    help: str = ""


class CompletionSources(msgspec.Struct, frozen=True):
    """What arguments can name: ``(name, help)`` pairs per kind."""

    models: Sequence[tuple[str, str]] = ()
    skills: Sequence[tuple[str, str]] = ()
    sessions: Sequence[tuple[str, str]] = msgspec.field(default_factory=tuple)
    prompts: Sequence[str] = ()
    """The prompts sent (the project's, then the session's), oldest first."""


def _ranked(prefix: str, names: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Names starting with ``prefix`` first, then names containing it (case-insensitive)."""
    wanted = prefix.lower()
    starts = [(n, h) for n, h in names if n.lower().startswith(wanted)]
    inside = [(n, h) for n, h in names if wanted in n.lower() and (n, h) not in starts]
    return [*starts, *inside]


def complete(text: str, sources: CompletionSources) -> list[Completion]:
    """The candidates for ``text`` (empty: nothing to complete)."""
    if not text.startswith("/") or text.startswith("//") or "\n" in text:
        return []
    name, space, argument = text[1:].partition(" ")
    if not space:
        commands = [(n, description) for n, (_, description) in SLASH_COMMANDS.items()]
        found = _ranked(name, commands)
        return [
            Completion(f"/{n} " if SLASH_COMMANDS[n][0] else f"/{n}", f"/{n}", h)
            for n, h in found
            if f"/{n}" != text or SLASH_COMMANDS[n][0]
        ][:MAX_CANDIDATES]
    name = name.lower()
    if name == "history":
        return _sent(argument, sources.prompts)
    names = {
        "model": sources.models,
        "skills": sources.skills,
        "sessions": sources.sessions,
    }.get(name, ())
    argument = argument.lstrip()
    return [Completion(f"/{name} {n}", n, h) for n, h in _ranked(argument, names) if n != argument][
        :MAX_CANDIDATES
    ]


LABEL_CHARS = 100
"""A prompt's first line is listed up to this many characters."""


def _sent(words: str, prompts: Sequence[str]) -> list[Completion]:
    """The prompts holding every one of ``words`` (case-insensitive), newest first."""
    wanted = words.lower().split()
    found: list[Completion] = []
    for prompt in reversed(prompts):
        lowered = prompt.lower()
        if all(word in lowered for word in wanted):
            first, *rest = prompt.strip().splitlines() or [""]
            label = first if len(first) <= LABEL_CHARS else first[: LABEL_CHARS - 1] + "…"
            found.append(Completion(prompt, label, f"+{len(rest)} lines" if rest else ""))
            if len(found) == MAX_CANDIDATES:
                break
    return found
