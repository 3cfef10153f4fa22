"""Reading tool results back, whatever exact shape the tools give them.

The offline model only sees tool results as message text. Read results carry ``path``,
``startLine``, ``endLine``, ``totalLines``, ``file_hash`` and ``output`` (docs/design.md,
"14. Durable context state"), usually as JSON; glob and grep may answer with JSON or plain lines.
These parsers accept both so the model keeps working if a tool's presentation changes.
"""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec

from steiner_tui.providers.offline.filler import is_filler
from steiner_tui.providers.offline.patterns import is_error_line, is_traceback_noise

__all__ = [
    "ToolOutput",
    "error_lines",
    "exit_code",
    "failure_lines",
    "glob_entries",
    "glob_truncated",
    "grep_matches",
    "parse_tool_output",
]


_LINE_NUMBER = re.compile(r"^\s*\d+(?:\t|→|\|| {2})")


_ERROR_LINE = re.compile(r"\b(error|errors|traceback|failed|failure|exception|fatal)\b", re.I)


_EXIT = re.compile(r"exit(?:_code|code| code| status)?\W{0,3}(-?\d+)", re.I)


_NOTE_LINE = re.compile(r"^[\[(].*[\])]$")


_NO_MATCH_PREFIXES = ("No files match ", "No matches for ")
_FAILURE_HEADS = (
    "error",
    "tool error",
    "failed",
    "permission denied",
    "refused",
    "cannot ",
    "invalid ",
    "unknown tool",
    "the user rejected",
    "cancelled by the user",
    "timed out",
)


class ToolOutput(msgspec.Struct, frozen=True):
    """A tool result's text body, its metadata (JSON fields) and whether it reports failure."""

    text: str
    meta: dict[str, Any]
    failed: bool
    total_lines: int


def _looks_failed(content: str, meta: dict[str, Any]) -> bool:
    if meta.get("error") or meta.get("is_error"):
        return True
    code = exit_code(content, meta)
    if code not in (None, 0):
        return True
    return content.lstrip().lower().startswith(_FAILURE_HEADS)


def exit_code(content: str, meta: dict[str, Any] | None = None) -> int | None:
    """The exit code a bash-like result reports, or ``None`` when it says none."""
    for key in ("exit_code", "exitCode", "returncode", "code"):
        value = (meta or {}).get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    # The bash tool ends its output with "[exit code: N]": look at the end first.
    tail = _EXIT.findall(content[-400:])
    if tail:
        return int(tail[-1])
    match = _EXIT.search(content[:400])
    return int(match.group(1)) if match else None


def _strip_line_numbers(text: str) -> str:
    lines = text.splitlines()
    filled = [line for line in lines if line.strip()]
    if not filled or sum(bool(_LINE_NUMBER.match(x)) for x in filled) < 0.8 * len(filled):
        return text
    return "\n".join(_LINE_NUMBER.sub("", line, count=1) for line in lines)


def parse_tool_output(content: str) -> ToolOutput:
    """Split a tool result into its text body and JSON metadata (when it is JSON)."""
    meta: dict[str, Any] = {}
    text = content
    try:
        decoded = json.loads(content)
    except ValueError:
        decoded = None
    if isinstance(decoded, dict):
        meta = decoded
        body = next(
            (decoded[k] for k in ("output", "content", "text", "stdout") if k in decoded), None
        )
        text = body if isinstance(body, str) else ""
        if not text and isinstance(decoded.get("error"), str):
            text = decoded["error"]
    text = _strip_line_numbers(text)
    total = meta.get("totalLines")
    total_lines = total if isinstance(total, int) else len(text.splitlines())
    return ToolOutput(text, meta, _looks_failed(content, meta), total_lines)


def glob_truncated(content: str) -> bool:
    """Whether a glob result says its listing was cut."""
    return "truncated" in content[-300:].lower()


def glob_entries(content: str) -> list[str]:
    """The paths a glob result lists (JSON list, JSON object with a list, or one per line)."""
    try:
        decoded = json.loads(content)
    except ValueError:
        decoded = None
    items: list[Any] | None = None
    if isinstance(decoded, list):
        items = decoded
    elif isinstance(decoded, dict):
        items = next((v for v in decoded.values() if isinstance(v, list)), None)
        if items is None:
            body = decoded.get("output")
            content = body if isinstance(body, str) else ""
    if items is not None:
        return [str(x) for x in items if isinstance(x, str) and x.strip()]
    lines = [line.strip() for line in content.splitlines()]
    return [
        x for x in lines if x and not _NOTE_LINE.match(x) and not x.startswith(_NO_MATCH_PREFIXES)
    ]


def grep_matches(content: str) -> list[tuple[str, str]]:
    """``(path, line text)`` pairs from a grep result in ``path:line:text`` form."""
    text = parse_tool_output(content).text
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[1].strip().isdigit():
            out.append((parts[0], parts[2].strip()))
        elif len(parts) >= 2 and parts[0] and not line.startswith(("[", "(")):
            out.append((parts[0], parts[-1].strip()))
    return out


def error_lines(text: str, limit: int = 2) -> list[str]:
    """Up to ``limit`` lines of ``text`` that state an error outright (``XError: ...``,
    ``FAILED ...``, ``error: ...``); a traceback's header and frames are not among them."""
    found: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if is_error_line(stripped) and stripped not in found:
            found.append(stripped)
            if len(found) >= limit:
                break
    return found


def failure_lines(text: str, limit: int = 2) -> list[str]:
    """Up to ``limit`` lines of failing output that say what went wrong.

    Lines that state an error outright come first (``error_lines``), then lines that mention
    an error, traceback or failure; traceback frames and filler are skipped.
    """
    found = error_lines(text, limit)
    for line in text.splitlines():
        if len(found) >= limit:
            break
        stripped = line.strip()
        if (
            stripped
            and _ERROR_LINE.search(stripped)
            and stripped not in found
            and not is_traceback_noise(stripped)
            and not is_filler(stripped)
        ):
            found.append(stripped)
    return found
