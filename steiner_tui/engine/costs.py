"""What costs the most: a request's contents ranked by tokens, computed from its snapshot.

``rank_request`` reads one ``RequestSnapshot`` (what was sent, or the dry run of the next
request) and lists what is in it, largest first:

* each **file read**, by path, with how many times it was read (``file``);
* each **command**'s output (``command``: a ``bash`` call) and each other tool result
  (``tool_result``: grep, glob...);
* each **tool definition** (``tool_definition``);
* each **skill**: a static skill block, or an envelope carried in a user message (``skill``);
* each **AGENTS.md** (``agents_md``) and **context file** (``context_file``);
* the preamble, the session date, a phase prompt, the summary, and the rest of the
  conversation in two rows: the person's messages (``messages``) and the replies
  (``replies``). A pinned message that is not a tool result gets a row of its own (``pinned``).

Each row says whether it is pinned and what one key may do about it (``action``): ``mask`` a
tool result, or ``drop_reads`` of a file (mask every read of it), offered only for results
that masking can take out (not pinned, not masked yet, 1 KB or more). Acting never rewrites
what was sent: masking makes a new generation (``compaction.masking``), recorded in the
lineage. The UI renders these rows; ``steiner-tui context --json`` prints them as ``top``.

A block's row and a skill's row are the snapshot's own per-source figures (``sources``: the
bytes and raw tokens the context panel and ``steiner-tui context`` show for the same item), so
one item has one figure everywhere. What the sources do not break down (each tool result, each
tool definition, the person's messages and the replies) is counted with a ``CostCounter``: the
session's estimator, raw as the sources are (``agent.cost_counter``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import msgspec

from steiner_tui.engine.compaction.pins import is_pinned_by, pin_label
from steiner_tui.engine.compaction.room import MASK_PREFIX
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.prompt.sources import BlockKind, ContextSource, SourceSpec, spec_of
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.utf8 import utf8_len

__all__ = [
    "CostAction",
    "CostCounter",
    "CostItem",
    "CostKind",
    "PinnedShare",
    "pinned_share",
    "rank_request",
]

CostKind = (
    BlockKind
    | Literal["file", "command", "tool_result", "tool_definition", "summary", "pinned", "messages"]
    | Literal["replies"]
)
"""A row's kind: a block's (its source's ``SourceSpec.kind``) or the conversation's."""
CostAction = Literal["mask", "drop_reads", ""]

_MIN_MASK_BYTES = 1024
_SKILL_HEADING = "## Skill: "


class CostCounter(Protocol):
    """Tokens of what a request holds, as the session's estimator counts them."""

    def message_tokens(self, message: Message) -> int:
        """One message of the request (its framing included)."""

    def text_tokens(self, text: str) -> int:
        """One text (a block, an envelope, a tool definition's JSON)."""


class CostItem(msgspec.Struct, frozen=True):
    """One row of the ranking.

    Attributes:
        kind: what it is (``CostKind``).
        label: how it is named (a path, a call such as ``bash command=pytest``, a skill).
        tokens: its estimated tokens in the request.
        bytes: its UTF-8 bytes.
        count: how many messages or blocks it covers (reads of a file, messages of a row).
        path: the file of a ``file``, ``agents_md`` or ``context_file`` row.
        call_ids: the tool calls whose results ``action`` would mask.
        pinned: the row is (or holds) a pinned message.
        action: what one key may do: ``mask``, ``drop_reads`` or nothing.
    """

    kind: CostKind
    label: str
    tokens: int
    bytes: int
    count: int = 1
    path: str = ""
    call_ids: tuple[str, ...] = ()
    pinned: bool = False
    action: CostAction = ""

    def as_json(self) -> dict[str, Any]:
        """The row as plain JSON (``context --json``'s ``top``)."""
        return {
            "kind": self.kind,
            "label": self.label,
            "tokens": self.tokens,
            "bytes": self.bytes,
            "count": self.count,
            "path": self.path,
            "pinned": self.pinned,
            "action": self.action,
            "call_ids": list(self.call_ids),
        }


class _Row(msgspec.Struct):
    kind: CostKind
    label: str
    tokens: int = 0
    bytes: int = 0
    count: int = 0
    path: str = ""
    call_ids: list[str] = msgspec.field(default_factory=list)
    actionable: list[str] = msgspec.field(default_factory=list)
    pinned: bool = False

    def add(self, tokens: int, size: int) -> None:
        self.tokens += tokens
        self.bytes += size
        self.count += 1


def _block_label(spec: SourceSpec, path: str, content: str) -> str:
    if spec.source == ContextSource.SKILL:
        if content.startswith(_SKILL_HEADING):
            return content[len(_SKILL_HEADING) :].split("\n", 1)[0].strip()
        return spec.label
    return path or spec.label


def _read_path(message: Message, call: ToolCall | None) -> str:
    if message.content.startswith("{"):
        try:
            data = json.loads(message.content)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("path"), str):
            return str(data["path"])
    if call is not None and call.arguments is not None:
        path = call.arguments.get("path")
        if isinstance(path, str):
            return path
    return message.name or "read"


def _maskable(message: Message, pinned: bool) -> bool:
    return (
        not pinned
        and not message.content.startswith(MASK_PREFIX)
        and utf8_len(message.content) >= _MIN_MASK_BYTES
    )


def rank_request(
    snapshot: RequestSnapshot, counter: CostCounter, pins: Sequence[str] = ()
) -> tuple[CostItem, ...]:
    """What ``snapshot``'s request holds, largest first (module docstring).

    Args:
        snapshot: a request snapshot (a dry run shows the next request).
        counter: the session's token counts.
        pins: the conversation's pin keys (their rows are marked, and never actionable).

    Returns:
        The rows, by tokens (largest first), then by label.
    """
    rows: dict[tuple[str, str], _Row] = {}

    def row(kind: CostKind, label: str, path: str = "") -> _Row:
        found = rows.get((kind, label))
        if found is None:
            found = rows[(kind, label)] = _Row(kind, label, path=path)
        return found

    # The snapshot's figure for each block (its message's framing with the first block of the
    # message) and for each skill carried in envelopes; a snapshot without them is counted.
    figures = {(str(f.source), f.path, f.name): f for f in snapshot.sources}
    for block in snapshot.blocks:
        spec = spec_of(block.source)
        if spec is None or spec.kind is None:
            continue
        kind: CostKind = spec.kind
        label = _block_label(spec, block.path, block.content)
        if not figures:
            row(kind, label, block.path).add(counter.text_tokens(block.content), block.byte_size)
        elif (figure := figures.pop((str(block.source), block.path, ""), None)) is not None:
            row(kind, label, block.path).add(figure.tokens, figure.bytes)

    conversation = snapshot.messages[snapshot.block_message_count :]
    pinned = is_pinned_by(pins)
    calls = {call.id: call for m in conversation for call in m.tool_calls}
    for message in conversation:
        tokens = counter.message_tokens(message)
        size = message.prompt_bytes
        is_pinned = pinned(message)
        if message.role == "tool":
            call = calls.get(message.tool_call_id)
            name = call.name if call is not None else message.name
            if name == "read":
                path = _read_path(message, call)
                target = row("file", path, path)
            else:
                label = summarize_tool_call(call) if call is not None else name or "tool"
                target = row("command" if name == "bash" else "tool_result", label)
            target.add(tokens, size)
            target.call_ids.append(message.tool_call_id)
            target.pinned = target.pinned or is_pinned
            if _maskable(message, is_pinned):
                target.actionable.append(message.tool_call_id)
            continue
        if is_pinned:
            row("pinned", pin_label(message, conversation)).add(tokens, size)
            continue
        if message.role in ("summary", "system"):
            row("summary", "summary").add(tokens, size)
        elif message.role == "assistant":
            row("replies", "replies").add(tokens, size)
        elif message.role == "user":
            _, envelopes, _ = split_skill_blocks(message.content)
            for envelope in envelopes:
                envelope_tokens = counter.text_tokens(envelope.text)
                row("skill", envelope.name).add(envelope_tokens, utf8_len(envelope.text))
                tokens -= envelope_tokens
                size -= utf8_len(envelope.text)
            who = "sub-agent results" if message.source == SUB_AGENT_RESULT_SOURCE else "messages"
            row("messages", who).add(max(0, tokens), max(0, size))

    for tool in snapshot.tools:
        text = tool.json
        row("tool_definition", tool.name).add(counter.text_tokens(text), utf8_len(text))

    for (source, _, name), figure in figures.items():
        found = rows.get(("skill", name))
        if source == ContextSource.SKILL and name and found is not None:
            found.tokens, found.bytes = figure.tokens, figure.bytes
    items = [_item(found) for found in rows.values() if found.count]
    items.sort(key=lambda item: (-item.tokens, item.label))
    return tuple(items)


def _item(found: _Row) -> CostItem:
    action: CostAction = ""
    if found.actionable:
        action = "drop_reads" if found.kind == "file" else "mask"
    return CostItem(
        found.kind,
        found.label,
        found.tokens,
        found.bytes,
        found.count,
        found.path,
        tuple(found.actionable),
        found.pinned,
        action,
    )


class PinnedShare(msgspec.Struct, frozen=True):
    """The pinned messages of a request: how many, their bytes and their tokens."""

    count: int = 0
    bytes: int = 0
    tokens: int = 0


def pinned_share(
    snapshot: RequestSnapshot, counter: CostCounter, pins: Sequence[str]
) -> PinnedShare:
    """What ``snapshot``'s pinned messages take (the context panel's own ``pinned`` row, carved
    out of its conversation row; ``counter`` counts as that row does).

    Args:
        snapshot: a request snapshot.
        counter: token counts of the same kind as the panel's rows (raw, uncalibrated).
        pins: the conversation's pin keys.
    """
    if not pins:
        return PinnedShare()
    pinned = is_pinned_by(pins)
    found = [m for m in snapshot.messages[snapshot.block_message_count :] if pinned(m)]
    return PinnedShare(
        len(found),
        sum(m.prompt_bytes for m in found),
        sum(counter.message_tokens(m) for m in found),
    )
