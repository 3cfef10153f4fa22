"""The recent-tool-calls summary of the durable context state.

After compaction the model keeps a one-line memory of what it just did: the newest three tool
calls, oldest first, as ``name key=value, key=value``. Only six keys are shown, in a fixed order;
paths and bash commands are redacted against the absolute working directory so a summary never
leaks the user's home layout and stays short. Values are rendered in one fixed text form
(``go_sprint``): every number as a float in its shortest round-trip digits, ``<nil>`` for null,
``map[k:v ...]`` with sorted keys and ``[a b]`` for lists, so a summary's bytes never vary.

(docs/design.md, "14. Durable context state")
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from steiner_tui.engine.messages import Message, ToolCall

__all__ = ["go_sprint", "summarize_recent_tool_calls", "summarize_tool_call"]

SUMMARY_KEYS: tuple[str, ...] = ("cwd", "path", "pattern", "command", "offset", "limit")
"""The argument keys a summary shows, in this order; every other key is ignored."""

_VALUE_CUT = 40
_COMMAND_CUT = 80
_CD_SEPARATORS = (" && ", " ; ", " || ")


def summarize_recent_tool_calls(
    messages: Sequence[Message], limit: int = 3, cwd: str = ""
) -> list[str]:
    """Summaries of the newest ``limit`` tool calls, listed oldest first.

    Args:
        messages: The conversation (normally the latest lineage generation).
        limit: How many calls to keep; 0 or less gives ``[]``.
        cwd: The absolute working directory used for redaction when a call has no absolute
            ``cwd`` argument of its own; ``""`` means no redaction beyond base names.

    Returns:
        One ``name key=value, ...`` line per call (just ``name`` when no key applies).
    """
    if limit <= 0:
        return []
    newest_first: list[str] = []
    for message in reversed(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        for call in reversed(message.tool_calls):
            newest_first.append(summarize_tool_call(call, cwd))
            if len(newest_first) == limit:
                return newest_first[::-1]
    return newest_first[::-1]


@functools.lru_cache(maxsize=64)
def summarize_tool_call(call: ToolCall, cwd: str = "") -> str:
    """One call's summary line: the trimmed tool name plus its summarized arguments.

    Kept for the latest calls: the context state is rebuilt before every model call, from
    the same few calls (a call is immutable, so its summary is too).
    """
    name = call.name.strip()
    arguments = call.arguments or {}
    root = _summary_root(arguments, cwd)
    parts: list[str] = []
    for key in SUMMARY_KEYS:
        if key not in arguments:
            continue
        value = _summarize_value(name, key, arguments[key], root)
        if value:
            parts.append(f"{key}={value}")
    if not parts:
        return name
    return f"{name} {', '.join(parts)}".strip()


def _summary_root(arguments: Mapping[str, Any], cwd: str) -> str:
    call_cwd = arguments.get("cwd")
    if isinstance(call_cwd, str) and posixpath.isabs(call_cwd.strip()):
        return posixpath.normpath(call_cwd.strip())
    cwd = cwd.strip()
    return posixpath.normpath(cwd) if cwd else ""


def _summarize_value(tool: str, key: str, value: Any, root: str) -> str:
    text = go_sprint(value).strip()
    if key in ("cwd", "path"):
        return _redact_path(text, root)
    if key == "command" and tool.lower() == "bash":
        return _summarize_bash(text, root)
    return _cut(text, _VALUE_CUT)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _redact_path(path: str, root: str) -> str:
    if not path:
        return ""
    if not posixpath.isabs(path):
        return posixpath.normpath(path)
    path = posixpath.normpath(path)
    if root:
        if path == root:
            return "."
        prefix = root.rstrip("/") + "/"
        if path.startswith(prefix):
            return path[len(prefix) :]
    return posixpath.basename(path) or path


def _summarize_bash(command: str, root: str) -> str:
    command = " ".join(command.split())
    command = _strip_leading_cd(command)
    if root:
        # A cleaned root of "/" stays "/"; replacing it would erase every slash, so skip it.
        if command == root:
            command = "."
        elif root != "/":
            command = command.replace(root + "/", "").replace(root, "")
    command = " ".join(command.split())
    return _cut(command, _COMMAND_CUT)


def _strip_leading_cd(command: str) -> str:
    if not command.lower().startswith("cd "):
        return command
    # The earliest separator of any kind ends the cd prefix ("the first && ; or ||").
    hits = [(i, sep) for sep in _CD_SEPARATORS if (i := command.find(sep)) >= 0]
    if not hits:
        return command
    index, sep = min(hits)
    return command[index + len(sep) :].strip()


def go_sprint(value: Any) -> str:
    """Render a decoded JSON value in the summary's text form (numbers as 64-bit floats)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _go_float(float(value))
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        items = " ".join(f"{k}:{go_sprint(value[k])}" for k in sorted(value))
        return f"map[{items}]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    return str(value)


def _go_float(number: float) -> str:
    """Shortest round-trip digits; exponent form (``1e+06``) from 1e6 up and below 1e-4."""
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "+Inf" if number > 0 else "-Inf"
    if number == 0:
        return "0"
    if number.is_integer() and abs(number) < 1e6:  # an offset or a limit: no Decimal needed
        return str(int(number))
    # repr gives the shortest digits that read back as the same float.
    sign, digits, exponent = Decimal(repr(number)).normalize().as_tuple()
    if not isinstance(exponent, int):  # pragma: no cover - NaN/Inf handled above
        return repr(number)
    text = "".join(map(str, digits))
    point = len(text) + exponent
    x = point - 1
    minus = "-" if sign else ""
    if x < -4 or x >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if x < 0 else '+'}{abs(x):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"
