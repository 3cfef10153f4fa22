"""The offline model's final answers, written only from the tool results it was sent.

One function per intent. Each returns Markdown; the caller adds the context line and the honesty
note. Nothing here reads the disk: directories are derived from the paths a glob listed. Every
answer begins with one of ``markers.ANSWER_OPENINGS`` (a test holds them to it), so the
summarizer can tell this model's words from anyone else's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from steiner_tui.engine.messages import Message, ToolCall
from steiner_tui.engine.state.read_results import FILE_UNCHANGED_PREFIX, parse_read_result
from steiner_tui.providers.offline.markers import ECHO_OPENING, LOOKED_FOR, OVERVIEW_OPENING
from steiner_tui.providers.offline.metadata import describe_file
from steiner_tui.providers.offline.textutil import md_code, md_text, trim
from steiner_tui.providers.offline.toolresults import (
    failure_lines,
    glob_entries,
    glob_truncated,
    grep_matches,
    parse_tool_output,
)
from steiner_tui.units import counted

__all__ = [
    "Exchange",
    "chat_answer",
    "earlier_reads",
    "file_answer",
    "located",
    "located_answer",
    "overview_answer",
    "search_answer",
]

NO_EARLIER_READS: Mapping[str, str] = MappingProxyType({})
"""No earlier reads to answer the engine's "file unchanged" notes from (``earlier_reads``)."""

Exchange = tuple[ToolCall, str | None]
"""A tool call this model made and the content of its result (``None`` when none came back)."""

_SINCE_TURN = re.compile(re.escape(FILE_UNCHANGED_PREFIX) + r" (\d+)")

MAX_LISTED = 25
MAX_MATCHES = 8


def _arg(call: ToolCall, key: str) -> str:
    value = (call.arguments or {}).get(key)
    return value if isinstance(value, str) else ""


def _relative(entry: str, root: Path) -> str:
    path = Path(entry)
    if path.is_absolute():
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return entry
    return entry.removeprefix("./")


def _names(label: str, names: list[str]) -> str:
    shown = ", ".join(md_code(n) for n in names[:MAX_LISTED])
    more = f" and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else ""
    return f"- {label} ({len(names)}): {shown}{more}"


def earlier_reads(messages: Sequence[Message], exchanges: Sequence[Exchange]) -> dict[str, str]:
    """For each read of ``exchanges`` answered with the engine's note ("file unchanged since
    turn N"), the latest read of that path among ``messages`` that holds the file's text (none
    when it is no longer in the conversation)."""
    wanted = set()
    for call, content in exchanges:
        if call.name == "read" and content and FILE_UNCHANGED_PREFIX in content:
            result = parse_read_result(content)
            if result is not None and result.output.startswith(FILE_UNCHANGED_PREFIX):
                wanted.add(result.path)
    out: dict[str, str] = {}
    for message in reversed(messages):  # the latest first, until every path has its read
        if not wanted:
            break
        result = parse_read_result(message.content) if message.role == "tool" else None
        if (
            result is not None
            and result.path in wanted
            and result.output
            and not result.output.startswith(FILE_UNCHANGED_PREFIX)
        ):
            out[result.path] = message.content
            wanted.discard(result.path)
    return out


def _read_sections(exchanges: Sequence[Exchange], earlier: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for call, content in exchanges:
        if call.name != "read":
            continue
        path = _arg(call, "path")
        head = f"**{md_code(path)}**"
        if content is None:
            out.append(f"{head}: no result came back.")
            continue
        result = parse_tool_output(content)
        if not result.meta:
            # Not a read result: a failure, or the read dedup note pointing at an earlier read.
            note = next((x for x in content.splitlines() if x.strip()), "no text")
            out.append(f"{head}: {md_text(trim(note, 200))}")
            continue
        if result.failed:
            reason = (failure_lines(result.text, 1) or [result.text.strip()])[0]
            out.append(f"{head} could not be read: {md_text(trim(reason, 160))}")
            continue
        unchanged = result.text.startswith(FILE_UNCHANGED_PREFIX)  # the engine's note
        copy = earlier.get(str(result.meta.get("path"))) if unchanged else None
        if unchanged and copy is None:  # the earlier read is no longer in the conversation
            out.append(f"{head}: {md_text(trim(result.text.strip(), 200))}")
            continue
        since = ""
        if copy is not None:
            turn = _SINCE_TURN.match(result.text)
            since = f", unchanged since I read it in turn {turn[1]}" if turn else ", unchanged"
            result = parse_tool_output(copy)
        lines = [f"{head} ({counted(result.total_lines, 'line')}{since})"]
        lines += [f"- {fact}" for fact in describe_file(path, result.text)]
        out.append("\n".join(lines))
    return out


def _layout(entries: list[str], truncated: bool, files_label: str = "Top-level files") -> list[str]:
    files = sorted(e for e in entries if "/" not in e)
    per_dir = Counter(e.split("/", 1)[0] + "/" for e in entries if "/" in e)
    kinds = Counter(PurePosixPath(e).suffix for e in entries if PurePosixPath(e).suffix)
    lines = []
    if per_dir:
        shown = [f"`{d}` ({counted(n, 'file')})" for d, n in sorted(per_dir.items())[:MAX_LISTED]]
        more = f" and {len(per_dir) - MAX_LISTED} more" if len(per_dir) > MAX_LISTED else ""
        lines.append(f"- Directories ({len(per_dir)}): {', '.join(shown)}{more}")
    if files:
        lines.append(_names(files_label, files))
    if kinds:
        common = ", ".join(f"`{k}` ({n})" for k, n in kinds.most_common(6))
        lines.append(f"- Most common file types: {common}")
    if truncated:
        lines.append("- The listing was cut by the glob cap, so these counts are partial.")
    return lines or ["- The listing was empty."]


def overview_answer(
    exchanges: Sequence[Exchange],
    root: Path,
    folder: str = "",
    earlier: Mapping[str, str] = NO_EARLIER_READS,
) -> str:
    """The overview of the project, or of one ``folder`` of it: directories and files at its top
    level, README title, package metadata."""
    place = f"folder {md_code(folder + '/')}" if folder else f"project {md_code(root.name)}"
    parts = [f"{OVERVIEW_OPENING}{place}."]
    for call, content in exchanges:
        if call.name != "glob" or content is None:
            continue
        entries = [_relative(e, root) for e in glob_entries(content)]
        if folder:
            entries = [e.removeprefix(f"{folder}/") for e in entries]
        head = f"**Layout** (`glob` `{_arg(call, 'pattern')}`: {counted(len(entries), 'path')})"
        label = f"Files in {md_code(folder + '/')}" if folder else "Top-level files"
        parts.append("\n".join([head, *_layout(entries, glob_truncated(content), label)]))
    reads = _read_sections(exchanges, earlier)
    parts += reads
    if not reads:
        where = f"in {md_code(folder + '/')}" if folder else "at the top level"
        parts.append(f"I found no README or package metadata file {where}.")
    return "\n\n".join(parts)


def file_answer(
    exchanges: Sequence[Exchange], earlier: Mapping[str, str] = NO_EARLIER_READS
) -> str:
    """What each file that was read contains: line count and an outline (``earlier``: the
    reads a note of the engine's refers to, ``earlier_reads``)."""
    reads = _read_sections(exchanges, earlier)
    return "\n\n".join(["Here is what I read:", *reads]) if reads else "Nothing was read."


def located(exchanges: Sequence[Exchange]) -> dict[str, list[str] | None]:
    """Each bare name looked for (a ``glob`` of ``**/NAME``) and the files the project has of
    that name, in the glob's order (``None``: the glob failed or did not come back)."""
    out: dict[str, list[str] | None] = {}
    for call, content in exchanges:
        if call.name != "glob" or not _arg(call, "pattern").startswith("**/"):
            continue
        name = _arg(call, "pattern").removeprefix("**/")
        if content is None or (parse_tool_output(content).failed and not glob_entries(content)):
            out[name] = None
        else:
            out[name] = [e.removeprefix("./") for e in glob_entries(content) if not e.endswith("/")]
    return out


def located_answer(
    exchanges: Sequence[Exchange], earlier: Mapping[str, str] = NO_EARLIER_READS
) -> str:
    """Where each bare name looked for was found (or not), then what was read of it."""
    notes = []
    for name, found in located(exchanges).items():
        lead = f"{LOOKED_FOR}{name}` in the whole project"
        if found is None:
            notes.append(f"{lead}, but the search failed.")
        elif not found:
            notes.append(f"{lead}: no file has that name.")
        elif len(found) == 1:
            notes.append(f"{lead}: it is `{found[0]}`.")
        else:
            shown = ", ".join(f"`{p}`" for p in found[:MAX_MATCHES])
            more = f" and {len(found) - MAX_MATCHES} more" if len(found) > MAX_MATCHES else ""
            notes.append(
                f"{lead}: {counted(len(found), 'file')} have that name, {shown}{more}. "
                "Name the one you mean by its path."
            )
    reads = _read_sections(exchanges, earlier)
    return "\n\n".join([*notes, *reads])


def search_answer(exchanges: Sequence[Exchange]) -> str:
    """Grep results: how many lines matched, in which files, and the first few matches."""
    parts: list[str] = []
    for call, content in exchanges:
        if call.name != "grep":
            continue
        pattern = md_code(_arg(call, "pattern"))
        scope = f" in {md_code(_arg(call, 'path'))}" if _arg(call, "path") else ""
        result = parse_tool_output(content or "")
        matches = grep_matches(content or "")
        if content is None or (result.failed and not matches):
            parts.append(f"`grep` for {pattern}{scope} failed: {md_text(trim(result.text, 160))}")
            continue
        if not matches:
            parts.append(f"`grep` for {pattern}{scope} found no matches.")
            continue
        files = sorted({path for path, _ in matches})
        head = (
            f"`grep` for {pattern}{scope} found {counted(len(matches), 'matching line')} "
            f"in {counted(len(files), 'file')}:"
        )
        shown = [
            f"- {md_code(path)}: {md_code(trim(text, 100))}" for path, text in matches[:MAX_MATCHES]
        ]
        if len(matches) > MAX_MATCHES:
            shown.append(f"- … and {len(matches) - MAX_MATCHES} more")
        parts.append("\n".join([head, *shown]))
    return "\n\n".join(parts) or "No search was run."


def chat_answer(text: str, *, has_tools: bool) -> str:
    """A direct reply to a message no rule matched: what was said and what can be shown."""
    said = f'{ECHO_OPENING}{md_text(trim(text, 200))}"' if text else "Your message was empty."
    if not has_tools:
        return (
            f"{said}\n\nNo tools were offered with this request, so I can only reflect what I "
            "was sent."
        )
    return (
        f"{said}\n\nI cannot reason about that, but I can show the agent loop working: ask "
        '"what is in this project?" or about a folder ("what is in src/?"), name a file to '
        'read it ("what does app.py do?"), or say "find NAME" to search the project.'
    )
