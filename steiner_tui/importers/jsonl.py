"""Reading an agent's JSONL transcript line by line, reporting what cannot be read by number."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from steiner_tui.importers.model import LineProblem

__all__ = ["read_records", "text_bytes"]


def read_records(path: Path, problems: list[LineProblem]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each line's JSON object with its number (from 1); blank lines are skipped, and a line
    that is not a JSON object is added to ``problems`` and skipped (never fatal)."""
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                problems.append(LineProblem(number, f"not JSON: {exc.msg}"))
                continue
            if not isinstance(record, dict):
                problems.append(LineProblem(number, "not a JSON object"))
                continue
            yield number, record


def text_bytes(value: Any) -> int:
    """UTF-8 bytes of a tool result's content: its text, or its compact JSON."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
