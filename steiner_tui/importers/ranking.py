""" "What costs the most" in an imported transcript, ranked by the engine's own ranking.

The workbench ranks what a request holds with ``engine.costs.rank_request``; an imported
transcript is ranked by the same function, so the grouping (a file's reads by path, every
other result by its call) and the order (largest first, then by label) are decided in one
place. The transcript's tool results become one request's tool messages, each answering a
call named after its tool: a file read (Claude Code's ``Read``) is the engine's ``read`` call
on that path, any other result a call whose name is the tool and its command or target, so
each (tool, target) pair is one row. A result's cost is its size in bytes as the transcript
holds it (the counter below), since a transcript records no tokens per result.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec

from steiner_tui.engine.costs import CostItem, rank_request
from steiner_tui.engine.events import RequestSnapshot
from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.recent_calls import summarize_tool_call
from steiner_tui.engine.utf8 import utf8_len
from steiner_tui.importers.model import CostRow

__all__ = ["FILE_READ_TOOLS", "rank_costs", "rank_results"]

FILE_READ_TOOLS = frozenset({"Read", "read", "read_file"})
"""Tools whose result is a file's text: ranked as the engine ranks a ``read`` (by path)."""

_RESULT_KINDS = frozenset({"file", "command", "tool_result"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class _ResultCost:
    """The engine's ``CostCounter`` over recorded sizes: a result costs its bytes, times
    ``per_byte`` (1: the ranking is in bytes)."""

    def __init__(self, sizes: dict[str, int], per_byte: float) -> None:
        self.sizes = sizes
        self.per_byte = per_byte

    def message_tokens(self, message: Message) -> int:
        return round(self.sizes.get(message.tool_call_id, 0) * self.per_byte)

    def text_tokens(self, text: str) -> int:
        return round(utf8_len(text) * self.per_byte)


def _call(call_id: str, tool: str, target: str) -> ToolCall:
    if tool in FILE_READ_TOOLS and target:
        return ToolCall(call_id, "read", {"path": target})
    return ToolCall(call_id, f"{tool} {target}".strip() if target else tool, None)


def _snapshot(messages: tuple[Message, ...]) -> RequestSnapshot:
    return RequestSnapshot(
        request_id="results",
        index=1,
        model="",
        provider="",
        time=_EPOCH,
        message_hashes=(),
        messages=messages,
        blocks=(),
        block_message_count=0,
        prompt_bytes=0,
        blocks_bytes=0,
        tools=(),
        tools_bytes=0,
        max_tokens=0,
        estimated_prompt_tokens=0,
        raw_prompt_tokens=0,
        estimate_strategy="",
        estimate_confidence="",
    )


def _ranked(
    results: Sequence[tuple[str, str, int]], per_byte: float
) -> list[tuple[CostItem, str, str]]:
    """The engine's rows of the results, each with its bytes and the tool and target it is."""
    sizes: dict[str, int] = {}
    origin: dict[str, tuple[str, str]] = {}  # the engine's row label -> tool and target
    total: dict[str, int] = {}
    messages: list[Message] = []
    for index, (tool, target, size) in enumerate(results):
        call_id = f"r{index}"
        call = _call(call_id, tool, target)
        sizes[call_id] = size
        label = target if call.name == "read" else summarize_tool_call(call)
        origin.setdefault(label, (tool, target))
        total[label] = total.get(label, 0) + size
        messages.append(Message("assistant", tool_calls=(call,)))
        messages.append(Message("tool", tool_call_id=call_id, name=call.name))
    out: list[tuple[CostItem, str, str]] = []
    for item in rank_request(_snapshot(tuple(messages)), _ResultCost(sizes, per_byte)):
        if item.kind not in _RESULT_KINDS or item.label not in origin:
            continue  # the calls' own row ("replies"): not a tool result
        tool, target = origin[item.label]
        # Read-only: nothing to mask in a transcript or a capture.
        shown = msgspec.structs.replace(item, bytes=total[item.label], call_ids=(), action="")
        out.append((shown, tool, target))
    return out


def rank_results(
    results: Sequence[tuple[str, str, int]], per_byte: float = 1.0
) -> tuple[CostItem, ...]:
    """The engine's ranking rows of tool results (tool, target, bytes), costed at
    ``per_byte`` tokens a byte, largest first; none offers an action."""
    return tuple(item for item, _, _ in _ranked(results, per_byte))


def rank_costs(results: Sequence[tuple[str, str, int]], limit: int = 20) -> tuple[CostRow, ...]:
    """Tool results grouped by tool and file or command, largest first (the engine's ranking).

    Args:
        results: each tool result's tool, target (file or command, "" when unknown) and bytes.
        limit: rows kept.
    """
    rows = [
        CostRow(tool, target, item.bytes, item.count)
        for item, tool, target in _ranked(results, 1.0)
    ]
    return tuple(rows[:limit])
