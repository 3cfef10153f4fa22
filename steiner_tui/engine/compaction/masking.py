"""Masking on request: replace chosen tool results with stubs in a new generation.

The person (from the cost ranking, or "mask the largest tool results instead" in ``ask``
mode) can take tool results out of the next request without a summary. What was sent is never
rewritten: the active generation is kept as it is and a new one starts with the same messages,
the chosen results replaced by the masking stub (``room.mask_tool_result``: the call, the size
and where the whole output is kept). Its outcome is recorded like a compaction's, with the mode
``mask``, no stages and one ``masked`` edit per result, so the lineage browser and the session
log show it (docs/design.md, "8. Compaction: turns, stages and the summary").

Pinned results, results already masked and results under 1 KB are never masked.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime

from steiner_tui.engine.compaction.lineage import ConversationLineage
from steiner_tui.engine.compaction.pins import is_pinned_by
from steiner_tui.engine.compaction.room import MASK_PREFIX, Sizer, calls_by_id, mask_recorded
from steiner_tui.engine.compaction.triggers import MASK_ON_REQUEST
from steiner_tui.engine.events import CompactionOutcome, RoomEdit
from steiner_tui.engine.messages import Message
from steiner_tui.engine.utf8 import utf8_len

__all__ = ["MASK_MODE", "mask_results"]

MASK_MODE = "mask"
"""``CompactionOutcome.modes`` of a generation made by masking on request."""

_MIN_MASK_BYTES = 1024


def mask_results(
    lineage: ConversationLineage,
    call_ids: Collection[str],
    *,
    sizer: Sizer,
    estimate: Callable[[Sequence[Message]], int],
    at: datetime | None,
    reason: str = "",
    trigger: str = MASK_ON_REQUEST,
) -> tuple[ConversationLineage, CompactionOutcome] | None:
    """Mask the active generation's tool results whose call ids are in ``call_ids``.

    Args:
        lineage: the conversation (never modified).
        call_ids: the results to mask.
        sizer: their tokens, and where each whole output is kept.
        estimate: the main model's estimate of a request over a conversation.
        at: the outcome's time.
        reason: what asked for it (the outcome's steering text, e.g. ``mask: read a.md``).
        trigger: why it runs (``triggers``: the ranking's mask, or ``ask`` mode's answer).

    Returns:
        The lineage with the new generation and its outcome, or None when nothing could be
        masked.
    """
    active = lineage.active
    messages = active.messages
    pinned = is_pinned_by(lineage.pins)
    wanted = set(call_ids)
    out = list(messages)
    edits: list[RoomEdit] = []
    calls = calls_by_id(messages)
    for index, message in enumerate(messages):
        if (
            message.role != "tool"
            or message.tool_call_id not in wanted
            or pinned(message)
            or message.content.startswith(MASK_PREFIX)
            or utf8_len(message.content) < _MIN_MASK_BYTES
        ):
            continue
        tokens = sizer.message_tokens(message)
        out[index], edit = mask_recorded(message, calls, "retained", sizer, tokens)
        edits.append(edit)
    if not edits:
        return None
    outcome = CompactionOutcome(
        applied=True,
        stage_count=0,
        modes=(MASK_MODE,),
        before_tokens=estimate(messages),
        after_tokens=estimate(out),
        at=at,
        summarized_count=0,
        retained_count=len(out),
        steering=reason,
        manual=True,
        summary="",
        edits=tuple(edits),
        trigger=trigger,
    )
    return lineage.advance(out, active.summary, outcome, at), outcome
