"""The offline extractive summarizer: a real eight-section summary without a language model.

``extractive_summary`` is a pure function of the transcript. It quotes user requests, files
touched, commands run, errors seen, decisions, stated facts, preferences and open work (see
``extract.py``), carries a previous summary's bullets forward, and fits the output to the token
budget by dropping the least important, oldest bullets first while keeping every heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.offline.extract import Item, collect_items
from steiner_tui.providers.offline.facts import NONE_RECORDED, STATE
from steiner_tui.providers.offline.filelines import group_file_lines
from steiner_tui.providers.offline.markers import (
    EMERGENCY_MARKER,
    SECTION_HEADINGS,
    STEERING_MARKER,
    SUMMARY_MARKER,
    SUMMARY_NOTE,
)
from steiner_tui.providers.offline.textutil import heuristic_tokens

__all__ = [
    "extractive_summary",
    "is_compaction_request",
    "summarize_request",
]

_STOP_TEXT = "about focus keep mostly only please that them they this what with"
_STOP = frozenset(_STOP_TEXT.split())


def _render(items: Sequence[Item]) -> str:
    sections: list[list[str]] = [[] for _ in SECTION_HEADINGS]
    for item in items:
        sections[item.section].append(item.text)
    sections[STATE] = group_file_lines(sections[STATE])
    blocks = [
        "\n".join([heading, *(f"- {line}" for line in lines or [NONE_RECORDED])])
        for heading, lines in zip(SECTION_HEADINGS, sections, strict=True)
    ]
    return "\n\n".join([SUMMARY_NOTE, *blocks]) + "\n"


def _fits(text: str, budget: int) -> bool:
    return heuristic_tokens(len(text)) <= budget


def _fit(items: list[Item], budget: int) -> str:
    """Drop items (lowest rank, then oldest) until the rendering fits ``budget`` tokens."""
    full = _render(items)
    if _fits(full, budget):
        return full
    drop_order = sorted(range(len(items)), key=lambda i: (items[i].rank, items[i].order))

    def without(count: int) -> str:
        dropped = set(drop_order[:count])
        return _render([item for i, item in enumerate(items) if i not in dropped])

    low, high = 1, len(items)
    while low < high:
        middle = (low + high) // 2
        if _fits(without(middle), budget):
            high = middle
        else:
            low = middle + 1
    return without(low)


def _steer(items: list[Item], steering: str) -> list[Item]:
    words = {w.lower() for w in re.findall(r"[A-Za-z_][\w./-]{3,}", steering)} - _STOP
    if not words:
        return items
    return [
        Item(item.section, item.text, min(6, item.rank + 1), item.order)
        if any(w in item.text.lower() for w in words)
        else item
        for item in items
    ]


def extractive_summary(
    messages: Sequence[Message], *, max_tokens: int, emergency: bool, steering: str = ""
) -> str:
    """Summarize ``messages`` into the eight required sections.

    Args:
        messages: the transcript to summarize (system-zone messages are ignored except a
            previous summary, which is carried forward with its history note lines removed).
        max_tokens: the output budget (heuristic tokens, 4 characters each). When even the
            bare headings exceed it, the headings are still returned.
        emergency: halve the budget (the emergency stage asks for a shorter summary).
        steering: manual ``/compact`` steering text; bullets mentioning its words rank higher.

    Returns:
        Markdown with every heading of ``SECTION_HEADINGS`` in order.
    """
    budget = max_tokens // 2 if emergency else max_tokens
    items = _steer(collect_items(messages).items, steering)
    return _fit(items, budget)


def _last_user(request: ChatRequest) -> int | None:
    for index in range(len(request.messages) - 1, -1, -1):
        if request.messages[index].role == "user":
            return index
    return None


def is_compaction_request(request: ChatRequest) -> bool:
    """True for summary calls: the flag is set, or the last user message is the instruction."""
    index = _last_user(request)
    return request.compaction or (
        index is not None and SUMMARY_MARKER in request.messages[index].content
    )


def summarize_request(request: ChatRequest) -> str:
    """Answer a compaction request: summarize everything before its final instruction.

    The instruction is the last user message when it carries the section headings, or when
    the request is flagged as compaction and ends with a user message.
    """
    messages = request.messages
    index = _last_user(request)
    instruction = ""
    if index is not None and (
        SUMMARY_MARKER in messages[index].content
        or (request.compaction and index == len(messages) - 1)
    ):
        instruction = messages[index].content
        messages = messages[:index]
    steering = ""
    if STEERING_MARKER in instruction:
        steering = instruction.split(STEERING_MARKER, 1)[1]
        # The emergency template follows the steering text; it is not steering.
        cut = steering.lower().find(EMERGENCY_MARKER)
        steering = (steering[:cut] if cut >= 0 else steering).strip()
    return extractive_summary(
        messages,
        max_tokens=request.max_tokens,
        emergency=EMERGENCY_MARKER in instruction.lower(),
        steering=steering,
    )
