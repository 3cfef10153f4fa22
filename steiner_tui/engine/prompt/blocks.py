"""Context blocks and how they become request messages.

A ``ContextBlock`` is one piece of request context with its source, role and (for file-backed
sources) path. ``render_blocks`` turns the blocks of one assembly into messages: consecutive
blocks of the same role merge (system joined by a blank line, user by one newline). The phase
prompt never merges: it is stripped and, when not empty, stands as its own system message. The
session date, being user role, merges into an adjacent user block or starts one after it.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from steiner_tui.engine.messages import Message
from steiner_tui.engine.prompt.sources import ContextSource, role_for

__all__ = ["ContextBlock", "block_message_indexes", "blocks_bytes", "render_blocks"]

_JOINERS = {"system": "\n\n", "user": "\n"}


class ContextBlock(msgspec.Struct, frozen=True):
    """One block of request context.

    Attributes:
        source: the ``ContextSource`` value it comes from.
        role: ``system`` or ``user`` (see ``sources.is_system_zone``).
        content: the text sent, after any budget cut.
        path: the file it was read from, when file-backed ("" otherwise).
        truncated: whether a budget cut it.
    """

    source: str
    role: str
    content: str
    path: str = ""
    truncated: bool = False

    @classmethod
    def of(
        cls, source: str, content: str, *, path: str = "", truncated: bool = False
    ) -> ContextBlock:
        """A block whose role follows from its source."""
        return cls(str(source), role_for(source), content, path, truncated)

    @property
    def byte_size(self) -> int:
        """UTF-8 length of ``content`` (lone surrogates count as three bytes)."""
        content = self.content  # asked for every request's snapshot: ASCII is not encoded
        return len(content) if content.isascii() else len(content.encode("utf-8", "surrogatepass"))


def blocks_bytes(blocks: Iterable[ContextBlock]) -> int:
    """BlocksBytes: the sum of every block's ``byte_size``."""
    return sum(b.byte_size for b in blocks)


def _layout(blocks: Iterable[ContextBlock]) -> tuple[list[str], list[list[str]], list[int]]:
    """Roles and content parts of each message, and each block's message index (-1: none)."""
    roles: list[str] = []
    parts: list[list[str]] = []
    indexes: list[int] = []
    # A phase prompt's message takes no further blocks.
    sealed: set[int] = set()
    for block in blocks:
        content = block.content
        phase = block.source == ContextSource.PHASE_PROMPT
        if phase:
            content = content.strip()
        if not content:
            indexes.append(-1)
            continue
        last = len(roles) - 1
        if not phase and last >= 0 and last not in sealed and roles[last] == block.role:
            parts[last].append(content)
        else:
            roles.append(block.role)
            parts.append([content])
            if phase:
                sealed.add(len(roles) - 1)
        indexes.append(len(roles) - 1)
    return roles, parts, indexes


def render_blocks(blocks: Iterable[ContextBlock]) -> tuple[Message, ...]:
    """Turn assembled blocks into messages, merging consecutive same-role blocks.

    Args:
        blocks: the blocks in plan order (already budgeted).

    Returns:
        The block messages: the cacheable prefix of the request.
    """
    roles, parts, _ = _layout(blocks)
    return tuple(
        Message(role, _JOINERS.get(role, "\n").join(chunks))
        for role, chunks in zip(roles, parts, strict=True)
    )


def block_message_indexes(blocks: Iterable[ContextBlock]) -> tuple[int, ...]:
    """For each block, the index of the message ``render_blocks`` put it in (-1: empty)."""
    return tuple(_layout(blocks)[2])
