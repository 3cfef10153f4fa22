"""Render summarized messages as the Markdown of ``history.md``, oldest first.

One ``### <Role>`` section per kept message, sections separated by a blank line:

* user text (envelopes replaced by one ``[active skill: <name>]`` line per activation) and
  ``[image: <media type>]`` placeholders;
* assistant text and one line per tool call: ``- ✓ <name> <args>`` when it succeeded,
  ``- ✗ <name> <args>`` when it failed, ``- ✗ <name> <args> (rejected)`` when the user refused
  it, ``- … <name> <args> (no result)`` when no result was recorded; a command's exit status
  follows as `` (exit N)``, and under the line the result's first non-blank lines, quoted
  (``  > <line>``, at most 5 of 160 characters), so a fact seen only in a tool's output can
  be found again (issue 31);
* summaries, without their history note lines.

Omitted: the rest of tool result bodies, reasoning, ``display_file`` calls, and sub-agent
result bodies (a ``### Sub-agent result`` heading with ``[body omitted]`` stands in for them).

Tool messages carry no status, so it is read by ``tool_status`` (injectable); the default is
the engine's one text-based guess (``engine.tool_results.default_tool_status``). The archive has
no mark for a cancelled call (docs/design.md, "10. The history archive"): one is marked done,
as its text always read, so the archive's bytes are those of the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from steiner_tui.engine.compaction.archive import remove_history_note_lines
from steiner_tui.engine.jsonenc import go_json
from steiner_tui.engine.messages import SUB_AGENT_RESULT_SOURCE, Message, ToolCall
from steiner_tui.engine.skills.envelopes import split_skill_blocks
from steiner_tui.engine.tool_results import EXIT_LINE, default_tool_status, exit_code

__all__ = ["OMITTED_TOOLS", "render_history", "summarize_call"]

OMITTED_TOOLS = frozenset({"display_file"})
_VALUE_LIMIT = 80
_MARKS = {"done": "✓", "failed": "✗", "rejected": "✗", "missing": "…"}
_SUFFIX = {"rejected": " (rejected)", "missing": " (no result)"}
_ARCHIVED_AS = {"cancelled": "done"}
"""Statuses the archive has no mark for, and the mark they get (the one their text gave)."""
_HEAD_LINES = 5
_HEAD_CHARS = 160

ToolStatusReader = Callable[[Message], str]


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else go_json(value)
    text = " ".join(text.split())
    return text if len(text) <= _VALUE_LIMIT else text[:_VALUE_LIMIT] + "..."


def summarize_call(call: ToolCall) -> str:
    """``name key=value, key=value`` (values whitespace-collapsed, cut at 80 characters)."""
    arguments: Mapping[str, Any] = call.arguments or {}
    args = ", ".join(f"{key}={_value(arguments[key])}" for key in arguments)
    return f"{call.name} {args}" if args else call.name


def _section(title: str, parts: Sequence[str]) -> str:
    return f"### {title}\n\n" + "\n\n".join(parts)


def _images(message: Message) -> list[str]:
    if not message.images:
        return []
    return ["\n".join(f"[image: {image.media_type}]" for image in message.images)]


def _user(message: Message) -> str | None:
    if message.source == SUB_AGENT_RESULT_SOURCE:
        return _section("Sub-agent result", ["[body omitted]"])
    notice, blocks, rest = split_skill_blocks(message.content)
    parts: list[str] = []
    markers = [f"[active skill: {block.name}]" for block in blocks if block.active]
    if markers:
        parts.append("\n".join(markers))
    text = (notice + rest).strip()
    if text:
        parts.append(text)
    parts.extend(_images(message))
    return _section("User", parts) if parts else None


def _result_lines(result: str) -> tuple[str, list[str]]:
    """`` (exit N)`` when the result states an exit code, and its first lines quoted."""
    code = exit_code(result)
    exit_status = "" if code is None else f" (exit {code})"
    if code is not None:
        result = result.removesuffix(EXIT_LINE.format(code=code))
    heads: list[str] = []
    for line in result.splitlines():
        text = line.strip()
        if not text:
            continue
        heads.append(f"  > {text if len(text) <= _HEAD_CHARS else text[:_HEAD_CHARS] + '...'}")
        if len(heads) == _HEAD_LINES:
            break
    return exit_status, heads


def _assistant(
    message: Message, statuses: Mapping[str, str], results: Mapping[str, str]
) -> str | None:
    parts: list[str] = []
    if message.content.strip():
        parts.append(message.content.strip())
    lines = []
    for call in message.tool_calls:
        if call.name in OMITTED_TOOLS:
            continue
        status = statuses.get(call.id, "missing")
        exit_status, heads = _result_lines(results.get(call.id, ""))
        mark = f"- {_MARKS[status]} {summarize_call(call)}{exit_status}"
        lines.append(f"{mark}{_SUFFIX.get(status, '')}")
        lines.extend(heads)
    if lines:
        parts.append("\n".join(lines))
    parts.extend(_images(message))
    return _section("Assistant", parts) if parts else None


def render_history(
    messages: Sequence[Message], *, tool_status: ToolStatusReader = default_tool_status
) -> str:
    """The Markdown archive text of ``messages`` (``""`` when nothing is kept).

    Args:
        messages: summarized source messages, oldest first.
        tool_status: reads ``done``/``failed``/``rejected``/``cancelled`` from a tool result
            message.

    Returns:
        The sections joined by blank lines, ending with a newline.
    """
    statuses: dict[str, str] = {}
    results: dict[str, str] = {}
    for message in messages:
        if message.role == "tool":
            status = tool_status(message)
            statuses[message.tool_call_id] = _ARCHIVED_AS.get(status, status)
            said = default_tool_status(message) in ("done", "failed")
            if said and status in ("done", "failed"):  # a refusal or cancellation adds nothing
                results[message.tool_call_id] = message.content
    sections: list[str | None] = []
    for message in messages:
        if message.role == "user":
            sections.append(_user(message))
        elif message.role == "assistant":
            sections.append(_assistant(message, statuses, results))
        elif message.role == "summary":
            text = remove_history_note_lines(message.content).strip()
            sections.append(_section("Summary", [text]) if text else None)
        elif message.role == "system" and message.content.strip():
            sections.append(_section("System", [message.content.strip()]))
    kept = [section for section in sections if section]
    return "\n\n".join(kept) + "\n" if kept else ""
