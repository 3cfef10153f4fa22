"""Fact extraction for the offline summarizer: what a transcript says, sorted into sections.

Every fact becomes an ``Item``: its section, its bullet text, a rank (how long it survives a tight
budget) and its position (older items go first within a rank). Bullets of a previous summary are
read back as items so facts survive repeated compactions; equal facts merge by key (a file's verbs
are united, a command keeps its latest outcome).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.providers.offline.filelines import FILE_LINE, GROUP_LINE
from steiner_tui.providers.offline.markers import HISTORY_NOTE_MARKER, SUMMARY_MARKER
from steiner_tui.providers.offline.patterns import Kind, classify_sentence, is_test_command
from steiner_tui.providers.offline.textutil import (
    find_paths,
    is_context_block,
    norm_key,
    sentences,
    trim,
    user_text,
)
from steiner_tui.providers.offline.toolresults import exit_code, failure_lines, parse_tool_output

__all__ = ["NONE_RECORDED", "Item", "collect_items"]

TASK, STATE, DONE, FINDINGS, PROBLEMS, REMAINING, VERIFY, PREFS = range(8)
NONE_RECORDED = "None recorded."
SENTENCE_LIMIT = 220
REQUEST_LIMIT = 240
_ORIGINAL = "Original request: "
_UNANSWERED = "Unanswered: "
_FILE_VERBS = {"read": "read", "write": "written", "edit": "edited"}
_VERB_ORDER = ("created", "written", "edited", "read", "mentioned")
_CARRIED_RANK = (3, 2, 3, 4, 3, 3, 3, 5)
_OWN_NOTES = ("_I am the offline model", "I received ")
_USER_SECTIONS = {
    Kind.PREFERENCE: (PREFS, 5),
    Kind.DECISION: (FINDINGS, 4),
    Kind.PROBLEM: (PROBLEMS, 4),
    Kind.TODO: (REMAINING, 4),
    Kind.VERIFICATION: (VERIFY, 4),
    Kind.FACT: (FINDINGS, 4),
}
_ASSISTANT_SECTIONS = {
    Kind.DECISION: (FINDINGS, 4),
    Kind.PROBLEM: (PROBLEMS, 3),
    Kind.TODO: (REMAINING, 3),
    Kind.VERIFICATION: (VERIFY, 3),
    Kind.DONE: (DONE, 1),
}


@dataclass(frozen=True, slots=True)
class Item:
    """One bullet of the summary."""

    section: int
    """Index into ``SECTION_HEADINGS``."""
    text: str
    rank: int
    """1 (dropped first) to 5 (user preferences and the original task)."""
    order: int
    """Transcript position; carried-over bullets are negative (older than anything new)."""


def _key(section: int, text: str) -> str:
    if text.startswith("`"):
        end = text.find("`", 1)
        if end > 0:
            return f"{section}:{text[1:end]}"
    return f"{section}:{norm_key(text)}"


def _carried_rank(section: int, bullet: str) -> int:
    """The rank a carried-over bullet gets back, from its section and its form."""
    if section == TASK:
        return 5 if bullet.startswith(_ORIGINAL) else 3
    if section == DONE:
        return 3 if bullet.startswith("`") else 1
    if section in (PROBLEMS, REMAINING, VERIFY):
        return 4 if bullet.startswith("User: ") else 3
    return _CARRIED_RANK[section]


class _Facts:
    """Mutable collector: merges items by key and files by path."""

    def __init__(self) -> None:
        self.items: dict[str, Item] = {}
        self.files: dict[str, tuple[list[str], int, int]] = {}
        self.has_original = False

    def add(self, section: int, text: str, rank: int, order: int) -> None:
        key = _key(section, text)
        old = self.items.pop(key, None)
        self.items[key] = Item(section, text, max(rank, old.rank if old else 0), order)

    def file(self, path: str, verb: str, rank: int, order: int) -> None:
        verbs, old_rank, _ = self.files.pop(path, ([], 0, 0))
        if verb not in verbs:
            verbs.append(verb)
        self.files[path] = (verbs, max(rank, old_rank), order)

    def absorb_summary(self, text: str, order: int) -> int:
        """Read a previous summary's bullets back as items; returns the next free position."""
        section = -1
        for raw in text.splitlines():
            line = raw.strip()
            heading = re.match(r"^##\s*(\d)\.", line)
            if heading:
                section = int(heading.group(1)) - 1
                continue
            bullet = re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", line)
            if not 0 <= section < 8 or not bullet or bullet.startswith("#"):
                continue
            # Stale "unanswered" notes are re-derived; the request itself stays in section 1.
            if bullet == NONE_RECORDED or bullet.startswith((HISTORY_NOTE_MARKER, _UNANSWERED)):
                continue
            order += 1
            if section == STATE and self._absorb_files(bullet, order):
                continue
            if section == TASK and bullet.startswith(_ORIGINAL):
                self.has_original = True
            self.add(section, bullet, _carried_rank(section, bullet), order)
        return order

    def _absorb_files(self, bullet: str, order: int) -> bool:
        group = GROUP_LINE.match(bullet)
        single = FILE_LINE.match(bullet)
        if group:
            paths = [group.group(1) + name for name in re.findall(r"`([^`]+)`", group.group(3))]
            verbs_text = group.group(2)
        elif single:
            paths, verbs_text = [single.group(1)], single.group(2) or "mentioned"
        else:
            return False
        verbs = [v.strip() for v in verbs_text.split(",")]
        rank = 3 if {"created", "written", "edited"} & set(verbs) else 2
        for path in paths:
            for verb in verbs:
                self.file(path, verb, rank, order)
        return True

    def result(self) -> list[Item]:
        out = list(self.items.values())
        for path, (verbs, rank, order) in self.files.items():
            kept = [v for v in _VERB_ORDER if v in verbs and (v != "mentioned" or len(verbs) == 1)]
            kept += [v for v in verbs if v not in _VERB_ORDER]
            out.append(Item(STATE, f"`{path}` ({', '.join(kept)})", rank, order))
        return sorted(out, key=lambda item: (item.section, item.order))


def _user(facts: _Facts, text: str, order: int) -> str:
    """Add a user message's facts; returns its request part (the unclassified sentences)."""
    rest: list[str] = []
    for sentence in sentences(text):
        kind = classify_sentence(sentence, by_user=True)
        if kind is None or kind not in _USER_SECTIONS:
            rest.append(sentence)
            continue
        section, rank = _USER_SECTIONS[kind]
        body = trim(sentence, SENTENCE_LIMIT)
        facts.add(section, body if section == PREFS else f"User: {body}", rank, order)
    request = " ".join(rest)
    if not facts.has_original and request:
        # The first request is the task: quoted whole, so its context survives.
        facts.add(TASK, f'{_ORIGINAL}"{trim(text, REQUEST_LIMIT)}"', 5, order)
        facts.has_original = True
    elif len(request) >= 12:
        facts.add(TASK, f'User asked: "{trim(request, REQUEST_LIMIT)}"', 3, order)
    for path in find_paths(text):
        facts.file(path, "mentioned", 2, order)
    return request


def _assistant(facts: _Facts, message: Message, order: int) -> None:
    for sentence in sentences(message.content):
        if sentence.startswith(_OWN_NOTES):
            continue
        kind = classify_sentence(sentence, by_user=False)
        if kind in _ASSISTANT_SECTIONS:
            section, rank = _ASSISTANT_SECTIONS[kind]
            facts.add(section, f"Assistant: {trim(sentence, SENTENCE_LIMIT)}", rank, order)
    for path in find_paths(message.content):
        facts.file(path, "mentioned", 1, order)
    for call in message.tool_calls:
        path, pattern = _text_arg(call, "path"), _text_arg(call, "pattern")
        if path and call.name in _FILE_VERBS:
            verb = _FILE_VERBS[call.name]
            facts.file(path, verb, 2 if verb == "read" else 3, order)
        elif call.name in ("glob", "grep") and pattern:
            where = f" in `{path}`" if path else ""
            facts.add(DONE, f"Searched ({call.name}) for `{trim(pattern, 80)}`{where}", 1, order)


def _text_arg(call: ToolCall, key: str) -> str:
    value = (call.arguments or {}).get(key)
    return value if isinstance(value, str) else ""


def _command_text(call: ToolCall) -> str:
    return trim(_text_arg(call, "command").replace("`", "'"), 160)


def _tool_result(facts: _Facts, call: ToolCall | None, message: Message, order: int) -> None:
    result = parse_tool_output(message.content)
    name = call.name if call else (message.name or "tool")
    command = _command_text(call) if call else ""
    if command:
        code = exit_code(message.content, result.meta)
        outcome = f" (exit {code})" if code is not None else (" (failed)" if result.failed else "")
        section = VERIFY if is_test_command(command) else DONE
        facts.add(section, f"`{command}`{outcome}", 3, order)
    if name in ("read", "glob", "grep") and not result.failed:
        return
    lines = failure_lines(result.text) if (result.failed or command) else []
    if result.failed and not lines:
        lines = [next((x for x in result.text.splitlines() if x.strip()), "failed")]
    target = _text_arg(call, "path") if call else ""
    subject = f"`{command}`" if command else f"{name} `{target}`" if target else name
    for line in lines:
        facts.add(PROBLEMS, f"{subject} failed: {trim(line, 160)}", 3, order)


def collect_items(messages: Sequence[Message]) -> list[Item]:
    """Extract summary items from ``messages`` (provider-projected or stored form).

    Previous summaries (system or summary role, eight-section layout) are carried forward;
    other system messages, assembled context blocks, sub-agent results and the summary
    instruction itself are skipped.

    Args:
        messages: the transcript to summarize.

    Returns:
        Items sorted by section, then transcript order.
    """
    facts = _Facts()
    order = -len(messages) * 1000
    for message in messages:
        if message.role in ("system", "summary") and SUMMARY_MARKER in message.content:
            order = facts.absorb_summary(message.content, order)
    calls: dict[str, ToolCall] = {}
    last_request: tuple[int, str] | None = None
    for order, message in enumerate(messages):
        if message.role == "user" and not is_context_block(message):
            text = user_text(message.content)
            if text and message.source != SUB_AGENT_RESULT_SOURCE and SUMMARY_MARKER not in text:
                request = _user(facts, text, order)
                # A message of preferences or facts only asks for nothing.
                last_request = (order, request) if request else last_request
        elif message.role == "assistant":
            calls.update((call.id, call) for call in message.tool_calls)
            _assistant(facts, message, order)
            if message.content.strip() and not message.tool_calls:
                last_request = None
        elif message.role == "tool":
            _tool_result(facts, calls.get(message.tool_call_id), message, order)
    if last_request is not None:
        text = trim(last_request[1], REQUEST_LIMIT)
        facts.add(REMAINING, f'{_UNANSWERED}"{text}"', 4, last_request[0])
    return facts.result()
