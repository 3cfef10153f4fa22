"""Reading an agent's JSONL transcript line by line, reporting what cannot be read by number."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from steiner_tui.importers.model import LineProblem

__all__ = ["apply_each", "read_each", "read_records", "text_bytes"]


def _lines(path: Path, end: int | None) -> Iterator[str]:
    if end is None:
        with path.open(encoding="utf-8", errors="replace") as handle:
            yield from handle
        return
    with path.open("rb") as handle:
        data = handle.read(end)
    for line in data.split(b"\n"):
        yield line.decode("utf-8", "replace")


def read_records(
    path: Path, problems: list[LineProblem], end: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's JSON object with its number (from 1); blank lines are skipped, and a line
    that is not a JSON object is added to ``problems`` and skipped (never fatal). ``end``
    reads only the file's first ``end`` bytes (a followed file's complete lines)."""
    for number, line in enumerate(_lines(path, end), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            at = "" if exc.msg.endswith(" at") else " at"  # "Invalid control character at"
            problems.append(LineProblem(number, f"not JSON: {exc.msg}{at} column {exc.colno}"))
            continue
        except RecursionError:
            problems.append(LineProblem(number, "JSON nested too deeply to read"))
            continue
        if not isinstance(record, dict):
            problems.append(LineProblem(number, "not a JSON object"))
            continue
        yield number, record


def read_each(
    path: Path,
    problems: list[LineProblem],
    read: Callable[[int, dict[str, Any]], None],
    end: int | None = None,
) -> None:
    """Hand each record of ``path`` (its first ``end`` bytes) to ``read``, line by line (see
    ``apply_each``).

    Raises:
        OSError: the file cannot be read.
    """
    apply_each(read_records(path, problems, end), problems, read)


def apply_each(
    records: Iterable[tuple[int, dict[str, Any]]],
    problems: list[LineProblem],
    read: Callable[[int, dict[str, Any]], None],
) -> None:
    """Hand each numbered record to ``read``.

    A record ``read`` cannot use (a value of another type than the agent writes: a number for
    a message's content, a string for its usage) is added to ``problems`` by its line, and
    the records after it are still read: a damaged line never stops an import.
    """
    for number, record in records:
        try:
            read(number, record)
        except Exception as exc:  # any failure stays on its line, as the session loader's
            kind = record.get("type")
            what = f"{kind} record" if isinstance(kind, str) else "record"
            reason = str(exc) if isinstance(exc, ValueError) else repr(exc)
            problems.append(LineProblem(number, f"unreadable {what}: {reason}"))


def text_bytes(value: Any) -> int:
    """UTF-8 bytes of a tool result's content: its text, or its compact JSON."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
