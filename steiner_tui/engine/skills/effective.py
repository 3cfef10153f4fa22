"""Which skills are in force: fold the envelopes of a conversation's user messages in order.

For each leading envelope of each user message: drop any entry of that name, then append it when
it is an activation. Reactivation therefore moves a skill to the end, the latest text wins, and
deactivating a name that is not active does nothing. Messages are never rewritten; the state is
always derived from the conversation, so it survives resume and compaction unchanged. A fold can
go on from an earlier one (``start``) over the messages added since.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.skills.envelopes import SkillBlock, split_skill_blocks

__all__ = [
    "SkillFold",
    "effective_skills",
    "effective_skills_of_messages",
    "fold_skills",
    "user_contents",
]


class SkillFold(msgspec.Struct, frozen=True):
    """The fold's result: the effective blocks and every name that was ever activated."""

    effective: tuple[SkillBlock, ...]
    ever_activated: frozenset[str]


def fold_skills(contents: Iterable[str], start: SkillFold | None = None) -> SkillFold:
    """Fold the leading envelopes of ``contents`` (user-role message texts, oldest first),
    going on from ``start`` (the fold of the messages before them) when given."""
    current = {block.name: block for block in start.effective} if start else {}
    activated = set(start.ever_activated) if start else set()
    for content in contents:
        for block in split_skill_blocks(content)[1]:
            current.pop(block.name, None)
            if block.active:
                current[block.name] = block
                activated.add(block.name)
    return SkillFold(tuple(current.values()), frozenset(activated))


def effective_skills(contents: Iterable[str]) -> list[SkillBlock]:
    """The active skill blocks after folding ``contents`` (user-role texts) in order.

    Args:
        contents: the contents of the conversation's user-role messages, oldest first.

    Returns:
        The active blocks, least recently (re)activated first.
    """
    return list(fold_skills(contents).effective)


def user_contents(messages: Iterable[Message]) -> Iterable[str]:
    """The contents of the user-role messages among ``messages``, in order."""
    return (message.content for message in messages if message.role == "user")


def effective_skills_of_messages(messages: Iterable[Message]) -> list[SkillBlock]:
    """``effective_skills`` over the user-role messages of a conversation."""
    return effective_skills(user_contents(messages))
