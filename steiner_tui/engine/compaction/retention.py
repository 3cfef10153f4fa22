"""What survives a compaction stage besides the summary, and the new conversation's layout.

The new generation is, in order: one ``summary`` message; one user message replaying the skill
envelopes still active anywhere in the old generation (an activation in the summarized part still
counts, a deactivated skill drops out); the retained messages with their leading envelopes
stripped (a message left empty is dropped); and, when sub-agents are still pending, one
``sub_agent_result`` user message listing them. Stale pending lines in the retained tail are
dropped, because the fresh line replaces them.

The normal stage also anchors its tail to the latest real user message, so the model keeps the
user's own words verbatim; the emergency stage does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from steiner_tui.engine.messages import (
    SUB_AGENT_RESULT_SOURCE,
    Message,
    is_real_user_message,
)
from steiner_tui.engine.skills.effective import effective_skills_of_messages
from steiner_tui.engine.skills.envelopes import strip_skill_blocks

__all__ = [
    "ComposedConversation",
    "anchor_real_user_retention",
    "compose_compacted_conversation",
    "is_pending_sub_agents_message",
    "pending_sub_agents_message",
    "render_pending_sub_agents_line",
    "replayed_skill_message",
    "strip_retained_skill_blocks",
]

PENDING_SUB_AGENTS_OPEN = "<steiner-sub-agents-pending>"
PENDING_SUB_AGENTS_CLOSE = "</steiner-sub-agents-pending>"


def anchor_real_user_retention(
    summarized: Sequence[Message],
    retained: Sequence[Message],
    fits: Callable[[Sequence[Message]], bool],
) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """Move the retention cut back to the latest real user message when it was summarized.

    Args:
        summarized: the part the stage would summarize.
        retained: the tail the stage would keep.
        fits: whether a retained tail still fits the main model (hard fit).

    Returns:
        The (summarized, retained) split: extended only when the latest real user message sits
        in ``summarized``, something remains to summarize, and the extended tail fits.
    """
    before, after = tuple(summarized), tuple(retained)
    if any(is_real_user_message(m) for m in after):
        return before, after
    index = next(
        (i for i in range(len(before) - 1, -1, -1) if is_real_user_message(before[i])), None
    )
    if index is None or index == 0:
        return before, after
    extended = before[index:] + after
    if not fits(extended):
        return before, after
    return before[:index], extended


def strip_retained_skill_blocks(message: Message) -> Message | None:
    """``message`` without its leading skill envelopes; ``None`` when nothing is left.

    Only user messages carry envelopes. A message that stripping leaves with no text and no
    images is dropped; a message that was empty to begin with is kept as is.
    """
    if message.role != "user":
        return message
    stripped = strip_skill_blocks(message.content)
    if stripped == message.content:
        return message
    if not stripped and not message.images:
        return None
    return message.with_content(stripped)


def replayed_skill_message(generation: Sequence[Message]) -> Message | None:
    """One user message replaying the envelopes active anywhere in ``generation``, or None."""
    blocks = effective_skills_of_messages(generation)
    if not blocks:
        return None
    return Message("user", "\n\n".join(block.text for block in blocks))


def render_pending_sub_agents_line(agents: Sequence[tuple[str, str, str]]) -> str:
    """The pending sub-agents line, e.g. ``<steiner-sub-agents-pending>code-3 (code, running)...``.

    Args:
        agents: ``(id, type, state)`` per pending sub-agent, in display order.

    Returns:
        The line, or ``""`` when no sub-agent is pending.
    """
    if not agents:
        return ""
    entries = "; ".join(f"{agent_id} ({kind}, {state})" for agent_id, kind, state in agents)
    return f"{PENDING_SUB_AGENTS_OPEN}{entries}{PENDING_SUB_AGENTS_CLOSE}"


def pending_sub_agents_message(agents: Sequence[tuple[str, str, str]]) -> Message | None:
    """The pending line as a ``sub_agent_result`` user message, or None when none is pending."""
    line = render_pending_sub_agents_line(agents)
    return Message("user", line, source=SUB_AGENT_RESULT_SOURCE) if line else None


def is_pending_sub_agents_message(message: Message) -> bool:
    """True for a pending line written by an earlier compaction."""
    return message.source == SUB_AGENT_RESULT_SOURCE and message.content.startswith(
        PENDING_SUB_AGENTS_OPEN
    )


class ComposedConversation(msgspec.Struct, frozen=True):
    """A new generation's messages and, per message, the source message it came from.

    ``origins[i]`` is ``None`` for the messages compaction wrote (summary, skill replay, pending
    line); the history archive records only real sources.
    """

    messages: tuple[Message, ...]
    origins: tuple[Message | None, ...]


def compose_compacted_conversation(
    summary: str,
    generation: Sequence[Message],
    retained: Sequence[Message],
    pending_agents: Sequence[tuple[str, str, str]] = (),
    retained_origins: Sequence[Message | None] | None = None,
) -> ComposedConversation:
    """Lay out the conversation of a new generation.

    Args:
        summary: the summary text (history note included); "" when nothing was summarized
            (a stage that only masked or cut its tail): no summary message.
        generation: every message of the generation being compacted (for the skill replay).
        retained: the retained tail, unstripped.
        pending_agents: ``(id, type, state)`` of sub-agents still pending.
        retained_origins: the source of each retained message (defaults to ``retained``).

    Returns:
        The messages and their origins.
    """
    origins_in = tuple(retained) if retained_origins is None else tuple(retained_origins)
    messages: list[Message] = [Message("summary", summary)] if summary else []
    origins: list[Message | None] = [None] if summary else []
    replay = replayed_skill_message(generation)
    if replay is not None:
        messages.append(replay)
        origins.append(None)
    for message, origin in zip(retained, origins_in, strict=True):
        if is_pending_sub_agents_message(message):
            continue
        kept = strip_retained_skill_blocks(message)
        if kept is not None:
            messages.append(kept)
            origins.append(origin)
    pending = pending_sub_agents_message(pending_agents)
    if pending is not None:
        messages.append(pending)
        origins.append(None)
    return ComposedConversation(tuple(messages), tuple(origins))
