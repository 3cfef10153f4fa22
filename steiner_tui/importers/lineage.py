"""An imported session's compactions as a conversation lineage, for the lineage browser.

Generation 0 is the conversation before the first compaction; each compaction starts the next
generation, whose summary is the one the agent wrote (Claude Code's ``isCompactSummary``
message, Codex's ``compacted`` message) and whose outcome holds what the transcript says:
the trigger (``manual`` for a user's ``/compact``), the tokens before.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message

__all__ = ["lineage_of"]


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def lineage_of(session: dict[str, Any]) -> ConversationLineage:
    """The lineage of an imported session (``ImportedSession.to_json()`` data)."""
    requests = session.get("requests") or []
    started = _time(requests[0]["time"]) if requests else None
    generations = [ConversationGeneration(0, (), "", None, None, started)]
    for number, generation in enumerate(session.get("generations") or [], 1):
        summary = str(generation.get("summary", ""))
        trigger = generation.get("trigger")
        after = int(generation.get("after_request", 0))
        next_context = requests[after]["context_tokens"] if after < len(requests) else 0
        at = _time(generation.get("time"))
        outcome = CompactionOutcome(
            applied=True,
            stage_count=1,
            modes=(str(trigger or "not recorded"),),
            before_tokens=int(generation.get("pre_tokens") or 0),
            after_tokens=int(next_context),
            summary_model=session.get("source", ""),
            at=at,
            manual=trigger == "manual",
            summary=summary,
            trigger=str(trigger or ""),  # the transcript's own word: "auto" or "manual"
        )
        generations.append(
            ConversationGeneration(number, (Message("user", summary),), summary, None, outcome, at)
        )
    return ConversationLineage(tuple(generations))
