"""The offline summary's items: sections, ranks and the collector that merges equal facts.

Every fact becomes an ``Item``: its section, its bullet text, a rank (how long it survives a
tight cap) and its transcript position. The ranks are the summary's priorities under the cap:

- 6: the original request;
- 5: what the user decided, left open, reported broken, asked of the work or of the assistant
  (decisions, TODOs, problems, verification, preferences), and the unanswered last request;
- 4: the assistant's decisions, problems and open work, tool errors, failed commands, stated
  facts (a number in a user sentence);
- 3: later requests, commands that ran, files written or edited;
- 2: files read or named by the user;
- 1: searches, completed-work notes, files named by the assistant.

Items of rank 4 and up are never condensed (``ROUTINE`` and below may be). The extractor
(``extract.py``) and the carry-over of a previous summary (``carry.py``) both fill a ``Facts``.

A statement made again and again with other numbers ("Done with turn 2370", "... turn 2371")
is one bullet, the latest, saying how many more there were (``fold_alike``): a long session of
routine turns would otherwise fill a section with one line shape, which no reader wants and the
engine rejects as a degenerate summary.
"""

from __future__ import annotations

import re

import msgspec

from steiner_tui.providers.offline.patterns import Kind
from steiner_tui.providers.offline.textutil import norm_key

__all__ = [
    "ALIKE_AT",
    "ASSISTANT_SECTIONS",
    "COMMAND_LINE",
    "DONE",
    "FINDINGS",
    "NONE_RECORDED",
    "PREFS",
    "PROBLEMS",
    "REMAINING",
    "ROUTINE",
    "STATE",
    "TASK",
    "USER_SECTIONS",
    "VERIFY",
    "Facts",
    "Item",
    "command_rank",
    "file_rank",
]

TASK, STATE, DONE, FINDINGS, PROBLEMS, REMAINING, VERIFY, PREFS = range(8)
NONE_RECORDED = "None recorded."
ROUTINE = 3
"""Items of this rank or lower are routine: condensed before anything is dropped."""

USER_SECTIONS: dict[Kind, tuple[int, int]] = {
    Kind.PREFERENCE: (PREFS, 5),
    Kind.DECISION: (FINDINGS, 5),
    Kind.PROBLEM: (PROBLEMS, 5),
    Kind.TODO: (REMAINING, 5),
    Kind.VERIFICATION: (VERIFY, 5),
    Kind.FACT: (FINDINGS, 4),
}
"""Section and rank of each kind of user sentence."""
ASSISTANT_SECTIONS: dict[Kind, tuple[int, int]] = {
    Kind.DECISION: (FINDINGS, 4),
    Kind.PROBLEM: (PROBLEMS, 4),
    Kind.TODO: (REMAINING, 4),
    Kind.VERIFICATION: (VERIFY, 3),
    Kind.FACT: (FINDINGS, 4),
    Kind.DONE: (DONE, 1),
}
"""Section and rank of each kind of assistant sentence."""


COMMAND_LINE = re.compile(r"^`([^`]+)`(?: \((?:exit (-?\d+)|failed)\))?$")
"""A command bullet: the command, then ``(exit N)`` or ``(failed)`` when it said how it
    ended."""


_VERB_ORDER = ("created", "written", "edited", "read", "mentioned")
_SPEAKERS = ("User: ", "Assistant: ")


class Item(msgspec.Struct, frozen=True):
    """One bullet of the summary."""

    section: int
    """Index into ``SECTION_HEADINGS``."""
    text: str
    rank: int
    """1 (dropped first) to 6 (the original request); see the module docstring."""
    order: int
    """Transcript position; carried-over bullets are negative (older than anything new)."""


ALIKE_AT = 3
"""Bullets of a section equal but for their numbers that are folded into one: two may be two
different things ("fix issue 12", "fix issue 13"), three or more are a routine."""
_NUMBER = re.compile(r"(?<![\w/.-])\d+(?:[,.]\d+)*(?![\w/-])")
"""A number standing on its own ("turn 2370", "12 passed"), not a part of a name ("helper_12",
"module_12.py", "v2"): names that differ are different things."""
_ALIKE = re.compile(r" \(and ([\d,]+) more alike but for their numbers\)$")


def _alike_key(item: Item) -> str:
    """What bullets equal but for their numbers share (a folded bullet's count aside)."""
    return f"{item.section}:{_NUMBER.sub('#', norm_key(_ALIKE.sub('', item.text)))}"


def _folded(text: str) -> int:
    """How many bullets ``text`` stands for (itself and those a note says were folded in)."""
    match = _ALIKE.search(text)
    return 1 + (int(match.group(1).replace(",", "")) if match else 0)


def fold_alike(items: list[Item]) -> list[Item]:
    """``items`` with each set of ``ALIKE_AT`` or more bullets of a section that are equal but
    for their numbers (``_NUMBER``) folded into its latest one, which says how many more there
    were (file lines and commands stay apart: a command's number is often what it does)."""
    groups: dict[str, list[Item]] = {}
    for item in items:
        if item.section != STATE and not COMMAND_LINE.match(item.text):
            groups.setdefault(_alike_key(item), []).append(item)
    out = [item for item in items if item.section == STATE or COMMAND_LINE.match(item.text)]
    for group in groups.values():
        count = sum(_folded(item.text) for item in group)
        if len(group) == 1 or count < ALIKE_AT:
            out.extend(group)
            continue
        latest = max(group, key=lambda item: item.order)
        text = f"{_ALIKE.sub('', latest.text)} (and {count - 1:,} more alike but for their numbers)"
        out.append(Item(latest.section, text, max(i.rank for i in group), latest.order))
    return out


def command_rank(failed: bool) -> int:
    """A command line's rank: a failed command is worth more than one that worked."""
    return 4 if failed else 3


def file_rank(verbs: list[str]) -> int:
    """A file line's rank from its verbs: changed files outrank read and mentioned ones."""
    if {"created", "written", "edited"} & set(verbs):
        return 3
    return 2 if "read" in verbs else 1


def _key(section: int, text: str) -> str:
    """Equal facts share a key: a command line by its command (the latest outcome wins),
    anything else by its words whoever said them."""
    command = COMMAND_LINE.match(text)
    if command:
        return f"{section}:{command.group(1)}"
    for speaker in _SPEAKERS:
        text = text.removeprefix(speaker)
    return f"{section}:{norm_key(text)}"


class Facts:
    """Mutable collector: merges items by key and files by path, counts what a cap left out."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.files: dict[str, tuple[list[str], int, int]] = {}
        self.user_files: set[str] = set()
        self.has_original = False
        self.left_out = [0] * 8
        """Entries earlier summaries left out, per section (carried into the next note)."""

    def add(self, section: int, text: str, rank: int, order: int) -> None:
        """Add a bullet; an equal one merges (the higher rank's wording, the later position)."""
        key = _key(section, text)
        old = self.items.pop(key, None)
        if old is not None and old.rank > rank and not COMMAND_LINE.match(text):
            text = old.text  # a command's latest outcome wins, whatever the ranks
        self.items[key] = Item(section, text, max(rank, old.rank if old else 0), order)

    def file(self, path: str, verb: str, order: int, *, by_user: bool = False) -> None:
        """Record that ``path`` was read, written, edited or mentioned."""
        verbs, _, _ = self.files.pop(path, ([], 0, 0))
        if verb not in verbs:
            verbs.append(verb)
        if by_user:
            self.user_files.add(path)
        rank = max(file_rank(verbs), 2 if path in self.user_files else 1)
        self.files[path] = (verbs, rank, order)

    def result(self) -> list[Item]:
        """Every item, file lines included, sorted by section then transcript position."""
        out = list(self.items.values())
        for path, (verbs, rank, order) in self.files.items():
            kept = [v for v in _VERB_ORDER if v in verbs and (v != "mentioned" or len(verbs) == 1)]
            kept += [v for v in verbs if v not in _VERB_ORDER]
            out.append(Item(STATE, f"`{path}` ({', '.join(kept)})", rank, order))
        return sorted(fold_alike(out), key=lambda item: (item.section, item.order))
