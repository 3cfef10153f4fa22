"""How sub-agents read on screen, as plain text: table cells, titles, notices, transcripts.

Kept free of Textual so the adapter and the workbench can use it at start-up without importing
the sub-agent widgets (mounted only once the model delegates), and so tests can call it directly.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from steiner_tui.agent.delegation.envelope import RESULT_TAG
from steiner_tui.agent.delegation.model import SubAgentInfo
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.recent_calls import summarize_tool_call

__all__ = [
    "COLUMNS",
    "COMPACT_COLUMNS",
    "TranscriptSource",
    "delegate_summary",
    "first_line",
    "format_row",
    "format_transcript",
    "panel_title",
    "result_notice",
]

TranscriptSource = Callable[[str], Sequence[Message]]

COLUMNS = ("id", "type", "status", "turns", "tokens", "cache")
COMPACT_COLUMNS = ("id", "status", "turns", "tokens", "cache")
"""For narrow slots: the id already names the type (``explore-1``)."""


@functools.cache
def _result_head() -> re.Pattern[str]:
    """A child's result envelope (compiled when the first result arrives, not at start)."""
    return re.compile(rf'^<{RESULT_TAG} id="([^"]*)" type="[^"]*" status="([^"]*)"')


STATUS_MARKS = {
    "queued": "… queued",
    "running": "▶ running",
    "done": "✓ done",
    "failed": "✗ failed",
    "cancelled": "■ cancelled",
}


def _tokens(count: int) -> str:
    if count < 1000:
        return str(count)
    return f"{count / 1000:.1f}k"


def format_row(info: SubAgentInfo) -> tuple[str, ...]:
    """The table cells of one child."""
    cache = f"{info.cache_rate:.0%}" if info.cache_read_tokens else "—"
    return (
        info.id,
        info.type,
        STATUS_MARKS.get(info.state, info.state),
        str(info.turns),
        _tokens(info.tokens),
        cache,
    )


def delegate_summary(arguments: Mapping[str, object]) -> str:
    """The tool-block line of a ``delegate`` call: ``delegate explore · <task's first line>``."""
    kind = str(arguments.get("type", "")).strip()
    task = first_line(str(arguments.get("task", "")))
    mode = "(background)" if arguments.get("wait", True) is False else ""
    return " ".join(part for part in ("delegate", kind, mode, "·", task) if part)


def result_notice(content: str) -> str:
    """The conversation's one-line notice for a ``sub_agent_result`` message (not its text)."""
    head = _result_head().match(content)
    if head is None:
        return "sub-agent note for the model"
    agent_id, status = head.groups()
    return f"result of sub-agent {agent_id} ({status}) handed to the model"


_SHOWN_ARGUMENTS = 200
"""Arguments up to this many bytes are shown whole after a call's summary; longer ones (a
write's content, an edit's strings) are counted: their result and the file say the rest."""


def _call_line(call: ToolCall) -> str:
    """``→ write path=notes.md · 1,873 B of arguments``, or the arguments whole when short."""
    text = call.arguments_json if call.arguments is not None else call.raw_arguments
    size = len(text.encode())
    if size <= _SHOWN_ARGUMENTS:
        return f"→ {call.name} {text}"
    return f"→ {summarize_tool_call(call)} · {size:,} B of arguments"


def format_transcript(messages: Sequence[Message]) -> str:
    """The child's conversation as plain text: a role line, then the content, per message (a
    write's 1,840-byte content was shown as one JSON string of ``\\n`` escapes)."""
    parts: list[str] = []
    for message in messages:
        label = message.role
        if message.role == "tool":
            label = f"tool {message.name or ''} {message.tool_call_id}".rstrip()
        if message.incomplete:
            label += " (incomplete)"
        body = message.content
        for call in message.tool_calls:
            body += f"\n{_call_line(call)}"
        parts.append(f"── {label} ──\n{body}")
    return "\n\n".join(parts) if parts else "(the sub-agent has not started yet)"


def panel_title(infos: Iterable[SubAgentInfo]) -> str:
    """``Sub-agents · 1 running · 2 done``: the children counted by state, in state order."""
    counts: dict[str, int] = {}
    for info in infos:
        counts[info.state] = counts.get(info.state, 0) + 1
    parts = [f"{counts[state]} {state}" for state in STATUS_MARKS if state in counts]
    return " · ".join(["Sub-agents", *parts])


def first_line(text: str, width: int = 60) -> str:
    """The first non-blank line of ``text``, cut to ``width`` characters."""
    lines = text.strip().splitlines()
    return lines[0][:width] if lines else ""
