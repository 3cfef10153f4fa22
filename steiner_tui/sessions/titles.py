"""A session's title: the first line the user typed in its first message.

The sessions list and the resume picker show it. A paste too long for the prompt is kept in
files and the prompt holds one line naming them (``paste_line``, written here so that a title
can tell it from the user's own words): the title skips such lines, and a message that holds
nothing else is titled ``pasted text, <size>``. A title stored before that (a ``meta.json``
whose title is a cut paste line) reads the same way (``readable_title``).
"""

from __future__ import annotations

import re

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.messages import Message, is_real_user_message
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import unescape_user_text

__all__ = [
    "TITLE_LENGTH",
    "message_title",
    "paste_line",
    "readable_title",
    "title_of",
    "user_text",
]

TITLE_LENGTH = 80
"""The longest title kept, in characters."""

_PASTE_LINE = re.compile(
    r"\(pasted (\d[\d,]*) B, kept in .*?: read (?:it|them in order) from there\)"
)
"""A whole paste line (``paste_line``); its group is the size's digits."""
_PASTE_START = re.compile(r"\(pasted (\d[\d,]*) B, kept in ")
"""How a paste line starts: enough to know a stored title cut from one."""


def paste_line(size: str, where: str, several: bool) -> str:
    """The line the prompt holds for a paste of ``size`` (``31,457,280 B``) kept in ``where``
    (one file, or ``several`` parts to read in order)."""
    them = "them in order" if several else "it"
    return f"(pasted {size}, kept in {where}: read {them} from there)"


def _pasted(total: int) -> str:
    return f"pasted text, {total:,} B"


def title_of(lineage: ConversationLineage) -> str:
    """The title of the first real user message that gives one (see the module docstring)."""
    for generation in lineage.generations:
        for message in generation.messages:
            title = message_title(message)
            if title:
                return title
    return ""


def message_title(message: Message) -> str:
    """The title ``message`` gives a session: the first line of the user's own words (paste
    lines left out), ``pasted text, <size>`` when the user typed nothing else; "" when it is
    not a real user message or holds no text of the user's."""
    if not is_real_user_message(message):
        return ""
    text = user_text(message)
    sizes = [int(m.group(1).replace(",", "")) for m in _PASTE_LINE.finditer(text)]
    for line in _PASTE_LINE.sub("", text).splitlines():
        if line.strip():
            return line.strip()[:TITLE_LENGTH]
    return _pasted(sum(sizes)) if sizes else ""


def readable_title(title: str) -> str:
    """A stored title as ``message_title`` gives it now (a cut paste line: ``pasted text``)."""
    found = _PASTE_START.match(title)
    return _pasted(int(found.group(1).replace(",", ""))) if found else title


def user_text(message: Message) -> str:
    """What the user typed: the content after the driver's part, unescaped."""
    return unescape_user_text(split_skill_blocks(message.content)[2])
