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
from steiner_tui.engine.state.artifacts import LEDGER_HEADING, ArtifactLedger, build_ledger
from steiner_tui.providers.offline.extract import Item, collect_items
from steiner_tui.providers.offline.facts import FINDINGS, PROBLEMS, REMAINING, STATE
from steiner_tui.providers.offline.filelines import FILE_LINE
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
_FOCUS_FIRST = 10**9
"""Subtracted from a focus bullet's position, so it sorts before the rest of its section."""


def _steer(items: list[Item], steering: str) -> list[Item]:
    """The ``/compact`` focus first: bullets naming its words lead their sections and are the
    last to give way to the cap."""
    words = {w.lower() for w in re.findall(r"[A-Za-z_][\w./-]{3,}", steering)} - _STOP
    if not words:
        return items
    return [
        Item(item.section, item.text, 6, item.order - _FOCUS_FIRST)
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
    # A carried summary arrives as a system message: its ledger is the history so far.
    carried = [m.content for m in messages if m.role in ("system", "summary")]
    previous = ArtifactLedger.parse(next((c for c in reversed(carried) if LEDGER_HEADING in c), ""))
    items = _settled(extraction.items, build_ledger(messages, previous, limit=None))
    steered = sorted(_steer(items, steering), key=lambda item: (item.section, item.order))
    return fit_summary(steered, budget, extraction.left_out)


def _settled(items: list[Item], ledger: ArtifactLedger) -> list[Item]:
    """``items`` with what the engine's artifact ledger says is over taken out or updated: a
    superseded decision, a TODO done since, a failure of a command that passes now; a
    reverted or deleted file says so (a summary never shows an old state as current)."""
    over = {
        (e.kind, e.key.lower()[:60])
        for e in ledger.entries
        if e.state in ("superseded", "done") or (e.kind == "command" and e.state == "exit 0")
    }
    gone = {e.key: e.state for e in ledger.entries if e.state in ("reverted", "deleted")}
    superseded = {(k, key) for k, key in over if k == "decision"}
    out = []
    for item in items:
        text = item.text.lower()
        if (
            item.section == FINDINGS and any(k == "decision" and key in text for k, key in over)
        ) or (item.section == REMAINING and any(k == "todo" and key in text for k, key in over)):
            continue
        if item.section == PROBLEMS and any(
            k == "command" and f"`{key}` failed" in text for k, key in over
        ):
            continue
        if any(k == "decision" and key in text for k, key in superseded):
            # a replaced choice quoted elsewhere (a request, open work) says it is over
            item = Item(item.section, f"{item.text} (superseded)", item.rank, item.order)
        match = FILE_LINE.match(item.text)
        if item.section == STATE and match and match.group(1) in gone:
            path = match.group(1)
            item = Item(item.section, f"`{path}` ({gone[path]})", item.rank, item.order)
        out.append(item)
    return out


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
