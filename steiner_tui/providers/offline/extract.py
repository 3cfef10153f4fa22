"""Fact extraction for the offline summarizer: what a transcript says, sorted into sections.

User sentences are classified (``patterns.py``) into decisions, open work, problems,
verification, preferences and stated facts; what is left of a message is its request. Tool calls
say which files were read or changed and which commands ran; tool results say how they ended and
which errors they printed. A previous summary is read back first (``carry.py``).

Two things are never a source. Filler (``filler.py``: lorem ipsum, repeated text, separator
lines) never becomes a bullet. The offline model's own replies (found by its markers,
``markers.is_own_reply``) are canned text or echoes of the user, so only their tool calls count:
no path from the disclaimer, no "You wrote: ..." quoted back as the assistant's decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from steiner_tui.engine.compaction.room import OMITTED_MARKER
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.providers.offline.carry import ORIGINAL, UNANSWERED, absorb_summary
from steiner_tui.providers.offline.facts import (
    ASSISTANT_SECTIONS,
    DONE,
    FINDINGS,
    NONE_RECORDED,
    PREFS,
    PROBLEMS,
    REMAINING,
    TASK,
    USER_SECTIONS,
    VERIFY,
    Facts,
    Item,
    command_rank,
)
from steiner_tui.providers.offline.filler import is_filler
from steiner_tui.providers.offline.markers import SUMMARY_MARKER, is_own_reply
from steiner_tui.providers.offline.patterns import (
    classify_sentence,
    is_test_command,
    is_traceback_noise,
)
from steiner_tui.providers.offline.textutil import (
    code_blocks,
    find_paths,
    is_context_block,
    sentences,
    trim,
    user_text,
)
from steiner_tui.providers.offline.toolresults import (
    error_lines,
    exit_code,
    failure_lines,
    parse_tool_output,
)

__all__ = ["NONE_RECORDED", "Extraction", "Item", "collect_items"]

SENTENCE_LIMIT = 220
REQUEST_LIMIT = 240
_FILE_VERBS = {"read": "read", "write": "written", "edit": "edited"}


class Extraction(msgspec.Struct, frozen=True):
    """What a transcript yields: the items, and what earlier summaries left out per section."""

    items: list[Item]
    left_out: tuple[int, ...]
    """Entries that earlier summaries' caps left out, per section."""


_PICK = re.compile(
    r"^\s*(?:i'?ll take |let's (?:go with |take )?|go with |(?:take |pick )?option )?(?:the\s+)?"
    r"(?P<which>first|second|third|fourth|last|1st|2nd|3rd|4th|[1-6]|[a-f])"
    r"(?:\s+(?:one|option))?\s*(?:[.!,:;)]+|\s+-+|\s*—|$)\s*(?P<why>.*)$",
    re.I | re.S,
)
_PLACES = {"first": 0, "1st": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3}
_PLACES |= {"4th": 3, "last": -1}
_ENUMERATED = re.compile(r"(?:^|\s)\(?(?:[1-6]|[a-f])\)\s+")
"""An option's marker inside a sentence: "(1) ...", "b) ..."."""


def offered_options(text: str) -> list[str]:
    """The options an assistant message offers: its enumerated items ("(1) ..., or (2) ...")
    when it numbers them, else the list after its last colon ("Two options: a Redis cache,
    or an in-memory LRU.")."""
    marks = list(_ENUMERATED.finditer(text))
    if len(marks) >= 2:
        ends = [m.start() for m in marks[1:]] + [len(text)]
        parts = [text[m.end() : end] for m, end in zip(marks, ends, strict=True)]
        options = [re.sub(r"(?:,?\s+or|,)\s*$", "", p.strip()).strip().rstrip(".?!") for p in parts]
        return options if all(options) and len(options) <= 6 else []
    if ":" not in text:
        return []
    tail = text.rsplit(":", 1)[1].strip().rstrip(".?!")
    parts = re.split(r",\s*(?:or\s+)?|\s+or\s+|;\s*|\n\s*[-*\d.)]+\s*", tail)
    options = [p.strip() for p in parts if p.strip()]
    return options if 2 <= len(options) <= 6 else []


def _place(which: str) -> int:
    """The index a pick names: an ordinal word, a number (1-based) or a letter (a = 0)."""
    which = which.lower()
    if which in _PLACES:
        return _PLACES[which]
    return int(which) - 1 if which.isdigit() else ord(which) - ord("a")


def _picked(facts: Facts, text: str, offer: str, order: int) -> bool:
    """A pick ("the first one", "go with 2", "b - it is smaller") resolved against the options
    offered just before: a decision, with the reason the user gave after it."""
    match = _PICK.match(text)
    options = offered_options(offer) if match else []
    if not match or not options:
        return False
    place = _place(match.group("which"))
    if place >= len(options):
        return False
    choice, why = options[place], " ".join(match.group("why").split())
    said = text.strip() if not why else text.strip()[: match.start("why")].strip(" .!,:;-—")
    listed = ", ".join(options)
    reason = f" because {trim(why, SENTENCE_LIMIT)}" if why else ""
    facts.add(FINDINGS, f'User: chose {choice}{reason} ("{said}" of: {listed})', 5, order)
    return True


def _user(facts: Facts, text: str, order: int, offer: str = "") -> str:
    """Add a user message's facts; returns its request part (the unclassified sentences)."""
    if _picked(facts, text, offer, order):
        return ""
    rest: list[str] = []
    said: list[str] = []
    for sentence in sentences(text):
        if is_filler(sentence) or is_traceback_noise(sentence):
            continue
        said.append(sentence)
        kind = classify_sentence(sentence, by_user=True)
        if kind is None:
            # "Here is the log:" introduces what follows; it asks for nothing by itself.
            if not sentence.endswith(":"):
                rest.append(sentence)
            continue
        section, rank = USER_SECTIONS[kind]
        body = trim(sentence, SENTENCE_LIMIT)
        facts.add(section, body if section == PREFS else f"User: {body}", rank, order)
    # Pasted output: its error lines are problems; the rest is the user's evidence, not facts.
    for block in code_blocks(text):
        for line in error_lines(block):
            facts.add(PROBLEMS, f"User: {trim(line, SENTENCE_LIMIT)}", 5, order)
    request = " ".join(rest)
    if not facts.has_original and request:
        # The first request is the task: quoted whole (without filler), so its context survives.
        facts.add(TASK, f'{ORIGINAL}"{trim(" ".join(said), REQUEST_LIMIT)}"', 6, order)
        facts.has_original = True
    elif len(request) >= 12:
        facts.add(TASK, f'User asked: "{trim(request, REQUEST_LIMIT)}"', 3, order)
    for path in find_paths(text):
        facts.file(path, "mentioned", order, by_user=True)
    return request


def _assistant(facts: Facts, message: Message, order: int) -> None:
    if not is_own_reply(message):
        for sentence in sentences(message.content):
            if is_filler(sentence):
                continue
            kind = classify_sentence(sentence, by_user=False)
            if kind in ASSISTANT_SECTIONS:
                section, rank = ASSISTANT_SECTIONS[kind]
                facts.add(section, f"Assistant: {trim(sentence, SENTENCE_LIMIT)}", rank, order)
        for path in find_paths(message.content):
            facts.file(path, "mentioned", order)
    for call in message.tool_calls:
        path, pattern = _text_arg(call, "path"), _text_arg(call, "pattern")
        if path and call.name in _FILE_VERBS:
            facts.file(path, _FILE_VERBS[call.name], order)
        elif call.name in ("glob", "grep") and pattern:
            where = f" in `{path}`" if path else ""
            facts.add(DONE, f"Searched ({call.name}) for `{trim(pattern, 80)}`{where}", 1, order)


def _text_arg(call: ToolCall, key: str) -> str:
    value = (call.arguments or {}).get(key)
    return value if isinstance(value, str) else ""


def _tool_result(facts: Facts, call: ToolCall | None, message: Message, order: int) -> None:
    result = parse_tool_output(message.content)
    name = call.name if call else (message.name or "tool")
    command = trim(_text_arg(call, "command").replace("`", "'"), 160) if call else ""
    if command:
        code = exit_code(message.content, result.meta)
        outcome = f" (exit {code})" if code is not None else (" (failed)" if result.failed else "")
        section = VERIFY if is_test_command(command) else DONE
        facts.add(section, f"`{command}`{outcome}", command_rank(result.failed), order)
    if not result.failed and (name in ("read", "glob", "grep") or not command):
        return
    # A command that worked may still print a traceback it survived; other output is not news.
    lines = failure_lines(result.text) if result.failed else error_lines(result.text)
    if result.failed and not lines:
        lines = [next((x for x in result.text.splitlines() if x.strip()), "failed")]
    target = _text_arg(call, "path") if call else ""
    subject = f"`{command}`" if command else f"{name} `{target}`" if target else name
    for line in lines:
        facts.add(PROBLEMS, f"{subject} failed: {trim(line, 160)}", 4, order)


def _left_out_before(facts: Facts, text: str, order: int) -> str:
    """``text`` without the engine's note that the oldest turns were left out of the summary
    request before it (``OMITTED_MARKER``), which becomes the task's first bullet instead of
    an "Original request" that is not the session's first."""
    match = _LEFT_OUT.match(text.removeprefix(OMITTED_MARKER))
    if not text.startswith(OMITTED_MARKER) or match is None:
        return text
    count, noun, turns = match.group("count", "noun", "turns")
    verb = "are" if turns.startswith("turns") else "is"
    said = f"{turns[0].upper()}{turns[1:]} ({count} {noun}) {verb} not in this summary"
    facts.add(
        TASK, f"{said}: left out of its request to fit it; the history archive has them", 6, order
    )
    facts.has_original = True  # the first request seen is not the first
    return text[len(OMITTED_MARKER) + match.end() :].strip()


_LEFT_OUT = re.compile(
    r"the (?P<count>[\d,]+) (?P<noun>messages?) before this one \((?P<turns>turns? [\d-]+)\)"
    r"[^\]]*\]"
)
"""The rest of ``room.omitted_note`` after its marker."""


def collect_items(messages: Sequence[Message]) -> Extraction:
    """Extract summary items from ``messages`` (provider-projected or stored form).

    Previous summaries (system or summary role, eight-section layout) are carried forward;
    other system messages, assembled context blocks, sub-agent results and the summary
    instruction itself are skipped.

    Args:
        messages: the transcript to summarize.

    Returns:
        Items sorted by section, then transcript order, and the earlier summaries' left-out
        counts.
    """
    facts = Facts()
    order = -len(messages) * 1000
    for message in messages:
        if message.role in ("system", "summary") and SUMMARY_MARKER in message.content:
            order = absorb_summary(facts, message.content, order)
    calls: dict[str, ToolCall] = {}
    last_request: tuple[int, str] | None = None
    offer = ""
    for order, message in enumerate(messages):
        if message.role == "user" and not is_context_block(message):
            text = _left_out_before(facts, user_text(message.content), order)
            if text and message.source != SUB_AGENT_RESULT_SOURCE and SUMMARY_MARKER not in text:
                request = _user(facts, text, order, offer)
                offer = ""
                # A message of preferences or facts only asks for nothing.
                last_request = (order, request) if request else last_request
        elif message.role == "assistant":
            calls.update((call.id, call) for call in message.tool_calls)
            _assistant(facts, message, order)
            if message.content.strip() and not is_own_reply(message):
                offer = message.content
            if message.content.strip() and not message.tool_calls:
                last_request = None
        elif message.role == "tool":
            _tool_result(facts, calls.get(message.tool_call_id), message, order)
    if last_request is not None:
        text = trim(last_request[1], REQUEST_LIMIT)
        facts.add(REMAINING, f'{UNANSWERED}"{text}"', 5, last_request[0])
    return Extraction(facts.result(), tuple(facts.left_out))
