"""Completing the prompt: slash commands, their arguments, and ``@`` project paths.

Pure data, no Textual: ``complete`` takes what the prompt holds and what can be named (the
configured models, the skills, the saved sessions, the prompts sent, the project's files) and
returns the candidates the dropdown under the prompt lists, best first. A candidate is the whole
new prompt text, so accepting one is a single replacement: ``/history``'s candidates are the
prompts themselves (shell's Ctrl+R, Claude Code's history search), newest first, each holding
every word typed. A one-line prompt that starts with ``/`` (not ``//``, a literal slash) is
completed as a command; a word at the end of any prompt that starts with ``@`` (Claude Code's
file mention) as a path of the project, which the message then names as typed: the model reads
it with its tools, so what it costs shows where tool results do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from steiner_tui.app.slash import ALIASES, SLASH_COMMANDS
from steiner_tui.mentions import written

__all__ = ["Completion", "CompletionSources", "complete", "mention"]

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
    paths: Sequence[str] = ()
    """The project's files, relative POSIX paths (``@`` completes them)."""


def _ranked(prefix: str, names: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Names starting with ``prefix`` first, then names containing it (case-insensitive)."""
    wanted = prefix.lower()
    starts = [(n, h) for n, h in names if n.lower().startswith(wanted)]
    inside = [(n, h) for n, h in names if wanted in n.lower() and (n, h) not in starts]
    return [*starts, *inside]


def complete(text: str, sources: CompletionSources) -> list[Completion]:
    """The candidates for ``text`` (empty: nothing to complete)."""
    if (word := mention(text)) is not None:
        return _paths(text[: len(text) - len(word)], word, sources.paths)
    if not text.startswith("/") or text.startswith("//") or "\n" in text:
        return []
    name, space, argument = text[1:].partition(" ")
    if not space:
        commands = [(n, description) for n, (_, description) in SLASH_COMMANDS.items()]
        found = _ranked(name, commands)
        for alias, command in ALIASES.items():  # another agent's name: the command it is here
            if name and alias.startswith(name.lower()) and all(n != command for n, _ in found):
                found.append((command, f"{SLASH_COMMANDS[command][1]} (/{alias})"))
        return [
            Completion(f"/{n} " if SLASH_COMMANDS[n][0] else f"/{n}", f"/{n}", h)
            for n, h in found
            if f"/{n}" != text or SLASH_COMMANDS[n][0]
        ][:MAX_CANDIDATES]
    name = ALIASES.get(name.lower(), name.lower())
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


_MENTION = re.compile(r"(?:^|\s)@(\S*)\Z")
MENTION_CHARS = 1024
"""How far back from the prompt's end an ``@`` is looked for (a path is shorter): a long
prompt is not scanned on every key."""


def mention(text: str) -> str | None:
    """The path typed after an ``@`` that starts the prompt's last word, else None."""
    found = _MENTION.search(text[-MENTION_CHARS:])
    return found.group(1) if found else None


def _paths(head: str, word: str, paths: Sequence[str]) -> list[Completion]:
    """``paths`` for the ``@word`` after ``head``: those starting with ``word`` first, then
    those whose file name does, then those holding it (case-insensitive); each as
    ``mentions.written`` writes it (a typed opening quote is not part of what is looked for)."""
    typed = word.removeprefix('"')
    wanted = typed.lower()
    starts: list[str] = []
    named: list[str] = []
    inside: list[str] = []
    for path in paths:
        lowered = path.lower()
        if lowered.startswith(wanted):
            starts.append(path)
            if len(starts) == MAX_CANDIDATES:
                break
        elif wanted in lowered:
            (named if lowered.rpartition("/")[2].startswith(wanted) else inside).append(path)
    found = [*starts, *named, *inside][:MAX_CANDIDATES]
    others = [path for path in found if path != typed]
    if not others:  # only what was typed: nothing more to offer
        return []
    # A file named whole comes first while longer paths start with it (Enter, which takes the
    # first, must not turn "@app.py" into "@app.pyi"); a folder named whole lists what is in it.
    first = [typed] if typed in found and not typed.endswith("/") else []
    return [
        Completion(f"{head}{mention}{_after(mention)}", f"@{path}")
        for path in (*first, *others)
        for mention in (written(path),)
    ]


def _after(mention: str) -> str:
    """What follows a completed mention: nothing after a folder (its files are listed next),
    else a space (a quoted one is whole: completion stops at its space)."""
    return "" if mention.endswith("/") else " "
