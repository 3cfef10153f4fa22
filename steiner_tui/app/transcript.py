"""What the conversation pane shows, as plain data: one entry per visible item.

The pane keeps every entry but mounts widgets only for the last few, so entries are the display
state of the whole conversation. Stored messages become entries here: a user message shows the
text the person typed, with badges for the mode notice and skill envelopes it carried; an
assistant message shows its reply (marked when it was interrupted) and its tool calls, each
followed by its permission request and the answer it got, as the conversation showed them live;
a tool result completes its call's entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from steiner_tui.app.subagent_view import delegate_summary, result_notice
from steiner_tui.engine.compaction.pins import pin_key
from steiner_tui.engine.compaction.policy import (
    CompactionAnswer,
    CompactionQuestion,
    PinsAnswer,
    PinsQuestion,
)
from steiner_tui.engine.events import OutputCut, PermissionAnswered
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.provider import READ_AT_START, Remedy
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.skills.escape import unescape_user_text
from steiner_tui.engine.skills.modes import BUILD_MODE_NOTICE, PLAN_MODE_NOTICE
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.tool_results import default_tool_status
from steiner_tui.sessions.log_parse import LoggedError
from steiner_tui.tools.base import PermissionDecision, PermissionRequest

__all__ = [
    "CompactionEntry",
    "CompactionRunEntry",
    "Entry",
    "ErrorEntry",
    "NoticeEntry",
    "PermissionEntry",
    "ReplyEntry",
    "ToolEntry",
    "UnpinEntry",
    "UserEntry",
    "entries_from_messages",
    "error_entry",
    "tool_summary",
    "user_entry",
]


class UserEntry(msgspec.Struct):
    """What the person sent, with badges for what travelled with it."""

    text: str
    badges: tuple[str, ...] = ()
    key: str = ""
    """The pin key of the stored message (``pins.pin_key``; "" until it is stored)."""


class ReplyEntry(msgspec.Struct):
    """An assistant reply (Markdown); ``interrupted`` when Esc cut it off."""

    text: str = ""
    interrupted: bool = False
    streaming: bool = False
    key: str = ""
    """The pin key of the stored assistant message (the whole message: text and calls; ""
    while it streams)."""


class ToolEntry(msgspec.Struct):
    """One tool call: ``running``, then ``done``, ``failed`` or ``rejected``."""

    call_id: str
    name: str
    summary: str
    status: str = "running"
    output: str = ""
    arguments: Mapping[str, Any] = msgspec.field(default_factory=dict)
    """The call's arguments (an opened edit shows its change from them)."""
    cut: OutputCut | None = None
    """What of the output the model did not get (None: all of it)."""
    key: str = ""
    """The pin key of the stored result ("" until it is stored)."""
    lines: int = 0
    """While it runs: the lines of output so far (``output`` holds the last of them)."""


class PermissionEntry(msgspec.Struct):
    """A tool's permission request; ``decision`` once answered, ``closed`` if the run ended."""

    request: PermissionRequest
    answer: Callable[[PermissionDecision], None]
    decision: PermissionDecision | None = None
    closed: bool = False


class CompactionEntry(msgspec.Struct):
    """``ask`` mode's question before a request; ``choice`` once answered, ``closed`` if the
    run ended first."""

    question: CompactionQuestion
    answer: Callable[[CompactionAnswer], None]
    choice: CompactionAnswer | None = None
    closed: bool = False


class UnpinEntry(msgspec.Struct):
    """The pins alone cannot fit: which to unpin; ``choice`` once answered."""

    question: PinsQuestion
    answer: Callable[[PinsAnswer], None]
    choice: PinsAnswer | None = None
    closed: bool = False


class ErrorEntry(msgspec.Struct):
    """A turn that ended in an error: what the provider or engine said, what the user can do.

    ``retry`` is the key that resends the unanswered message (empty: it cannot be resent).
    """

    code: str
    text: str
    remedies: tuple[Remedy, ...] = ()
    retry: str = ""


class NoticeEntry(msgspec.Struct):
    """A line between messages: compaction, errors, a cleared conversation."""

    text: str
    kind: str = "info"


class CompactionRunEntry(msgspec.Struct):
    """A compaction running (``ended`` empty) or how it ended: its summary call's stage and
    model, the output tokens so far (characters / 4), when it started (``time.monotonic``)
    and, once ended, how long it took in seconds; ``trigger``: why it runs."""

    stage: str
    target: str
    fallback: bool
    started: float
    tokens: int = 0
    ended: str = ""
    kind: str = "compaction"
    took: float = 0.0
    trigger: str = ""


Entry = (
    UserEntry
    | ReplyEntry
    | ToolEntry
    | PermissionEntry
    | CompactionEntry
    | UnpinEntry
    | NoticeEntry
    | ErrorEntry
    | CompactionRunEntry
)

_MODE_BADGES = {PLAN_MODE_NOTICE + "\n\n": "plan mode", BUILD_MODE_NOTICE + "\n\n": "build mode"}


def user_entry(content: str, key: str = "") -> UserEntry:
    """The entry for a stored user message: its text, and badges for notice and envelopes.

    The text is the person's own part, after what the driver put in front of it (the length
    the session log records as ``driver``), shown as typed: without the backslash that keeps a
    text starting like driver text from being read as driver text (``skills.escape``).
    """
    prefix, blocks, rest = split_skill_blocks(content)
    badges: list[str] = []
    if prefix:
        badges.append(_MODE_BADGES.get(prefix, "mode notice"))
    badges.extend(f"+{b.name}" if b.active else f"-{b.name}" for b in blocks)
    return UserEntry(unescape_user_text(rest), tuple(badges), key)


_DEFAULT_REMEDIES: dict[str, tuple[Remedy, ...]] = {
    "context_window": (
        Remedy("compact", "compact the conversation (/compact), then send it again"),
        Remedy("switch_model", "switch to a model with a larger context window (/model)"),
    ),
    "tokenizer": (Remedy("switch_model", "switch to another model (/model)"),),
    "tool_rounds": (Remedy("retry", "ask the model to go on, or narrow the task"),),
    "config": (Remedy("fix_config", f"correct it in config.toml: {READ_AT_START}"),),
}
"""What to offer for the engine's own errors (a provider's carry their remedies)."""
RETRY_ACTIONS = frozenset({"retry", "wait", "set_key", "check_server", "raise_timeout"})
"""Remedies after which sending the same message again makes sense."""


def error_entry(
    code: str, text: str, remedies: tuple[Remedy, ...] = (), retry_key: str = ""
) -> ErrorEntry:
    """The entry for an error; ``retry_key`` resends the unanswered message ("" : it cannot)."""
    offered = remedies or _DEFAULT_REMEDIES.get(code, ())
    return ErrorEntry(code, text, offered, retry_key)


def tool_summary(call: ToolCall, summary: str) -> str:
    """A tool block's title: the engine's ``summary`` of the call; a ``delegate`` call's names
    its type and task (``delegate explore · <task>``), which the engine's summary leaves out."""
    return delegate_summary(call.arguments or {}) if call.name == "delegate" else summary


_DECISIONS = frozenset(decision.value for decision in PermissionDecision)
"""The permission answers a log may hold (``PermissionAnswered.decision``)."""


def entries_from_messages(
    messages: Iterable[Message],
    project_root: str = "",
    errors: Iterable[LoggedError] = (),
    tool_statuses: Mapping[str, str] | None = None,
    answers: Mapping[str, PermissionAnswered] | None = None,
) -> list[Entry]:
    """Entries for a stored conversation (resume, or a conversation loaded for a benchmark).

    ``errors`` (the log's, for this generation) are placed after the messages before them;
    a kept warning among them is its notice, as the live conversation shows it.
    ``tool_statuses`` (by call id) say how tool calls ended as the runner reported them; a
    result without one shows what its text implies (``engine.tool_results.default_tool_status``:
    ``cancelled`` for a call that never ran or was interrupted, as live). ``answers`` (by
    call id) are the permission requests answered, each shown after its call.
    """
    statuses = tool_statuses or {}
    entries: list[Entry] = []
    tools: dict[str, ToolEntry] = {}
    pending = sorted(errors, key=lambda e: e.position)
    for index, message in enumerate(messages):
        while pending and pending[0].position <= index:
            entries.append(_logged(pending.pop(0)))
        if message.source == SUB_AGENT_RESULT_SOURCE:
            entries.append(NoticeEntry(result_notice(message.content), "subagent"))
        elif message.role == "user":
            entries.append(user_entry(message.content, pin_key(message)))
        elif message.role == "summary":
            entries.append(NoticeEntry("conversation summary (earlier turns were compacted)"))
        elif message.role == "assistant":
            if message.content:
                entries.append(
                    ReplyEntry(message.content, message.incomplete, key=pin_key(message))
                )
            for call in message.tool_calls:
                summary = tool_summary(call, summarize_tool_call(call, project_root))
                entry = ToolEntry(call.id, call.name, summary, arguments=call.arguments or {})
                tools[call.id] = entry
                entries.append(entry)
                answered = _answered((answers or {}).get(call.id))
                if answered is not None:
                    entries.append(answered)
        elif message.role == "tool":
            found = tools.get(message.tool_call_id)
            if found is not None:
                found.status = statuses.get(message.tool_call_id) or default_tool_status(message)
                found.output = message.content
                found.key = pin_key(message)
    entries.extend(_logged(e) for e in pending)
    return entries


def _logged(error: LoggedError) -> Entry:
    if error.warning:
        return NoticeEntry(error.message, "warning")
    return error_entry(error.code, error.message, error.remedies)


def _answered(answer: PermissionAnswered | None) -> PermissionEntry | None:
    """A permission request answered earlier, as it was shown once answered (None: none, or
    an answer this version does not know)."""
    if answer is None or answer.decision not in _DECISIONS:
        return None
    request = PermissionRequest(answer.tool, answer.summary, call_id=answer.call_id)
    return PermissionEntry(request, _answered_before, PermissionDecision(answer.decision))


def _answered_before(decision: PermissionDecision) -> None:
    """The answer callback of a request answered before: nothing waits for it."""
