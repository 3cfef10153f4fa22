"""An imported session's compactions as a conversation lineage, for the lineage browser.

Generation 0 is the conversation before the first compaction; each compaction starts the next
generation, whose summary is the one the agent wrote (Claude Code's ``isCompactSummary``
message, Codex's ``compacted`` message) and whose outcome holds what the transcript says:
the trigger (``manual`` for a user's ``/compact``), the tokens before.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from steiner_tui.engine.chain import Chain
from steiner_tui.engine.compaction.lineage import ConversationGeneration, ConversationLineage
from steiner_tui.engine.events import CompactionOutcome
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.importers.transcript import TranscriptItem

__all__ = ["lineage_of", "transcript_messages"]

_SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "local_shell_call"})
"""Tools whose target is a shell command (Claude Code's Bash, Codex's shell tools)."""


def transcript_messages(items: Sequence[TranscriptItem]) -> tuple[Message, ...]:
    """A generation's items as the engine's messages, for its dropped-facts check: a shell
    call as ``bash`` with its command, any other call with its file as ``path``, a result as
    a tool message (the summary item is the generation's summary, not a message)."""
    messages: list[Message] = []
    for number, item in enumerate(items):
        if item.kind == "user":
            messages.append(Message("user", item.text))
        elif item.kind == "reply":
            messages.append(Message("assistant", item.text))
        elif item.kind == "tool":
            call_id = item.call_id or f"call-{number}"
            shell = item.tool.lower() in _SHELL_TOOLS
            name, key = ("bash", "command") if shell else (item.tool, "path")
            arguments = {key: item.target} if item.target else {}
            call = ToolCall(call_id, name, arguments)
            messages.append(Message("assistant", tool_calls=(call,)))
            if item.done:
                messages.append(Message("tool", item.output, tool_call_id=call_id))
    return tuple(messages)


def _time(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def lineage_of(
    session: dict[str, Any], transcript: Sequence[Sequence[TranscriptItem]] = ()
) -> ConversationLineage:
    """The lineage of an imported session (``ImportedSession.to_json()`` data), each
    generation holding its messages from ``transcript`` (``read_generations``), so the
    browser checks what each summary dropped as it does for steiner's own sessions."""
    requests = session.get("requests") or []
    started = _time(requests[0]["time"]) if requests else None

    def messages(number: int) -> tuple[Message, ...]:
        return transcript_messages(transcript[number]) if number < len(transcript) else ()

    generations = [ConversationGeneration(0, Chain(messages(0)), "", None, None, started)]
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
        held = messages(number) or (Message("user", summary),)
        generations.append(ConversationGeneration(number, Chain(held), summary, None, outcome, at))
    return ConversationLineage(tuple(generations))
