"""Reading a previous summary back, so a summary of a summary keeps what the last one kept.

The bullets of an earlier eight-section summary become items again, in their sections, with the
rank the same fact would get if it were new (its kind is read from its words, its speaker from
the ``User:``/``Assistant:`` prefix). The summary's own scaffolding is never a fact: the offline
note line, "None recorded.", the history-archive note, the "left out to fit the cap" lines
(their counts are carried into the next note instead) and stale "Unanswered" notes (re-derived
from the transcript). Filler bullets an older summarizer let in are dropped.
"""

from __future__ import annotations

import re

from steiner_tui.providers.offline.facts import (
    ASSISTANT_SECTIONS,
    COMMAND_LINE,
    DONE,
    NONE_RECORDED,
    PREFS,
    STATE,
    TASK,
    USER_SECTIONS,
    Facts,
    command_rank,
)
from steiner_tui.providers.offline.filelines import FILE_LINE, GROUP_LINE
from steiner_tui.providers.offline.filler import is_filler
from steiner_tui.providers.offline.markers import (
    HISTORY_NOTE_MARKER,
    LEFT_OUT_MARKER,
    SUMMARY_NOTE,
)
from steiner_tui.providers.offline.patterns import classify_sentence

__all__ = ["ORIGINAL", "UNANSWERED", "absorb_summary"]

ORIGINAL = "Original request: "
UNANSWERED = "Unanswered: "


_HEADING = re.compile(r"^##\s*(\d)\.")


_BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


_COUNT = re.compile(r"\d+")


def _rank(section: int, bullet: str) -> int:
    """The rank a carried bullet gets back: the rank the same fact would get when new."""
    if section == TASK:
        return 6 if bullet.startswith(ORIGINAL) else 3
    command = COMMAND_LINE.match(bullet)
    if command:
        code = command.group(2)
        return command_rank(bullet.endswith("(failed)") or (code is not None and code != "0"))
    by_user = section == PREFS or bullet.startswith("User: ")
    text = bullet.removeprefix("User: ").removeprefix("Assistant: ")
    kind = classify_sentence(text, by_user=by_user)
    table = USER_SECTIONS if by_user else ASSISTANT_SECTIONS
    if kind in table:
        return table[kind][1]
    if section == DONE:
        return 1
    return 5 if by_user else 4


def _absorb_files(facts: Facts, bullet: str, order: int) -> bool:
    group = GROUP_LINE.match(bullet)
    single = FILE_LINE.match(bullet)
    if group:
        paths = [group.group(1) + name for name in re.findall(r"`([^`]+)`", group.group(3))]
        verbs_text = group.group(2)
    elif single:
        paths, verbs_text = [single.group(1)], single.group(2) or "mentioned"
    else:
        return False
    for path in paths:
        for verb in (v.strip() for v in verbs_text.split(",")):
            facts.file(path, verb, order, by_user=True)
    return True


def absorb_summary(facts: Facts, text: str, order: int) -> int:
    """Read a previous summary's bullets into ``facts``; returns the next free position."""
    section = -1
    for raw in text.splitlines():
        line = raw.strip()
        heading = _HEADING.match(line)
        if heading:
            section = int(heading.group(1)) - 1
            continue
        if line.startswith("## "):
            section = -1  # another section (the engine's artifact ledger): not a summary's
            continue
        bullet = _BULLET.sub("", line)
        if not 0 <= section < 8 or not bullet or bullet.startswith("#"):
            continue
        if bullet.startswith(LEFT_OUT_MARKER):
            count = _COUNT.search(bullet.removeprefix(LEFT_OUT_MARKER))
            facts.left_out[section] += int(count.group()) if count else 0
            continue
        if bullet in (NONE_RECORDED, SUMMARY_NOTE) or bullet.startswith(
            (HISTORY_NOTE_MARKER, UNANSWERED)
        ):
            continue
        order += 1
        if section == STATE and _absorb_files(facts, bullet, order):
            continue
        if is_filler(bullet.removeprefix("User: ").removeprefix("Assistant: ")):
            continue
        if section == TASK and bullet.startswith(ORIGINAL):
            facts.has_original = True
        facts.add(section, bullet, _rank(section, bullet), order)
    return order
