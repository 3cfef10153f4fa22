"""The offline model's answering policy: which read-only tools to call, and when to answer.

On a new user message the intent (see ``intent.py``) decides the tool calls; once results come
back the answer is written from them. At most ``MAX_TOOL_ROUNDS`` tool rounds follow one user
message, so the loop always ends. Every final answer says once that this is the offline model and
how to configure a real one, and what context it received.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgspec

from steiner_tui.engine.jsonenc import go_json
from steiner_tui.engine.messages import Message, ToolCall, is_real_user_message
from steiner_tui.engine.prompt.agents_md import agents_md_paths
from steiner_tui.engine.provider import ChatRequest
from steiner_tui.providers.offline.intent import MAX_FILES, Intent, classify, notable_files
from steiner_tui.providers.offline.markers import (
    OFFLINE_NOTE_MARKER,
    OWN_CALL_PREFIX,
    SUMMARY_MARKER,
)
from steiner_tui.providers.offline.textutil import (
    SESSION_DATE_SUFFIX,
    heuristic_tokens,
    is_context_block,
    prompt_chars,
    user_text,
)
from steiner_tui.providers.offline.toolresults import glob_entries
from steiner_tui.providers.offline.writeup import (
    Exchange,
    chat_answer,
    earlier_reads,
    file_answer,
    located,
    located_answer,
    overview_answer,
    search_answer,
)
from steiner_tui.units import counted

__all__ = ["HONESTY_NOTE", "MAX_TOOL_ROUNDS", "OVERVIEW_GLOB", "Reply", "context_line", "reply_to"]

MAX_TOOL_ROUNDS = 2
OVERVIEW_GLOB = "**"
HONESTY_NOTE = (
    f"{OFFLINE_NOTE_MARKER} For real answers set "
    "`ANTHROPIC_API_KEY` or `OPENAI_API_KEY`, or point config.toml at a local "
    "OpenAI-compatible server (`base_url`)._"
)


class Reply(msgspec.Struct, frozen=True):
    """What the model says this time: text, plus tool calls when it wants another round."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()


def _latest_user(messages: Sequence[Message]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if is_real_user_message(message) and not is_context_block(message):
            return index
    return None


def _exchanges(after: Sequence[Message]) -> tuple[int, list[Exchange]]:
    results = {m.tool_call_id: m.content for m in after if m.role == "tool"}
    rounds = 0
    out: list[Exchange] = []
    for message in after:
        if message.role == "assistant" and message.tool_calls:
            rounds += 1
            out += [(call, results.get(call.id)) for call in message.tool_calls]
    return rounds, out


def _calls(specs: list[tuple[str, dict[str, Any]]], prefix: str) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(id=f"{prefix}_{i}", name=name, arguments=args, raw_arguments=go_json(args))
        for i, (name, args) in enumerate(specs)
    )


def _next_round(
    intent: Intent, done: list[Exchange], tools: set[str], root: Path
) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """The lead-in text and tool calls of the next round (no calls: time to answer)."""
    called = {call.name for call, _ in done}
    if intent.kind == "search" and "grep" in tools and not called:
        args = {"pattern": intent.pattern}
        if intent.search_path:
            args["path"] = intent.search_path
        return f"Searching the project for `{intent.pattern}`.", [("grep", args)]
    if intent.kind == "file" and "read" in tools and not called:
        names = ", ".join(f"`{p}`" for p in intent.paths)
        return f"Reading {names}.", [("read", {"path": p}) for p in intent.paths]
    if intent.kind == "locate":
        return _locate_round(intent, done, tools, called)
    if intent.kind not in ("overview", "folder"):
        return "", []
    folder = intent.paths[0] if intent.kind == "folder" else ""
    if "glob" in tools and not called:
        # "*" lists only top-level files; "**" also shows every directory (up to the cap).
        if folder:
            return f"Listing `{folder}/`.", [("glob", {"pattern": OVERVIEW_GLOB, "path": folder})]
        return "Listing the project's files.", [("glob", {"pattern": OVERVIEW_GLOB})]
    if "read" in tools and "read" not in called:
        entries = [e for call, c in done if call.name == "glob" and c for e in glob_entries(c)]
        files = notable_files(entries, root, folder)
        if files:
            names = ", ".join(f"`{f}`" for f in files)
            return f"Reading {names}.", [("read", {"path": f}) for f in files]
    return "", []


def _locate_round(
    intent: Intent, done: list[Exchange], tools: set[str], called: set[str]
) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """Look for bare names in the whole project (``glob``), then read each found exactly once."""
    if "glob" in tools and not called:
        *rest, last = [f"`{p}`" for p in intent.paths]
        names = f"{', '.join(rest)} and {last}" if rest else last
        verb, them = ("is", "it") if not rest else ("are", "them")
        lead = f"{names} {verb} not at the project root: looking for {them} in the whole project."
        return lead, [("glob", {"pattern": f"**/{name}"}) for name in intent.paths]
    if "read" in tools and "read" not in called:
        found = [entries[0] for entries in located(done).values() if entries and len(entries) == 1]
        if found:
            names = ", ".join(f"`{p}`" for p in found)
            return f"Reading {names}.", [("read", {"path": p}) for p in found]
    return "", []


def _is_summary(m: Message) -> bool:
    return m.role == "system" and SUMMARY_MARKER in m.content


_SKILL_FRAMING = "## Enabled skills\n"
"""How exec's skill framing block starts (``templates/preamble_skill_framing.md.j2``)."""


def _project_context_in(message: Message) -> bool:
    # Consecutive user blocks merge into one message that keeps no source: project context,
    # then exec's skill framing, then the session date line. What precedes both is the context.
    text = message.content
    if text.endswith(SESSION_DATE_SUFFIX):
        text = text.rpartition("\n")[0]
    return bool(text.partition(_SKILL_FRAMING)[0].strip())


AGENTS_MD_LIMIT = 1_000_000
"""The largest project AGENTS.md looked for in a request (the engine sends it whole)."""


def _project_agents_md(root: Path | None) -> str:
    """The project's AGENTS.md text, stripped ("" when there is none or it cannot be read)."""
    _, path = agents_md_paths(None, root)
    if path is None:
        return ""
    try:
        with path.open("rb") as file:
            return file.read(AGENTS_MD_LIMIT).decode("utf-8", "replace").strip()
    except OSError:
        return ""


_SOURCE_CHECKS: tuple[tuple[str, Callable[[Message, bool], bool]], ...] = (
    ("system instructions", lambda m, _: m.role == "system" and not _is_summary(m)),
    ("a summary of earlier conversation", lambda m, _: _is_summary(m)),
    ("project context", lambda m, block: block and m.role == "user" and _project_context_in(m)),
    ("the session date", lambda m, _: m.role == "user" and SESSION_DATE_SUFFIX in m.content),
    (
        "active skills",
        lambda m, block: (
            m.role == "user"
            and ("<steiner-skill " in m.content or (block and _SKILL_FRAMING in m.content))
        ),
    ),
)
"""Which context sources a request visibly carries, checked per message (and whether it is one
of the request's block messages, its first ``cacheable_prefix_messages``)."""


def context_line(
    messages: Sequence[Message], block_messages: int = 0, root: Path | None = None
) -> str:
    """One sentence on what this request carried: message count, tokens, roles and sources
    (``block_messages``: how many leading messages are assembled context blocks; ``root``: the
    project, whose AGENTS.md is named when a system message carries its text)."""
    tokens = heuristic_tokens(prompt_chars(messages))
    roles = Counter(m.role for m in messages)
    role_text = ", ".join(
        f"{roles[r]} {r}" for r in ("system", "user", "assistant", "tool") if r in roles
    )
    sources = [
        label
        for label, check in _SOURCE_CHECKS
        if any(check(m, i < block_messages) for i, m in enumerate(messages))
    ]
    # AGENTS.md merges into the system message with no heading of its own: found by its text.
    agents = _project_agents_md(root)
    if agents and any(m.role == "system" and agents in m.content for m in messages):
        sources.insert(1 if sources[:1] == ["system instructions"] else 0, "AGENTS.md")
    seen = f" Visible sources: {', '.join(sources)}." if sources else ""
    received = f"{counted(len(messages), 'message')} (~{counted(tokens, 'token')})"
    return f"I received {received}: {role_text}.{seen}"


def reply_to(request: ChatRequest, root: Path) -> Reply:
    """Decide this turn's reply to ``request`` for the project at ``root``.

    Args:
        request: the normal (non-compaction) chat request.
        root: the project root the read-only tools work in.

    Returns:
        Tool calls with a short lead-in while rounds remain and the intent needs them,
        otherwise the final answer.
    """
    messages = request.messages
    index = _latest_user(messages)
    text = user_text(messages[index].content) if index is not None else ""
    intent = classify(text, root)
    rounds, done = _exchanges(messages[index + 1 :] if index is not None else ())
    tools = {t.name for t in request.tools}
    if rounds < MAX_TOOL_ROUNDS:
        lead, specs = _next_round(intent, done, tools, root)
        if specs:
            return Reply(lead, _calls(specs, f"{OWN_CALL_PREFIX}{len(messages)}"))
    earlier = earlier_reads(messages, done)
    if intent.kind in ("overview", "folder") and done:
        folder = intent.paths[0] if intent.kind == "folder" else ""
        body = overview_answer(done, root, folder, earlier)
    elif intent.kind == "file" and done:
        body = file_answer(done, earlier)
    elif intent.kind == "locate" and done:
        body = located_answer(done, earlier)
    elif intent.kind == "search" and done:
        body = search_answer(done)
    else:
        body = chat_answer(text, has_tools=bool(tools))
    # A name looked for in the whole project has its own line in ``located_answer``.
    looked_for = intent.paths if intent.kind == "locate" and done else ()
    missing = [p for p in intent.missing if p not in looked_for]
    if missing:
        names = ", ".join(f"`{p}`" for p in missing)
        body += f"\n\nNot found under the project root: {names}."
        if intent.kind != "locate" and "glob" in tools and any("/" not in p for p in missing):
            body += " Ask about a file name on its own and I will look for it in the project."
    if intent.outside:
        names = ", ".join(f"`{p}`" for p in intent.outside)
        body += f"\n\nOutside the project root, so not read: {names}."
    if intent.unread:
        names = ", ".join(f"`{p}`" for p in intent.unread)
        body += f"\n\nNot read this turn ({MAX_FILES} files at most): {names}."
    carried = context_line(messages, request.cacheable_prefix_messages, root)
    return Reply(f"{body}\n\n{carried}\n\n{HONESTY_NOTE}")
