"""The offline extractive summarizer: a real eight-section summary without a language model.

``extractive_summary`` is a pure function of the transcript. It quotes user requests, files
touched, commands run, errors seen, decisions, stated facts, preferences and open work (see
``extract.py``; filler and the model's own replies are never sources), carries a previous
summary's bullets forward (``carry.py``), and fits the output to the cap the request carries
(``fitting.py``: routine bullets condensed, then the least important, oldest ones left out and
counted, every heading kept).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from steiner_tui.engine.messages import Message
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.offline.extract import Item, collect_items
from steiner_tui.providers.offline.fitting import fit_summary
from steiner_tui.providers.offline.markers import (
    EMERGENCY_MARKER,
    STEERING_MARKER,
    SUMMARY_MARKER,
)

__all__ = [
    "extractive_summary",
    "is_compaction_request",
    "summarize_request",
]

_STOP_TEXT = "about focus keep mostly only please that them they this what with"
_STOP = frozenset(_STOP_TEXT.split())


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
        max_tokens: the output cap (heuristic tokens, 4 characters each). When even the
            bare headings exceed it, the headings are still returned.
        emergency: halve the budget (the emergency stage asks for a shorter summary).
        steering: manual ``/compact`` steering text; bullets mentioning its words rank higher.

    Returns:
        Markdown with every heading of ``SECTION_HEADINGS`` in order.
    """
    budget = max_tokens // 2 if emergency else max_tokens
    extraction = collect_items(messages)
    return fit_summary(_steer(extraction.items, steering), budget, extraction.left_out)


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
