"""The conversation of an imported transcript, generation by generation, as plain items.

The import's figures (``claude``, ``codex``) keep no message text; the workbench's conversation
of an import is read from the transcript file when it is opened: the latest generation, the
conversation the agent's next request would carry, is what came after the last compaction
(Claude Code's ``compact_boundary``, Codex's ``compacted``), with the summary as its first
item; the lineage browser reads every generation, to check what each summary dropped. Items
are the person's messages, the agent's replies, and tool calls with their results (tool, file
or command, output); what the agent injected for itself (Claude Code's
``<system-reminder>`` blocks, meta and sidechain lines; Codex's developer messages, AGENTS.md
and environment parts) is left out, as the panel and the inspector show those. Unreadable
lines are skipped (the import reports them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import msgspec

from steiner_tui.capture.wire import call_target
from steiner_tui.importers.jsonl import read_each

__all__ = ["TranscriptItem", "read_conversation", "read_generations"]

ItemKind = Literal["user", "reply", "tool", "summary"]

_CODEX_INJECTED = ("# AGENTS.md instructions for ", "<environment_context>", "<INSTRUCTIONS>")


class TranscriptItem(msgspec.Struct):
    """One item of the conversation; a tool item's ``output`` arrives with its result."""

    kind: ItemKind
    text: str = ""
    tool: str = ""
    target: str = ""
    call_id: str = ""
    output: str = ""
    done: bool = False


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("text", "content", "output"):
            if key in value:
                return _text(value[key])
    return ""


class _Conversation:
    """Each generation's items, tool results filled into their calls."""

    def __init__(self) -> None:
        self.generations: list[list[TranscriptItem]] = [[]]
        self.calls: dict[str, TranscriptItem] = {}

    @property
    def items(self) -> list[TranscriptItem]:
        """The latest generation's items."""
        return self.generations[-1]

    def restart(self, summary: str) -> None:
        """A compaction: a new generation opening with its summary (Claude Code writes the
        boundary, then the summary: the summary fills the generation the boundary opened)."""
        opened = self.items == [TranscriptItem("summary", "")]
        if opened:
            self.generations[-1] = [TranscriptItem("summary", summary)]
        else:
            self.generations.append([TranscriptItem("summary", summary)])
        self.calls = {}

    def add(self, item: TranscriptItem) -> None:
        self.items.append(item)
        if item.kind == "tool" and item.call_id:
            self.calls[item.call_id] = item

    def result(self, call_id: str, output: str) -> None:
        call = self.calls.get(call_id)
        if call is None:
            call = TranscriptItem("tool", tool="?", call_id=call_id)
            self.items.append(call)
        call.output, call.done = output, True


def _claude(conversation: _Conversation, record: dict[str, Any]) -> None:
    kind = record.get("type")
    if kind == "system" and record.get("subtype") == "compact_boundary":
        conversation.restart("")
        return
    if kind not in ("user", "assistant") or record.get("isSidechain"):
        return
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if record.get("isCompactSummary"):
        conversation.restart(_text(content))
        return
    if record.get("isMeta"):
        return
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for part in parts if isinstance(parts, list) else ():
        if not isinstance(part, dict):
            continue
        part_type = part.get("type")
        if part_type == "text":
            text = str(part.get("text", ""))
            if kind == "user" and text.lstrip().startswith("<system-reminder>"):
                continue
            if text.strip():
                conversation.add(TranscriptItem("user" if kind == "user" else "reply", text))
        elif part_type == "tool_use":
            name = str(part.get("name", "?"))
            target = call_target(part.get("input"))
            conversation.add(TranscriptItem("tool", tool=name, target=target,
                                            call_id=str(part.get("id", ""))))  # fmt: skip
        elif part_type == "tool_result":
            conversation.result(str(part.get("tool_use_id", "")), _text(part.get("content")))


def _codex(conversation: _Conversation, record: dict[str, Any]) -> None:
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return
    if record.get("type") == "compacted":
        conversation.restart(str(payload.get("message", "")))
        return
    if record.get("type") != "response_item":
        return
    item_type = payload.get("type")
    if item_type == "message":
        role = payload.get("role")
        content = payload.get("content")
        for part in content if isinstance(content, list) else ():
            text = _text(part)
            if role == "user" and text.startswith(_CODEX_INJECTED):
                continue
            if role in ("user", "assistant") and text.strip():
                kind: ItemKind = "user" if role == "user" else "reply"
                conversation.add(TranscriptItem(kind, text))
    elif item_type in ("function_call", "custom_tool_call", "local_shell_call"):
        arguments = payload.get("arguments", payload.get("input", payload.get("action")))
        conversation.add(TranscriptItem("tool", tool=str(payload.get("name", item_type)),
                                        target=call_target(arguments),
                                        call_id=str(payload.get("call_id", ""))))  # fmt: skip
    elif item_type in ("function_call_output", "custom_tool_call_output"):
        conversation.result(str(payload.get("call_id", "")), _text(payload.get("output")))


def read_generations(path: Path, source: str) -> list[list[TranscriptItem]]:
    """Every generation of the transcript at ``path`` (``claude-code`` or ``codex``), oldest
    first: what came before the first compaction, then each compaction's summary and what
    followed it.

    Raises:
        OSError: the file cannot be read.
    """
    conversation = _Conversation()
    read = _codex if source == "codex" else _claude
    read_each(path, [], lambda _, record: read(conversation, record))  # the import reports
    return conversation.generations


def read_conversation(path: Path, source: str) -> list[TranscriptItem]:
    """The latest generation of the transcript at ``path`` (``read_generations``).

    Raises:
        OSError: the file cannot be read.
    """
    return read_generations(path, source)[-1]
